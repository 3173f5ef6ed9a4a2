// For each problem, the nearest thing that does exist and what differs (docs/loader-model.md §E: a
// demangled answer beats a list of mangled names).
#ifndef ABICHECK_LIB_DIAGNOSE_DIAGNOSE_H_
#define ABICHECK_LIB_DIAGNOSE_DIAGNOSE_H_

#include <optional>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/strings/string_view.h"
#include "lib/demangle/demangle.h"
#include "lib/resolve/loader.h"

namespace abicheck {

// The hint of an undefined symbol the diagnosis knows nothing more of.
inline constexpr absl::string_view kNotExportedHint =
    "no library in the load exports this name, under any version";

// A cause explains this many problems or more (fewer are each explained on their own).
inline constexpr size_t kMinCauseMembers = 3;
// A cause's examples: the first three members' demangled names, ", ..." when there are more.
std::string CauseExamples(const std::vector<Problem*>& members);
// One cause of `report` for `members`, each marked as explained by it.
void AddCause(std::string id, std::string summary, const std::vector<Problem*>& members,
              Report* report);

// Fills Problem::candidates and Problem::hint for the problems of `report`.
void DiagnoseProblems(const Loader& loader, const std::vector<const Object*>& scope,
                      Report* report);

// Starts making, on another thread, what diagnosing checks that load these tables needs — their
// exported names by base name, their std::string ABI markers — into `cache`, whose Memo() waits
// for each table's where DiagnoseProblems first asks for it. For a call that will check many
// modules against the same large libraries (an environment's torch): the verdicts are made on
// this thread meanwhile. Does nothing on a machine with one core.
void PrepareDiagnosis(const std::vector<const SymbolTable*>& tables, ParseCache* cache);

// "parameter 4: int → unsigned int", ... between two split C++ functions (empty when equal).
std::vector<Difference> DescribeDifferences(const FunctionParts& wanted,
                                            const FunctionParts& found);
// Between two demangled names whose parts are the same: the [abi:cxx11] tag that one has and the
// other not (the partial demangler's base name omits it), as a kAbiTag difference; else nullopt.
std::optional<Difference> AbiTagChange(absl::string_view from, absl::string_view to);

// Version-name helpers: "GLIBCXX_" for "GLIBCXX_3.4.32"; numeric-aware ordering; the newest
// definition of `wanted`'s family; what a too-new requirement usually means.
absl::string_view VersionFamily(absl::string_view version);
int CompareVersionNames(absl::string_view a, absl::string_view b);
std::string NewestInFamily(const std::vector<VersionDef>& defs, absl::string_view wanted);
// "2.6" for libc10.so.2.6 (and libtorch_cpu.so.2.14.1 -> "2.14"): the torch release a versioned
// torch soname names; "" for anything else.
std::string TorchReleaseOfSoname(absl::string_view soname);
// What a missing version means, from the library's own definitions: the module needs a newer
// library, an older one, another build, or another library altogether.
std::string VersionHint(const std::vector<VersionDef>& defs, absl::string_view wanted,
                        absl::string_view library);
std::string VersionMeaning(absl::string_view version, absl::string_view library);

}  // namespace abicheck

#endif  // ABICHECK_LIB_DIAGNOSE_DIAGNOSE_H_
