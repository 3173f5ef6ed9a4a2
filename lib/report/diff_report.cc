// abicheck diff's text and JSON.
#include <string>

#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/report/json_report.h"
#include "lib/report/render.h"
#include "lib/report/text_util.h"
#include "lib/results/results.h"

namespace abicheck {

std::string RenderDiffText(const AbiDiff& diff, bool color) {
  auto red = [&](const std::string& s) {
    return color ? absl::StrCat("\x1b[31m", s, "\x1b[0m") : s;
  };
  auto green = [&](const std::string& s) {
    return color ? absl::StrCat("\x1b[32m", s, "\x1b[0m") : s;
  };
  std::string out;
  size_t removed = 0, added = 0, changed = 0;
  for (const LibraryDiff& l : diff.libraries) {
    removed += l.removed.size();
    added += l.added.size();
    changed += l.changed.size();
  }
  size_t sonames = 0;
  for (const LibraryDiff& l : diff.libraries) sonames += !l.new_soname.empty();
  absl::StrAppendFormat(
      &out, "%s -> %s: %s%d removed, %d changed, %d added%s\n", Printable(diff.old_build),
      Printable(diff.new_build),
      sonames ? absl::StrCat(sonames, sonames == 1 ? " soname" : " sonames", " changed, ") : "",
      removed, changed, added,
      diff.breaking() ? " (breaking: modules built against the old build may not load)" : "");
  for (const LibraryDiff& l : diff.libraries) {
    absl::StrAppend(&out, "\n", Printable(l.old_library.empty() ? "(none)" : l.old_library), " -> ",
                    Printable(l.new_library.empty() ? "(none)" : l.new_library), "\n");
    if (!l.new_soname.empty()) {
      absl::StrAppend(&out, "  ", red("soname"), ":  ", Printable(l.old_soname), " -> ",
                      Printable(l.new_soname), " (every module naming ", Printable(l.old_soname),
                      " in DT_NEEDED fails first with \"cannot open shared object file\")\n");
    }
    for (const std::string& v : l.versions_removed)
      absl::StrAppend(&out, "  ", red("version removed"), ": ", Printable(v), "\n");
    for (const std::string& n : l.needed_added)
      absl::StrAppend(&out, "  ", red("needs now"), ": ", Printable(n), "\n");
    for (const std::string& v : l.versions_added)
      absl::StrAppend(&out, "  ", green("version added"), ": ", Printable(v), "\n");
    for (const std::string& n : l.needed_removed)
      absl::StrAppend(&out, "  ", green("no longer needs"), ": ", Printable(n), "\n");
    // Names that demangle alike (a constructor's C1 and C2 symbols, two versions of one name)
    // are told apart by their mangled symbol.
    absl::flat_hash_map<std::string, int> seen;
    for (const auto* list : {&l.changed, &l.removed, &l.added}) {
      for (const ExportChange& c : *list) {
        ++seen[c.demangled];
        if (!c.new_demangled.empty() && c.new_demangled != c.demangled) ++seen[c.new_demangled];
      }
    }
    auto name = [&](const std::string& demangled, const std::string& symbol) {
      auto it = seen.find(demangled);
      return it != seen.end() && it->second > 1 && demangled != symbol
                 ? absl::StrCat(Printable(demangled), "  [", Printable(symbol), "]")
                 : Printable(demangled);
    };
    for (const ExportChange& c : l.changed) {
      absl::StrAppend(&out, "  ", red("changed"), ": ", name(c.demangled, c.symbol),
                      "\n       now: ", name(c.new_demangled, c.new_symbol), "\n");
      for (const Difference& d : c.differences)
        absl::StrAppend(&out, "            ", Printable(DifferenceText(d)), "\n");
    }
    for (const ExportChange& c : l.removed)
      absl::StrAppend(&out, "  ", red("removed"), ": ", name(c.demangled, c.symbol), "\n");
    for (const ExportChange& c : l.added)
      absl::StrAppend(&out, "  ", green("added"), ":   ", name(c.demangled, c.symbol), "\n");
  }
  return out;
}

std::string RenderDiffJson(const AbiDiff& diff) {
  using J = nlohmann::ordered_json;
  auto changes = [](const std::vector<ExportChange>& v) {
    J a = J::array();
    for (const ExportChange& c : v) {
      J e = {{"symbol", c.symbol}, {"demangled", c.demangled}};
      if (!c.new_symbol.empty()) {
        e["new_symbol"] = c.new_symbol;
        e["new_demangled"] = c.new_demangled;
        e["differences"] = DifferenceTexts(c.differences);
      }
      a.push_back(std::move(e));
    }
    return a;
  };
  J j;
  j["schema_version"] = kJsonSchemaVersion;
  j["old_build"] = diff.old_build;
  j["new_build"] = diff.new_build;
  j["breaking"] = diff.breaking();
  J libs = J::array();
  for (const LibraryDiff& l : diff.libraries) {
    J lib = {{"old_library", l.old_library},       {"new_library", l.new_library},
             {"removed", changes(l.removed)},      {"changed", changes(l.changed)},
             {"added", changes(l.added)},          {"versions_removed", l.versions_removed},
             {"versions_added", l.versions_added}, {"needed_removed", l.needed_removed},
             {"needed_added", l.needed_added}};
    if (!l.new_soname.empty()) lib["soname"] = {{"old", l.old_soname}, {"new", l.new_soname}};
    libs.push_back(std::move(lib));
  }
  j["libraries"] = std::move(libs);
  return DumpJson(j);
}

}  // namespace abicheck
