// `abicheck gpu FILE... [--gpu ARCH]`: the CUDA device code each shared object carries (as
// `cuobjdump --list-elf --list-ptx` lists it), and whether a given GPU can run it.
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/api/limits.h"
#include "lib/cli/commands.h"
#include "lib/cli/progress.h"
#include "lib/elf/elf_file.h"
#include "lib/elf/fatbin.h"
#include "lib/inputs/inputs.h"
#include "lib/report/json_report.h"
#include "lib/report/text_util.h"
#include "lib/util/paths.h"

namespace abicheck::cli {
namespace {

const char* VariantName(ArchVariant v) {
  return v == ArchVariant::kArchSpecific ? "arch-specific"
         : v == ArchVariant::kFamily     ? "family"
                                         : "";
}

const char* CompressionName(DeviceCompression c) {
  return c == DeviceCompression::kZstd ? "zstd" : c == DeviceCompression::kLz4 ? "lz4" : "none";
}

// One object's device code: its cuobjdump-like lines (or, with targets, a verdict per GPU) and
// warnings appended to `text`, its JSON to `objects`; `all_run` false when a target cannot run it.
void DescribeObject(const std::string& name, const DeviceCode& code,
                    const std::vector<int>& targets, bool header, std::string* text,
                    nlohmann::ordered_json* objects, bool* all_run) {
  nlohmann::ordered_json j;
  j["object"] = name;
  j["has_section_headers"] = code.has_section_headers;
  nlohmann::ordered_json images = nlohmann::ordered_json::array();
  // cuobjdump's names: the file name less its last extension, a counter per kind.
  std::string base =
      Basename(name.substr(name.rfind('!') == std::string::npos ? 0 : name.rfind('!') + 1));
  if (size_t dot = base.rfind('.'); dot != std::string::npos && dot > 0) base.resize(dot);
  std::string lines;
  int n_elf = 0, n_ptx = 0;
  for (const DeviceImage& img : code.images) {
    const bool ptx = img.kind == DeviceCodeKind::kPtx;
    const int n = ptx ? ++n_ptx : ++n_elf;
    absl::StrAppendFormat(&lines, "%s file %4d: %s.%d.%s.%s\n", ptx ? "PTX" : "ELF", n,
                          Printable(base), n, CuobjdumpArchName(img), ptx ? "ptx" : "cubin");
    images.push_back(
        {{"kind", ptx ? "ptx" : "sass"},
         {"arch", ArchName(img.arch, img.variant)},
         {"compute_capability", absl::StrFormat("%d.%d", img.arch / 10, img.arch % 10)},
         {"variant", VariantName(img.variant)},
         {"version", absl::StrFormat("%d.%d", img.version_major, img.version_minor)},
         {"compression", CompressionName(img.compression)},
         {"size", img.size}});
  }
  j["images"] = std::move(images);
  j["notes"] = code.notes;
  nlohmann::ordered_json verdicts = nlohmann::ordered_json::array();
  std::string verdict_lines;
  for (int t : targets) {
    const DeviceVerdict v = JudgeDeviceCode(code, t, std::nullopt);
    const std::vector<std::string>& by = v.usable;
    const std::vector<std::string>& carried = v.carried;
    const bool has_code = !code.images.empty();
    const bool runs = !has_code || !by.empty();
    *all_run = *all_run && runs;
    const std::string gpu = absl::StrFormat("sm_%d", t);
    verdicts.push_back({{"gpu", gpu}, {"runs", runs}, {"by", by}, {"device_code", has_code}});
    if (!has_code) {
      absl::StrAppend(&verdict_lines, Printable(name), ": no device code (nothing for ", gpu,
                      " to run)\n");
    } else if (runs) {
      absl::StrAppend(&verdict_lines, Printable(name), ": runs on ", gpu, " (",
                      absl::StrJoin(by, ", "), ")\n");
    } else {
      absl::StrAppend(&verdict_lines, Printable(name), ": NO kernel image for ", gpu,
                      ": it carries ", absl::StrJoin(carried, ", "), "; ", RebuildHint(t), "\n");
    }
  }
  j["gpus"] = std::move(verdicts);
  objects->push_back(std::move(j));
  if (targets.empty()) {
    if (header) absl::StrAppend(text, "== ", Printable(name), "\n");
    absl::StrAppend(text, lines);
  } else {
    absl::StrAppend(text, verdict_lines);
  }
  if (!code.has_section_headers)
    absl::StrAppend(text, "warning: ", Printable(name),
                    ": no section headers: its device code, if any, cannot be found\n");
  for (const std::string& n : code.notes) absl::StrAppend(text, "warning: ", Printable(n), "\n");
}

// gpu --list: the table --gpu is read with (docs/gpu-model.md "GPU names").
int PrintGpuList(const Invocation& io) {
  std::map<int, std::vector<std::string>> by_cc;
  for (const auto& [name, cc] : KnownGpuNames()) by_cc[cc].push_back(name);
  std::fprintf(io.out, "%-9s %-4s %s\n", "--gpu", "CC", "products (case-insensitive)");
  for (int cc : KnownArchitectures()) {
    const std::string arch = absl::StrFormat("sm_%d", cc);
    const std::string version = absl::StrFormat("%d.%d", cc / 10, cc % 10);
    std::fprintf(io.out, "%-9s %-4s %s\n", arch.c_str(), version.c_str(),
                 absl::StrJoin(by_cc[cc], ", ").c_str());
  }
  std::fprintf(io.out,
               "also: sm90, sm_90a, compute_90, 9.0, 90; a product name with NVIDIA, GeForce, "
               "SXM, PCIe, NVL or a memory size (\"NVIDIA H100 SXM5 80GB\")\n");
  return kExitLoads;
}

// The --gpu values as compute capabilities; false, said, when one names no GPU.
bool ParseTargets(const Invocation& io, const std::vector<std::string>& gpus,
                  std::vector<int>* targets) {
  for (const std::string& g : gpus) {
    std::optional<int> cc = ParseGpu(g);
    if (!cc) {
      std::fprintf(io.err, "%s: gpu: %s\n", io.prog.c_str(), UnknownGpuMessage(g).c_str());
      return false;
    }
    targets->push_back(*cc);
  }
  return true;
}

}  // namespace

int RunGpu(const Invocation& io, std::vector<std::string> args) {
  CLI::App app{
      "Lists the CUDA device code (SASS cubins and PTX) in shared objects, as cuobjdump "
      "--list-elf --list-ptx does, and with --gpu says whether that GPU can run each one.",
      io.prog + " gpu"};
  std::vector<std::string> inputs, gpus;
  OutputOptions out;
  out.terminal = io.out;
  CLI::Option* files = app.add_option("FILE", inputs, "shared objects, directories or wheels");
  bool list = false;
  app.add_flag("--list", list,
               "print the GPU names and architectures --gpu takes, with compute capabilities");
  app.add_option("--gpu", gpus,
                 "a GPU: sm_120, 12.0, or a product name (\"H100\", \"RTX PRO 6000 Blackwell\", "
                 "...; --list prints them); repeatable")
      ->allow_extra_args(false);  // one value each: `gpu --gpu sm_61 FILE` leaves FILE a FILE
  out.AddTo(app, {"text", "json"});
  app.footer(
      "exit codes: 0 every object with device code can run on every --gpu, 1 one cannot, "
      "2 usage error, 3 unreadable or invalid input");
  InputLimits limits;
  AddLimitOptions(app, &limits);
  if (std::optional<int> done = Parse(io, app, std::move(args))) return *done;
  if (list) return PrintGpuList(io);
  if (files->count() == 0) {
    std::fprintf(io.err, "%s: gpu: FILE is required (or --list)\n", io.prog.c_str());
    return kExitUsage;
  }
  if (OutputIsAnInput(io, out.output, inputs)) return kExitUsage;
  std::vector<int> targets;
  if (!ParseTargets(io, gpus, &targets)) return kExitUsage;
  ProgressBar bar(io.err, io.progress, out.quiet);
  limits.whole_members = true;  // device code lies in the middle of a library
  limits.progress = bar.Callback();
  std::string text;
  nlohmann::ordered_json objects = nlohmann::ordered_json::array();
  bool all_run = true;
  for (const std::string& in : inputs) {
    absl::StatusOr<ExpandedInput> ex = ExpandInput(in, ToReadLimits(limits));
    if (!ex.ok()) {
      bar.Finish();
      PrintError(io, ex.status());
      return ExitCodeForStatus(ex.status());
    }
    for (const InputFile& f : ex->objects) {
      absl::StatusOr<ElfFile> elf = ElfFile::Parse(f.name, f.blob->bytes());
      if (!elf.ok()) {
        bar.Finish();
        PrintError(io, elf.status());
        return ExitCodeForStatus(elf.status());
      }
      const DeviceCode code = f.device_code ? DeviceCodeOf(*f.device_code) : ReadDeviceCode(*elf);
      // A corrupt fat binary is corrupt input, never "no device code" (docs/gpu-model.md).
      if (!code.problems.empty()) return FailWith(io, absl::DataLossError(code.problems[0]), out);
      DescribeObject(f.name, code, targets, ex->objects.size() > 1 || inputs.size() > 1, &text,
                     &objects, &all_run);
    }
  }
  bar.Finish();
  if (out.format == "json") {
    nlohmann::ordered_json doc;
    doc["schema_version"] = 1;
    doc["tool"] = {{"name", "abicheck"}, {"version", Version()}};
    doc["objects"] = std::move(objects);
    text = DumpJson(doc);
  }
  if (!Emit(io, text, out)) return kExitBadInput;
  return all_run ? kExitLoads : kExitWillNotLoad;
}

}  // namespace abicheck::cli
