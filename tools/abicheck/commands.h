// The subcommands of the abicheck tool; each is a thin layer over the library.
#ifndef ABICHECK_TOOLS_ABICHECK_COMMANDS_H_
#define ABICHECK_TOOLS_ABICHECK_COMMANDS_H_

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "absl/status/status.h"

namespace abicheck::cli {

// Each takes the arguments after the subcommand name and returns the process exit code.
int RunCheck(const std::string& prog, std::vector<std::string> args);
int RunSymbols(const std::string& prog, std::vector<std::string> args);
int RunDiff(const std::string& prog, std::vector<std::string> args);
int RunIndex(const std::string& prog, std::vector<std::string> args);
int RunEnv(const std::string& prog, std::vector<std::string> args);
int RunGpu(const std::string& prog, std::vector<std::string> args);
int RunCache(const std::string& prog, std::vector<std::string> args);

// True when colour should be used on stdout: a terminal, and NO_COLOR unset.
bool UseColor(const std::string& mode);

// The options every reporting subcommand takes, and how its report leaves the process.
struct OutputOptions {
  std::string format = "text";
  std::string output;  // a file, or stdout
  std::string color = "auto";
  bool quiet = false;
  // Adds --format (from `formats`), -o/--output, -q/--quiet and --color to `app`.
  void AddTo(CLI::App& app, const std::vector<std::string>& formats);
  bool color_on() const { return output.empty() && UseColor(color); }
  // What Render() is asked for: --format, colors, and `all` (check --all).
  RenderOptions render(bool all = false) const;
};
// Render(result, out.render(all)) written where -o says (or stdout): false, with the error said,
// when it could not be rendered or written.
template <typename Result>
bool EmitResult(const std::string& prog, const Result& result, const OutputOptions& out,
                bool all = false);
// --gpu and --cuda-driver (docs/gpu-model.md) into `options`, for check and env.
void AddDeviceOptions(CLI::App& app, std::string* gpu, std::string* cuda_driver);
// --sysroot (must exist), --ignore-env and --glibc (MAJOR.MINOR), for check and env.
void AddLoaderOptions(CLI::App& app, CheckOptions* options, bool* ignore_env);
// --find-links, --index-url, --extra-index-url: where wheels and `pip:REQ` inputs come from;
// --offline: only from abicheck's cache.
void AddIndexOptions(CLI::App& app, CheckOptions* options, InputLimits* limits);
// A command-line parse error, in our words: "abicheck: --gpu: ..." and where to read the usage
// (exit 2); --help and --version print and return 0.
int ParseErrorExit(const CLI::App& app, const CLI::ParseError& e, const std::string& prog);
// LD_LIBRARY_PATH from the environment, searched after -L as the loader would search it (unless
// `ignore`), with a note in every report that says so.
void AddEnvironmentLibraryPath(bool ignore, CheckOptions* options);
// A usage error (message, false) when --gpu or --cuda-driver names nothing known.
bool DeviceOptionsValid(const std::string& prog, const std::string& gpu,
                        const std::string& cuda_driver);

// "abicheck: MESSAGE" on stderr, its control bytes escaped as the reports escape them (a file
// name may hold any byte).
void PrintError(const std::string& prog, const absl::Status& status);

// PrintError, and with --format sarif|junit -o FILE, a valid FILE that records the error (so a CI
// upload step shows it); returns the exit code for `status`.
int FailWith(const std::string& prog, const absl::Status& status, const OutputOptions& out);

// --max-member-size, --max-total-size, --max-members, --max-files, --max-depth (docs/limits.md).
void AddLimitOptions(CLI::App& app, abicheck::InputLimits* limits);

// A usage error (message, true) when `output` is one of `inputs` — the same file, by device and
// inode, through any name or link — or lies inside an input directory: writing it would destroy
// what is being read.
bool OutputIsAnInput(const std::string& prog, const std::string& output,
                     const std::vector<std::string>& inputs);

// Writes `text` where `out` says; returns false (after a message naming the file) on failure.
bool Emit(const std::string& prog, const std::string& text, const OutputOptions& out);

}  // namespace abicheck::cli

#endif  // ABICHECK_TOOLS_ABICHECK_COMMANDS_H_
