// `abicheck diff OLD NEW`: exports removed, changed and added between two builds or libraries.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "lib/cli/commands.h"

namespace abicheck::cli {

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
  out.AddTo(app, {"text", "json"});
  app.footer(
      "exit codes: 0 nothing removed or changed, 1 exports removed or changed (breaking), 2 usage "
      "error, "
      "3 unreadable or invalid input");
  InputLimits limits;
  AddLimitOptions(app, &limits);
  if (std::optional<int> done = Parse(io, app, std::move(args))) return *done;
  if (OutputIsAnInput(io, out.output, {old_build, new_build})) return kExitUsage;
  absl::StatusOr<AbiDiff> d = DiffBuilds(old_build, new_build, limits);
  if (!d.ok()) {
    PrintError(io, d.status());
    return ExitCodeForStatus(d.status());
  }
  if (!EmitResult(io, *d, out)) return kExitBadInput;
  return d->breaking() ? kExitWillNotLoad : kExitLoads;
}

}  // namespace abicheck::cli
