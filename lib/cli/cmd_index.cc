// `abicheck index BUILD... -o FILE`: what each build exports, in one memory-mapped file.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "absl/strings/str_format.h"
#include "lib/cli/commands.h"
#include "lib/cli/progress.h"

namespace abicheck::cli {

int RunIndex(const Invocation& io, std::vector<std::string> args) {
  CLI::App app{
      "Writes an index of what each BUILD (a torch wheel, an installed torch/lib directory, "
      "libraries, "
      "or other indexes) exports — the libraries' own dynamic tables, stored once — for `check "
      "--against` "
      "to load in milliseconds.",
      io.prog + " index"};
  std::vector<std::string> builds, names;
  std::string output;
  bool quiet = false;
  app.add_option("BUILD", builds, "the builds to index")->required();
  app.add_option("-o,--output", output, "the index file to write")->required();
  app.add_option("--name", names, "a name per BUILD (default: its file name without .whl)");
  app.add_flag("-q,--quiet", quiet, "print no summary");
  app.footer(
      "exit codes: 0 written, 2 usage error, 3 unreadable or invalid input (or the file cannot be "
      "written)");
  InputLimits limits;
  AddLimitOptions(app, &limits);
  if (std::optional<int> done = Parse(io, app, std::move(args))) return *done;
  if (OutputIsAnInput(io, output, builds)) return kExitUsage;
  ProgressBar bar(io.err, io.progress, quiet);
  limits.progress = bar.Callback();
  absl::StatusOr<IndexSummary> summary = BuildIndex(builds, names, output, limits);
  bar.Finish();
  if (!summary.ok()) {
    PrintError(io, summary.status());
    return ExitCodeForStatus(summary.status());
  }
  if (!quiet) {
    std::fputs(absl::StrFormat("%s: %d builds, %d libraries, %d distinct names, %.1f MB\n",
                               summary->path, summary->builds.size(), summary->libraries,
                               summary->names, static_cast<double>(summary->file_bytes) / 1048576.0)
                   .c_str(),
               io.out);
  }
  return 0;
}

}  // namespace abicheck::cli
