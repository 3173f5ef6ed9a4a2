// `abicheck diff OLD NEW`: exports removed, changed and added between two builds or libraries.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "lib/cli/commands.h"

namespace abicheck::cli {
namespace {

// --filter: the exports none of `patterns` finds in their names are dropped, and then the
// libraries left with nothing to say.
void KeepMatching(const std::vector<std::regex>& patterns, AbiDiff& diff) {
  auto matches = [&](const ExportChange& c) {
    for (const std::regex& p : patterns) {
      for (const std::string* s : {&c.demangled, &c.symbol, &c.new_demangled, &c.new_symbol}) {
        if (!s->empty() && std::regex_search(*s, p)) return true;
      }
    }
    return false;
  };
  for (LibraryDiff& l : diff.libraries) {
    for (auto* list : {&l.removed, &l.changed, &l.added}) {
      list->erase(std::remove_if(list->begin(), list->end(),
                                 [&](const ExportChange& c) { return !matches(c); }),
                  list->end());
    }
  }
  std::erase_if(diff.libraries, [](const LibraryDiff& l) {
    return l.removed.empty() && l.changed.empty() && l.added.empty() && l.new_soname.empty() &&
           l.versions_removed.empty() && l.versions_added.empty() && l.needed_removed.empty() &&
           l.needed_added.empty();
  });
}

}  // namespace

int RunDiff(const Invocation& io, std::vector<std::string> args) {
  CLI::App app{
      "Lists the exported symbols removed, changed (same C++ name, another signature) and added "
      "between two builds (wheels, directories, Python environments: the torch installed there) "
      "or two libraries, demangled, by library.",
      io.prog + " diff"};
  std::string old_build, new_build;
  OutputOptions out;
  out.terminal = io.out;
  app.add_option(
         "OLD", old_build,
         "the old build: a wheel, a directory, a Python environment (its torch) or a library")
      ->required();
  app.add_option("NEW", new_build, "the new build")->required();
  std::vector<std::string> filters;
  bool all = false;
  app.add_option("--filter", filters,
                 "only the exports whose name (demangled or mangled) matches this regular "
                 "expression (ECMAScript, searched: 'c10::cuda', '^at::_ops'); repeat for any of "
                 "several. Scopes the exit code too; soname, version and DT_NEEDED changes stay");
  app.add_flag("--summary", out.summary,
               "text: the totals, the table of libraries and the changed signatures only");
  app.add_flag("--all", all,
               "text: list the instances of standard-library templates (std::_Hashtable<...>, "
               "typeinfo for std::vector<...>) one by one instead of one line per library");
  out.AddTo(app, {"text", "json"});
  app.footer(
      "exit codes: 0 nothing removed or changed, 1 exports removed or changed (breaking), 2 usage "
      "error, "
      "3 unreadable or invalid input");
  InputLimits limits;
  AddLimitOptions(app, &limits);
  if (std::optional<int> done = Parse(io, app, std::move(args))) return *done;
  if (OutputIsAnInput(io, out.output, {old_build, new_build})) return kExitUsage;
  std::vector<std::regex> patterns;
  for (const std::string& f : filters) {
    try {
      patterns.emplace_back(f, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      std::fprintf(io.err, "%s: --filter '%s': not a regular expression: %s\n", io.prog.c_str(),
                   f.c_str(), e.what());
      return kExitUsage;
    }
  }
  absl::StatusOr<AbiDiff> d = DiffBuilds(old_build, new_build, limits);
  if (!d.ok()) {
    PrintError(io, d.status());
    return ExitCodeForStatus(d.status());
  }
  if (!patterns.empty()) KeepMatching(patterns, *d);
  if (!EmitResult(io, *d, out, all)) return kExitBadInput;
  return d->breaking() ? kExitWillNotLoad : kExitLoads;
}

}  // namespace abicheck::cli
