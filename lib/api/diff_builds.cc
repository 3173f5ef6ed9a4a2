// DiffBuilds: both builds expanded, each library's export set read, then compared.
#include <optional>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "lib/diagnose/diff.h"
#include "lib/inputs/inputs.h"
#include "lib/inputs/python_env.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

absl::StatusOr<std::vector<ExportSet>> ReadExports(const std::string& build,
                                                   const InputLimits& limits) {
  // A Python environment is the torch installed in it, as for check --against and env: not every
  // package's libraries (two venvs differed in 124,086 removed names, most of them not torch's).
  ABICHECK_ASSIGN_OR_RETURN(std::optional<std::string> torch, InstalledTorchDirectory(build));
  ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in, torch ? ExpandInstalledDirectory(*torch, limits)
                                                    : ExpandInput(build, limits));
  std::vector<ExportSet> libs;
  for (const InputFile& f : in.objects) {
    ABICHECK_ASSIGN_OR_RETURN(ExportSet lib, ReadExportSet(f));
    libs.push_back(std::move(lib));
  }
  return libs;
}

}  // namespace

absl::StatusOr<AbiDiff> DiffBuilds(const std::string& old_build, const std::string& new_build,
                                   const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(std::vector<ExportSet> a, ReadExports(old_build, limits));
  ABICHECK_ASSIGN_OR_RETURN(std::vector<ExportSet> b, ReadExports(new_build, limits));
  return CompareBuilds(old_build, a, new_build, b);
}

}  // namespace abicheck
