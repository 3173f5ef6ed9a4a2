// DiffBuilds: both builds expanded, each library's export set read, then compared.
#include <optional>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "lib/api/build.h"
#include "lib/api/findings.h"
#include "lib/api/limits.h"
#include "lib/diagnose/diff.h"
#include "lib/inputs/inputs.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

absl::StatusOr<std::vector<ExportSet>> ReadExports(const std::string& build,
                                                   const InputLimits& limits) {
  // A Python environment is the torch installed in it: two venvs' every package differed in
  // 124,086 removed names, most of them not torch's.
  ABICHECK_ASSIGN_OR_RETURN(std::optional<ExpandedInput> in, ExpandInstalledTorch(build, limits));
  if (!in) {
    ABICHECK_ASSIGN_OR_RETURN(in, ExpandInput(build, ToReadLimits(limits)));
  }
  std::vector<ExportSet> libs;
  for (const InputFile& f : in->objects) {
    ABICHECK_ASSIGN_OR_RETURN(ExportSet lib, ReadExportSet(f));
    // A member's path in its wheel, a torch directory's from "torch/", else under the input.
    const size_t bang = f.name.rfind('!');
    lib.relative = bang != std::string::npos ? f.name.substr(bang + 1) : TorchRelative(f.name);
    if (lib.relative.empty() && absl::StartsWith(f.name, in->path + "/"))
      lib.relative = f.name.substr(in->path.size() + 1);
    libs.push_back(std::move(lib));
  }
  return libs;
}

}  // namespace

absl::StatusOr<AbiDiff> DiffBuilds(const std::string& old_build, const std::string& new_build,
                                   const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(std::vector<ExportSet> a, ReadExports(old_build, limits));
  ABICHECK_ASSIGN_OR_RETURN(std::vector<ExportSet> b, ReadExports(new_build, limits));
  return ToAbiDiff(CompareBuilds(old_build, a, new_build, b));
}

}  // namespace abicheck
