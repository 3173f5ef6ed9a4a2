// The check over objects already expanded from inputs: what Check() and CheckMatrix() call, and
// what the whole-pipeline fuzzer drives without touching the file system.
#ifndef ABICHECK_LIB_RESOLVE_CHECK_INTERNAL_H_
#define ABICHECK_LIB_RESOLVE_CHECK_INTERNAL_H_

#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "lib/io/blob.h"

namespace abicheck {

absl::StatusOr<Report> CheckObjects(const InputFile& module,
                                    const std::vector<InputFile>& providers,
                                    const std::vector<InputFile>& preload, const InputFile* python,
                                    const CheckOptions& options);

// Fills m->recommendation from the cells (two or more builds): the build with the fewest failing
// modules, the newest among equals (docs/loader-model.md is silent: this is ours).
void Recommend(Matrix* m);

// How a module row is shown (ModuleInfo::label).
struct ExpandedInput;
std::string ModuleLabel(const ExpandedInput& in, const InputFile& f);

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_CHECK_INTERNAL_H_
