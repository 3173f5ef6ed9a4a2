// After loading: the checked module's CUDA device code against the GPU and the driver the user
// names (docs/gpu-model.md G5-G7), as problems of its report.
#ifndef ABICHECK_LIB_RESOLVE_DEVICE_CHECK_H_
#define ABICHECK_LIB_RESOLVE_DEVICE_CHECK_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "lib/elf/elf_file.h"
#include "lib/elf/fatbin.h"
#include "lib/io/blob.h"
#include "lib/resolve/findings.h"
#include "lib/resolve/ld_cache.h"

namespace abicheck {

struct DeviceTarget {
  std::optional<int> gpu;  // compute capability x 10
  std::optional<CudaVersion> driver;
  std::string driver_file;  // "host": the libcuda it was read from
  bool any() const { return gpu || driver; }
};

// Parses LoadOptions::gpu and ::cuda_driver ("host": the version in the file name libcuda.so.1
// resolves to, found as the loader would find it: `cache`, then the system directories under
// `sysroot`). kInvalidArgument for what is neither; kNotFound when the host has no driver.
absl::StatusOr<DeviceTarget> ResolveDeviceTarget(const LoadOptions& options, const LdCache& cache,
                                                 uint16_t e_machine);

// G5-G6 on `object` (the checked module, or torch's libtorch_cuda for import torch): fills
// report->device and, when the report's module loads, adds a kNoKernelImage or kUnsupportedPtx
// problem (never `first`: dlopen succeeded). A malformed fat binary is corrupt input
// (kDataLoss naming the file and the structure): what it holds cannot be judged, and "no device
// code" would pass a module whose code was only unreadable. `verdict_only`: stop reading at the
// first image the GPU can use (report->device.images is then what was read up to it); a failing
// verdict always reads every image. `streamed`: the object's device code as walked while it
// inflated (InputFile::device_code), read instead of `bytes`.
absl::Status CheckDeviceCode(const DeviceTarget& target, const ElfFile& object, const Blob& bytes,
                             LoadFindings* report, bool verdict_only = false,
                             const StreamedDeviceCode* streamed = nullptr);
// G7: the libcudart the load brings in (report->libraries) against the driver's CUDA major.
void CheckCudaRuntime(const DeviceTarget& target, LoadFindings* report);

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_DEVICE_CHECK_H_
