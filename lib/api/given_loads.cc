// GivenLoads: a module's verdict against a build rests on the build's own libraries loading
// (docs/loader-model.md E2a).

#include "lib/api/given_loads.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "lib/api/findings.h"
#include "lib/resolve/world.h"
#include "lib/util/status_macros.h"

namespace abicheck {

GivenLoads::GivenLoads(Inputs inputs, const CheckOptions& options, ParseCache* parses)
    : in_(inputs), options_(options), parses_(parses) {}

absl::Status GivenLoads::LoadTheGivenLibraries() {
  loaded_ = true;
  // The loader is the first given library's that it would run (another machine's are not loaded).
  std::optional<ElfFile> probe;
  for (const std::vector<InputFile>* list : {in_.preload, in_.providers}) {
    for (auto f = list->begin(); f != list->end() && !probe; ++f) {
      LoadFindings refused;
      absl::StatusOr<std::optional<ElfFile>> p = ProbeModule(*f, &refused);
      if (p.ok() && *p) probe = std::move(**p);
    }
  }
  if (!probe) return absl::OkStatus();
  ABICHECK_ASSIGN_OR_RETURN(World w, PrepareWorld(*probe, *in_.providers, *in_.preload, in_.python,
                                                  ToLoadOptions(options_), parses_, 0));
  ABICHECK_ASSIGN_OR_RETURN(std::vector<LoadFindings> loads, GivenOwnLoads(w));
  for (LoadFindings& f : loads) {
    Report failed = ToReport(std::move(f));
    for (Problem& p : failed.problems) {
      auto it = std::find_if(failing_.begin(), failing_.end(),
                             [&](const auto& e) { return e.first == p.object; });
      if (it == failing_.end()) it = failing_.insert(failing_.end(), {p.object, {}});
      p.first = it->second.empty();
      it->second.push_back(std::move(p));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<Warning>> GivenLoads::Apply(Report* r) {
  if (r->verdict() == Verdict::kFails) return std::nullopt;
  absl::flat_hash_set<absl::string_view> relied_on;  // the given libraries the load found
  for (const LoadedLibrary& l : r->libraries) {
    if (l.found_by == FoundBy::kProvider || l.found_by == FoundBy::kPreload)
      relied_on.insert(l.path);
  }
  if (relied_on.empty()) return std::nullopt;
  if (!loaded_) ABICHECK_RETURN_IF_ERROR(LoadTheGivenLibraries());
  for (const auto& [path, failures] : failing_) {
    if (!relied_on.contains(path)) continue;
    for (Problem& p : r->problems) p.first = false;
    r->problems.insert(r->problems.begin(), failures.begin(), failures.end());
    r->loads = false;
    return Warning{
        path, absl::StrCat("a library given as loaded cannot load itself (",
                           failures.front().message, "): nothing that needs it loads against it")};
  }
  return std::nullopt;
}

}  // namespace abicheck
