// abicheck diff's text and JSON.
#include <algorithm>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "lib/report/json_report.h"
#include "lib/report/render.h"
#include "lib/report/text_util.h"
#include "lib/results/results.h"

namespace abicheck {

std::string StdTemplateOf(absl::string_view name) {
  for (absl::string_view prefix : {"typeinfo for ", "typeinfo name for ", "vtable for ", "VTT for ",
                                   "construction vtable for ", "guard variable for ",
                                   "non-virtual thunk to ", "virtual thunk to "}) {
    if (absl::ConsumePrefix(&name, prefix)) break;
  }
  // A function template's demangled name starts with its return type: the entity's name begins
  // after the last space outside <> and () before its parameter list.
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(') {
      if (c == '(' && depth == 0) break;
      ++depth;
    } else if ((c == '>' || c == ')') && depth > 0) {
      --depth;
    } else if (c == ' ' && depth == 0) {
      start = i + 1;
    }
  }
  name.remove_prefix(start);
  if (!absl::StartsWith(name, "std::") && !absl::StartsWith(name, "__gnu_cxx::")) return "";
  const size_t open = name.find('<');
  if (open == absl::string_view::npos) return "";
  const absl::string_view head = name.substr(0, open);
  if (absl::EndsWith(head, "operator")) return "";  // std::operator<<, not a template's instance
  return std::string(head);
}

namespace {

// A library's label in the table: the path inside its build (after a wheel's '!'), once when the
// old and the new one have the same.
std::string LibraryLabel(const LibraryDiff& l) {
  auto inner = [](const std::string& p) -> std::string {
    if (p.empty()) return "(none)";
    const size_t bang = p.rfind('!');
    return Printable(bang == std::string::npos ? p : p.substr(bang + 1));
  };
  const std::string a = inner(l.old_library), b = inner(l.new_library);
  return a == b ? a : absl::StrCat(a, " -> ", b);
}

}  // namespace

// Long: the totals, the table, the changed signatures and each library's details are one text
// whose parts share the counts and the color helpers.
std::string RenderDiffText(const AbiDiff& diff, bool color, bool all, bool summary) {
  auto red = [&](const std::string& s) {
    return color ? absl::StrCat("\x1b[31m", s, "\x1b[0m") : s;
  };
  auto green = [&](const std::string& s) {
    return color ? absl::StrCat("\x1b[32m", s, "\x1b[0m") : s;
  };
  std::string out;
  size_t removed = 0, added = 0, changed = 0, sonames = 0;
  for (const LibraryDiff& l : diff.libraries) {
    removed += l.removed.size();
    added += l.added.size();
    changed += l.changed.size();
    sonames += !l.new_soname.empty();
  }
  absl::StrAppendFormat(
      &out, "%s -> %s: %s%d removed, %d changed, %d added%s\n", Printable(diff.old_build),
      Printable(diff.new_build),
      sonames ? absl::StrCat(sonames, sonames == 1 ? " soname" : " sonames", " changed, ") : "",
      removed, changed, added,
      diff.breaking() ? " (breaking: modules built against the old build may not load)" : "");
  if (diff.libraries.empty()) return out;
  // The table: one row per library, then the changed signatures (standard-library template
  // instances aside), the first 20 of them.
  absl::StrAppend(&out, "\n  removed  changed    added  library\n");
  std::vector<const ExportChange*> signatures;
  for (const LibraryDiff& l : diff.libraries) {
    absl::StrAppendFormat(&out, "  %7d  %7d  %7d  %s%s\n", l.removed.size(), l.changed.size(),
                          l.added.size(), LibraryLabel(l),
                          l.new_soname.empty()
                              ? ""
                              : absl::StrCat("  (soname ", Printable(l.old_soname), " -> ",
                                             Printable(l.new_soname), ")"));
    for (const ExportChange& c : l.changed) {
      if (StdTemplateOf(c.demangled).empty()) signatures.push_back(&c);
    }
  }
  constexpr size_t kSignatures = 20;
  if (!signatures.empty()) {
    absl::StrAppend(&out, "\nchanged signatures",
                    signatures.size() > kSignatures
                        ? absl::StrCat(" (", kSignatures, " of ", signatures.size(), ")")
                        : "",
                    ":\n");
    for (size_t i = 0; i < signatures.size() && i < kSignatures; ++i) {
      const ExportChange& c = *signatures[i];
      std::vector<std::string> what;
      for (const Difference& d : c.differences) what.push_back(DifferenceText(d));
      absl::StrAppend(&out, "  ", Printable(c.demangled), "\n      ",
                      Printable(absl::StrJoin(what, "; ")), "\n");
    }
  }
  if (summary) return out;
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
    // Standard-library template instances, counted per kind and by template, unless --all.
    size_t folded[3] = {0, 0, 0};
    std::vector<std::string> templates;
    auto fold = [&](const ExportChange& c, int kind) {
      if (all) return false;
      std::string t = StdTemplateOf(c.demangled);
      if (t.empty()) return false;
      ++folded[kind];
      if (std::find(templates.begin(), templates.end(), t) == templates.end())
        templates.push_back(std::move(t));
      return true;
    };
    for (const ExportChange& c : l.changed) {
      if (fold(c, 1)) continue;
      absl::StrAppend(&out, "  ", red("changed"), ": ", name(c.demangled, c.symbol),
                      "\n       now: ", name(c.new_demangled, c.new_symbol), "\n");
      for (const Difference& d : c.differences)
        absl::StrAppend(&out, "            ", Printable(DifferenceText(d)), "\n");
    }
    for (const ExportChange& c : l.removed) {
      if (!fold(c, 0))
        absl::StrAppend(&out, "  ", red("removed"), ": ", name(c.demangled, c.symbol), "\n");
    }
    for (const ExportChange& c : l.added) {
      if (!fold(c, 2))
        absl::StrAppend(&out, "  ", green("added"), ":   ", name(c.demangled, c.symbol), "\n");
    }
    if (!templates.empty()) {
      std::sort(templates.begin(), templates.end());
      const std::vector<std::string> shown(
          templates.begin(), templates.begin() + std::min<ptrdiff_t>(ssize(templates), 4));
      absl::StrAppend(&out, "  + standard-library template instances: ", folded[0], " removed, ",
                      folded[1], " changed, ", folded[2], " added (",
                      Printable(absl::StrJoin(shown, "<...>, ")), "<...>",
                      templates.size() > shown.size()
                          ? absl::StrCat(", ", templates.size() - shown.size(), " more")
                          : "",
                      "; --all lists them)\n");
    }
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
