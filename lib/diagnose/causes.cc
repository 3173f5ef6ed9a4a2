// Causes: one explanation shared by several problems (one change repeated across an API, the
// symbols of a library that is missing).
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/diagnose/diagnose_internal.h"

namespace abicheck {

// One change repeated across an API (int -> long in one parameter of 57 functions; every CUDA
// runtime symbol under libcudart.so.13 instead of .12) is one cause with a count and examples, not
// 57 unrelated findings.
void GroupRepeatedChanges(Diagnosed* report) {
  std::vector<std::pair<PartChange, std::vector<DiagnosedFailure*>>> groups;
  for (DiagnosedFailure& p : report->problems) {
    if (p.kind != FailureKind::kUndefinedSymbol || p.candidates.empty() || !p.cause.empty())
      continue;
    const NearDefinition& c = p.candidates.front();
    if ((c.relation != NearRelation::kSignatureChanged &&
         c.relation != NearRelation::kVersionDiffers) ||
        c.differences.size() != 1)
      continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == c.differences.front(); });
    if (it == groups.end()) it = groups.insert(groups.end(), {c.differences.front(), {}});
    it->second.push_back(&p);
  }
  // A version named after a library that is missing (libcudart.so.12's symbols, versioned
  // libcudart.so.12): the misses follow from that one.
  absl::flat_hash_set<std::string> missing;
  for (const DiagnosedFailure& p : report->problems) {
    if (p.kind == FailureKind::kMissingLibrary) missing.insert(p.library);
  }
  int n = 0;
  for (auto& [change, members] : groups) {
    if (members.size() < kMinCauseMembers) continue;
    std::vector<std::string> examples;
    for (size_t i = 0; i < members.size() && i < 3; ++i) {
      FunctionParts f;
      examples.push_back(SplitFunction(members[i]->symbol, &f) && !f.base.empty()
                             ? absl::StrCat(f.context.empty() ? "" : f.context + "::", f.base)
                             : members[i]->demangled);
    }
    const bool version = change.kind == PartChange::Kind::kVersion;
    std::string summary = absl::StrCat(
        "one change, ", PartChangeText(change), ", in ", members.size(),
        version ? " symbols" : " functions", " (e.g. ", absl::StrJoin(examples, ", "),
        members.size() > 3 ? ", ..." : "", "): ",
        !version ? "the module was built against a build that declared them otherwise"
        : missing.contains(change.from)
            ? absl::StrCat("they come with ", change.from, ", which is not here (above); ",
                           "the libraries here define them under ", change.to)
            : absl::StrCat("the module was built against a library that defined them under ",
                           change.from));
    AddCause(absl::StrCat("same_change_", ++n), std::move(summary), members, report);
  }
}

// The undefined symbols whose version the referring object needs from a library that is missing
// (torchcodec's av_* @ LIBAVUTIL_60, from libavutil.so.60): by (object path, version), that file.
MissingVersionFiles VersionsOfMissingLibraries(const Loader& loader, const Diagnosed& report) {
  MissingVersionFiles out;
  for (const DiagnosedFailure& m : report.problems) {
    if (m.kind != FailureKind::kMissingLibrary) continue;
    for (const Object* o : loader.loaded()) {
      if (o->path != m.object) continue;
      for (const VersionNeed& need : o->syms->version_needs()) {
        if (need.file != m.library) continue;
        for (const VersionNeedAux& v : need.aux) out[{m.object, std::string(v.name)}] = m.library;
      }
      break;
    }
  }
  return out;
}

// Three or more such symbols are one cause: they follow from the missing libraries, listed first.
void GroupSymbolsOfMissingLibraries(const MissingVersionFiles& files, Diagnosed* report) {
  std::vector<DiagnosedFailure*> members;
  std::vector<std::string> libraries;
  for (DiagnosedFailure& p : report->problems) {
    if (p.kind != FailureKind::kUndefinedSymbol || !p.candidates.empty() || !p.cause.empty())
      continue;
    auto it = files.find({p.object, p.version});
    if (it == files.end()) continue;
    members.push_back(&p);
    if (std::find(libraries.begin(), libraries.end(), it->second) == libraries.end())
      libraries.push_back(it->second);
  }
  if (members.size() < kMinCauseMembers) return;
  std::string summary =
      absl::StrCat("symbols versioned by ", absl::StrJoin(libraries, ", "),
                   libraries.size() == 1 ? ", which is" : ", which are", " not here (above), e.g. ",
                   CauseExamples(members), ": they fail because ",
                   libraries.size() == 1 ? "it is" : "those are", " missing");
  AddCause("symbols_of_missing_libraries", std::move(summary), members, report);
}

}  // namespace abicheck
