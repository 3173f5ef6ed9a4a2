// docs/gpu-model.md G5-G7 on a checked module: which image its GPU would run, whether the driver
// can JIT-compile the PTX it falls back to, and whether the driver runs the CUDA runtime the load
// brings in.
#include "lib/resolve/device_check.h"

#include <filesystem>
#include <functional>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "lib/util/paths.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

// The driver the host has: libcuda.so.1 -> libcuda.so.570.124.06 (how NVIDIA's installer and
// Debian's packages name it). Only the file name is read.
absl::StatusOr<std::pair<CudaVersion, std::string>> HostDriver(const LoadOptions& options,
                                                               const LdCache& cache,
                                                               uint16_t e_machine) {
  const std::string root = options.sysroot == "/" ? "" : options.sysroot;
  std::vector<std::string> candidates;
  if (std::optional<std::string> p = cache.Lookup("libcuda.so.1", e_machine))
    candidates.push_back(*p);
  for (const char* d : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
                        "/usr/lib64", "/lib", "/usr/lib"})
    candidates.push_back(absl::StrCat(root, d, "/libcuda.so.1"));
  for (const std::string& c : candidates) {
    std::error_code ec;
    const std::filesystem::path real = std::filesystem::canonical(c, ec);
    if (ec) continue;
    const std::string file = real.string();
    const std::string name = Basename(file);
    absl::string_view base = name;
    if (!absl::ConsumePrefix(&base, "libcuda.so.") || base == "1") {
      return absl::FailedPreconditionError(
          absl::StrCat(c, ": the CUDA driver's file name carries no version (libcuda.so.1 -> ",
                       Basename(file), "); give it with --cuda-driver VERSION"));
    }
    std::optional<CudaVersion> v = ParseCudaDriver(base);
    if (!v) {
      return absl::FailedPreconditionError(absl::StrCat(
          file, ": not a driver version in this file name; give it with --cuda-driver VERSION"));
    }
    return std::make_pair(*v, file);
  }
  return absl::NotFoundError(
      absl::StrCat("--cuda-driver host: no libcuda.so.1 on this host",
                   root.empty() ? "" : absl::StrCat(" (under ", root, ")"),
                   ": no NVIDIA driver is installed; give its version with --cuda-driver VERSION"));
}

}  // namespace

absl::StatusOr<DeviceTarget> ResolveDeviceTarget(const LoadOptions& options, const LdCache& cache,
                                                 uint16_t e_machine) {
  DeviceTarget t;
  if (!options.gpu.empty()) {
    t.gpu = ParseGpu(options.gpu);
    if (!t.gpu) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown GPU '", options.gpu, "' (give sm_XY, X.Y, or a name from docs/gpu-model.md)"));
    }
  }
  if (options.cuda_driver == "host") {
    ABICHECK_ASSIGN_OR_RETURN(auto host, HostDriver(options, cache, e_machine));
    t.driver = host.first;
    t.driver_file = host.second;
  } else if (!options.cuda_driver.empty()) {
    t.driver = ParseCudaDriver(options.cuda_driver);
    if (!t.driver) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown CUDA driver '", options.cuda_driver,
                       "' (give a CUDA version such as 12.8, a driver version such as 570.124.06, "
                       "or host)"));
    }
  }
  return t;
}

absl::Status CheckDeviceCode(const DeviceTarget& target, const ElfFile& object, const Blob& bytes,
                             LoadFindings* report, bool verdict_only,
                             const StreamedDeviceCode* streamed) {
  DeviceFindings& d = report->device;
  d.checked = true;
  if (target.gpu) d.gpu = absl::StrCat("sm_", *target.gpu);
  if (target.driver) d.driver_cuda = target.driver->ToString();
  d.driver_file = target.driver_file;
  // An archive member kept as its loader tables only has no device code to read.
  const RangeSet* kept = streamed != nullptr ? nullptr : bytes.retained();
  // A verdict needs one image the GPU can use; a failing one reads them all.
  std::function<bool(const DeviceImage&)> stop;
  if (verdict_only && target.gpu) {
    stop = [&](const DeviceImage& img) {
      DeviceCode one;
      one.images = {img};
      return !JudgeDeviceCode(one, target.gpu, target.driver).usable.empty();
    };
  }
  const DeviceCode code = streamed != nullptr ? DeviceCodeOf(*streamed, stop)
                          : kept != nullptr && !kept->Covers(0, bytes.bytes().size())
                              ? DeviceCode{}
                              : ReadDeviceCode(object, stop);
  d.readable = code.has_section_headers;
  if (!code.problems.empty()) return absl::DataLossError(code.problems.front());
  for (const std::string& n : code.notes) report->warnings.push_back({object.name(), n});
  if (!d.readable && target.gpu) {
    report->warnings.push_back(
        {object.name(), kept != nullptr ? "inside an archive, read as its loader tables only: "
                                          "its device code was not judged"
                                        : "no section headers: its device code, if any, cannot "
                                          "be found"});
  }
  const DeviceVerdict v = JudgeDeviceCode(code, target.gpu, target.driver);
  d.images = v.carried;
  d.usable = v.usable;
  if (!report->loads) return absl::OkStatus();  // what does not load never reaches the GPU
  if (target.gpu && !v.carried.empty() && v.usable.empty()) {
    LoadFailure p;
    p.object = object.name();
    if (!v.too_new.empty()) {  // G6
      p.kind = FailureKind::kUnsupportedPtx;
      p.version = absl::StrJoin(v.too_new, ", ");
      p.message = "CUDA error: the provided PTX was compiled with an unsupported toolchain.";
      p.hint = absl::StrCat("install a driver that supports CUDA ", v.driver_needed.ToString(),
                            " or newer, or ", RebuildHint(*target.gpu));
    } else {  // G5
      p.kind = FailureKind::kNoKernelImage;
      p.message = "CUDA error: no kernel image is available for execution on the device";
      p.hint = RebuildHint(*target.gpu);
    }
    report->problems.push_back(std::move(p));
  }
  return absl::OkStatus();
}

void CheckCudaRuntime(const DeviceTarget& target, LoadFindings* report) {
  DeviceFindings& d = report->device;
  // G7: the CUDA runtime the load brings in, against the driver's CUDA major version.
  int runtime_major = 0;
  for (const LoadedObject& l : report->libraries) {
    const std::string base = Basename(l.path.empty() ? l.name : l.path);
    absl::string_view n = base;
    if (absl::ConsumePrefix(&n, "libcudart.so.")) {
      const size_t dot = n.find('.');
      if (absl::SimpleAtoi(n.substr(0, dot), &runtime_major)) {
        d.cuda_runtime = absl::StrCat("libcudart.so.", runtime_major);
        break;
      }
    }
  }
  if (report->loads && target.driver && runtime_major > target.driver->major) {
    LoadFailure p;
    p.kind = FailureKind::kInsufficientDriver;
    p.object = report->module;
    p.library = d.cuda_runtime;
    p.version = absl::StrCat(runtime_major, ".0");
    p.message = "CUDA error: CUDA driver version is insufficient for CUDA runtime version";
    p.hint = absl::StrCat("install a driver that supports CUDA ", runtime_major,
                          " (or a build of this package for CUDA ", target.driver->major, ")");
    report->problems.push_back(std::move(p));
  }
}

}  // namespace abicheck
