// The check over objects already expanded from inputs: what Check(), CheckMatrix() and Env()
// call, and what the whole-pipeline fuzzer drives without touching the file system.
#ifndef ABICHECK_LIB_API_CHECK_INTERNAL_H_
#define ABICHECK_LIB_API_CHECK_INTERNAL_H_

#include <optional>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "lib/inputs/pip.h"
#include "lib/io/blob.h"
#include "lib/resolve/parse_cache.h"
#include "lib/resolve/world.h"

namespace abicheck {

// One module against the providers: a world of its own (lib/resolve/world.h), the dlopen, the
// explanations. `own_package`: PrepareWorld's.
absl::StatusOr<Report> CheckObjects(const InputFile& module,
                                    const std::vector<InputFile>& providers,
                                    const std::vector<InputFile>& preload, const InputFile* python,
                                    const CheckOptions& options,
                                    ModuleAlreadyLoaded if_loaded = ModuleAlreadyLoaded::kIsAnError,
                                    ParseCache* parses = nullptr, size_t own_package = 0);

// CheckObjects for checks whose providers change only by growing (an environment's package
// passes, E7): the world made for the last providers serves every module checked while they stay
// the same — CheckInWorld undoes each check, as in CheckMatrix's package worlds — and when they
// have grown, it is made larger where that gives the world a new one would be (ExtendWorld; with
// `parses` shared), else made anew. `own_package` is the same for every check of one ReusedWorld.
// CheckObjects is one such check.
class ReusedWorld {
 public:
  absl::StatusOr<Report> Check(const InputFile& module, const std::vector<InputFile>& providers,
                               const std::vector<InputFile>& preload, const InputFile* python,
                               const CheckOptions& options, ModuleAlreadyLoaded if_loaded,
                               ParseCache* parses, size_t own_package = 0);
  size_t grown() const { return grown_; }  // how often it was made larger, not anew

 private:
  std::optional<World> world_;
  size_t made_for_ = 0;  // how many providers it was made of (they only grow)
  size_t grown_ = 0;
};

// One module's check in `w` (`providers`: the inputs the world was made of): LoadModule and
// JudgeModule (the loader's findings, then made the public Report), the explanations,
// IndexedTablesStatus. What it loads is undone afterwards. `set_aside`: one of the
// world's objects that this check does not see — the module itself among its package's objects
// (only where w.set_aside_ok says so).
absl::StatusOr<Report> CheckInWorld(World& w, const InputFile& module,
                                    const std::vector<InputFile>& providers,
                                    const CheckOptions& options, ModuleAlreadyLoaded if_loaded,
                                    const Object* set_aside);

// What pip is given for `options` (its index options, --find-links, the target's Python).
PipTarget PipTargetOf(const CheckOptions& options, const InputLimits& limits,
                      const std::string& python_version);
// `inputs` with each "pip:REQ" replaced by the wheels pip resolves it to (issue 33), each said in
// `notes` with its sha256; `python_version` the target's ("" for pip's own interpreter's).
absl::StatusOr<std::vector<std::string>> ExpandPipInputs(const std::vector<std::string>& inputs,
                                                         const CheckOptions& options,
                                                         const InputLimits& limits,
                                                         const std::string& python_version,
                                                         std::vector<Warning>* notes);

// Fills m->recommendation from the cells (two or more builds): the build with the fewest failing
// modules, the newest among equals. A build marked in `unusable` (import torch itself fails with
// it) fails every module.
void Recommend(Matrix* m, const std::vector<bool>& unusable = {});

// "torch-2.10.0-3-cp312-..." -> {2, 10, 0}: the first dotted number of a build's file name (else
// of its whole name); empty when there is none. Newer compares greater.
std::vector<int> BuildVersion(absl::string_view build);

// Fills ModuleInfo::torch_abi from the cells and, for stable-ABI objects with several builds,
// ModuleInfo::stable_since (docs/loader-model.md E8).
void MarkTorchAbi(Matrix* m);

// How a recommendation names a build: "torch-2.10.0-3-cp312-..." for a wheel, "torch-2.10.0/torch"
// for a directory (the shortest tail of its path that names a version).
std::string BuildLabel(absl::string_view build);
// The recommendation's name for the `b`th build of `m` ("torch 2.10.0+cu128", else BuildLabel)
// and what to install ("torch==2.10.0"); Installable says both.
void NameRecommendation(const Matrix& m, size_t b, Recommendation* r);
std::string Installable(const Recommendation& r);
// The first error of module `i` when it is the same with every build of `m` (each cell fails,
// none is unknown): a failure no torch choice among them fixes. "" otherwise.
std::string SameFailureWithEveryBuild(const Matrix& m, size_t i);
// "; 2 of them fail with every build given, the same way, so no torch choice fixes them: a, b
// (ERROR)" for the recommendation's summary; "" when `names` is empty.
std::string SameWithEveryBuildClause(const std::vector<std::string>& names,
                                     const std::string& example_error);

// libtorch_global_deps: loaded RTLD_GLOBAL by import torch (docs/loader-model.md E1).
bool IsGlobalDeps(const InputFile& f);
// `path` as one file (a directory, archive or index is an error naming `role`).
absl::StatusOr<InputFile> SingleFile(const std::string& path, const char* role,
                                     const InputLimits& limits = {});

// How a module row is shown (ModuleInfo::label).
struct ExpandedInput;
// Per object of an expanded module input, its package: one for a wheel, a file or a package's
// own directory; one per top-level entry of a directory of installed packages (E7, E9).
std::vector<std::string> PackagesOf(const ExpandedInput& ex);

std::string ModuleLabel(const ExpandedInput& in, const InputFile& f);

// What every check of a call shares besides its build: --provider (with libtorch_global_deps
// moved to the global scope), --preload and --python.
struct CommonInputs {
  std::vector<InputFile> providers, preload;
  std::optional<InputFile> python;
  const InputFile* python_file() const { return python ? &*python : nullptr; }
};
absl::StatusOr<CommonInputs> ReadCommonInputs(const CheckOptions& options,
                                              const InputLimits& limits,
                                              std::vector<Warning>* notes);
// A build's objects are providers: one given by the user must hold some (docs/loader-model.md E2).
absl::Status NeedObjects(const Build& b);

// For every undefined symbol of a cell: which of the builds given (their providers) export that
// exact symbol.
void MarkExportingBuilds(const std::vector<std::vector<InputFile>>& builds, Matrix* m);

}  // namespace abicheck

#endif  // ABICHECK_LIB_API_CHECK_INTERNAL_H_
