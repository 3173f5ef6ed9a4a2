// The check over objects already expanded from inputs: what Check() and CheckMatrix() call, and
// what the whole-pipeline fuzzer drives without touching the file system.
#ifndef ABICHECK_LIB_RESOLVE_CHECK_INTERNAL_H_
#define ABICHECK_LIB_RESOLVE_CHECK_INTERNAL_H_

#include <vector>

#include "abicheck/abicheck.h"
#include "lib/io/blob.h"

namespace abicheck {

absl::StatusOr<Report> CheckObjects(const InputFile& module,
                                    const std::vector<InputFile>& providers,
                                    const std::vector<InputFile>& preload, const InputFile* python,
                                    const CheckOptions& options);

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_CHECK_INTERNAL_H_
