// For each problem, the nearest thing that does exist and what differs (LOADER.md §E: a
// demangled answer beats a list of mangled names).
#ifndef ABICHECK_LIB_DIAGNOSE_DIAGNOSE_H_
#define ABICHECK_LIB_DIAGNOSE_DIAGNOSE_H_

#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "lib/demangle/demangle.h"
#include "lib/resolve/loader.h"

namespace abicheck {

// Fills Problem::candidates and Problem::hint for the problems of `report`.
void DiagnoseProblems(const Loader& loader, const std::vector<const Object*>& scope, Report* report);

// "parameter 4: int → unsigned int", ... between two split C++ functions (empty when equal).
std::vector<std::string> DescribeDifferences(const FunctionParts& wanted, const FunctionParts& found);

}  // namespace abicheck

#endif  // ABICHECK_LIB_DIAGNOSE_DIAGNOSE_H_
