// For each problem, the nearest thing that does exist and what differs (docs/loader-model.md §E: a
// demangled answer beats a list of mangled names).
#ifndef ABICHECK_LIB_DIAGNOSE_DIAGNOSE_H_
#define ABICHECK_LIB_DIAGNOSE_DIAGNOSE_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "lib/demangle/demangle.h"
#include "lib/diagnose/diagnosis.h"
#include "lib/resolve/loader.h"

namespace abicheck {

// The hint of an undefined symbol the diagnosis knows nothing more of.
inline constexpr absl::string_view kNotExportedHint =
    "no library in the load exports this name, under any version";

// A cause explains this many problems or more (fewer are each explained on their own).
inline constexpr size_t kMinCauseMembers = 3;
// A cause's examples: the first three members' demangled names, ", ..." when there are more.
// Templates over the failure and report types: the diagnosis's own (DiagnosedFailure, Diagnosed)
// and the public ones api/ groups across an environment's modules (Problem, Report).
template <typename Failure>
std::string CauseExamples(const std::vector<Failure*>& members) {
  std::vector<absl::string_view> names;
  for (size_t i = 0; i < members.size() && i < 3; ++i) names.push_back(members[i]->demangled);
  return absl::StrCat(absl::StrJoin(names, ", "), members.size() > 3 ? ", ..." : "");
}
// One cause of `report` for `members`, each marked as explained by it.
template <typename Failure, typename Findings>
void AddCause(std::string id, std::string summary, const std::vector<Failure*>& members,
              Findings* report) {
  for (Failure* p : members) p->cause = id;
  report->causes.push_back({std::move(id), std::move(summary), static_cast<int>(members.size())});
}

// Fills DiagnosedFailure::candidates and DiagnosedFailure::hint for the problems of `report`.
void DiagnoseProblems(const Loader& loader, const std::vector<const Object*>& scope,
                      Diagnosed* report);

// Starts making, on another thread, what diagnosing checks that load these tables needs — their
// exported names by base name, their std::string ABI markers — into `cache`, whose Memo() waits
// for each table's where DiagnoseProblems first asks for it. For a call that will check many
// modules against the same large libraries (an environment's torch): the verdicts are made on
// this thread meanwhile. Does nothing on a machine with one core.
void PrepareDiagnosis(const std::vector<const SymbolTable*>& tables, ParseCache* cache);

// "parameter 4: int → unsigned int", ... between two split C++ functions (empty when equal).
std::vector<PartChange> DescribeDifferences(const FunctionParts& wanted,
                                            const FunctionParts& found);
// Between two demangled names whose parts are the same: the [abi:cxx11] tag that one has and the
// other not (the partial demangler's base name omits it), as a kAbiTag difference; else nullopt.
std::optional<PartChange> AbiTagChange(absl::string_view from, absl::string_view to);

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
