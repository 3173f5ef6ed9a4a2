// The subcommands of abicheck (docs/API.md "Commands"): the command line's table, each a thin
// layer over the C++ API. The abicheck program runs them on its stdout and stderr; the C API's
// abicheck_run on memory streams, so both give the same bytes.
#ifndef ABICHECK_LIB_CLI_COMMANDS_H_
#define ABICHECK_LIB_CLI_COMMANDS_H_

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "absl/status/status.h"

namespace abicheck::cli {

// Where a command writes and what it calls itself in messages ("abicheck: ...").
struct Invocation {
  std::string prog = "abicheck";
  FILE* out = stdout;
  FILE* err = stderr;
  // The process ends after the command (the program, not a library's host): what a check read
  // may be left for the exit to release (CheckOptions::release_at_exit).
  bool process_exits = false;
  // Progress lines on `err` for reads that take seconds (the program's; a library's host gets
  // only what the command says, so its output does not depend on timing).
  bool progress = false;
};

// `abicheck ARGS...`: the command ARGS[0] names (or `check`, the headline form) on `io`; returns
// the exit code. What the abicheck program's main and the C API's abicheck_run call.
int Main(const Invocation& io, std::vector<std::string> args);

// Each takes the arguments after the subcommand name and returns the process exit code.
int RunCheck(const Invocation& io, std::vector<std::string> args);
int RunSymbols(const Invocation& io, std::vector<std::string> args);
int RunDiff(const Invocation& io, std::vector<std::string> args);
int RunIndex(const Invocation& io, std::vector<std::string> args);
int RunEnv(const Invocation& io, std::vector<std::string> args);
int RunGpu(const Invocation& io, std::vector<std::string> args);
int RunCache(const Invocation& io, std::vector<std::string> args);

// True when colour should be used on `out`: a terminal, and NO_COLOR unset.
bool UseColor(const std::string& mode, FILE* out);

// The options every reporting subcommand takes, and how its report leaves the process.
struct OutputOptions {
  std::string format = "text";
  std::string output;  // a file, or stdout
  std::string color = "auto";
  bool quiet = false;
  bool summary = false;  // check --against, env, diff: --summary (text)
  // Adds --format (from `formats`), -o/--output, -q/--quiet and --color to `app`.
  void AddTo(CLI::App& app, const std::vector<std::string>& formats);
  FILE* terminal = stdout;  // where a report goes without -o (Invocation::out)
  bool color_on() const { return output.empty() && UseColor(color, terminal); }
  // What Render() is asked for: --format, colors, and `all` (check --all).
  RenderOptions render(bool all = false) const;
};
// Render(result, out.render(all)) written where -o says (or stdout): false, with the error said,
// when it could not be rendered or written.
template <typename Result>
bool EmitResult(const Invocation& io, const Result& result, const OutputOptions& out,
                bool all = false);
// --fast and --verify: how much of a wheel is read (check and env).
struct ReadOptions {
  bool fast = false;
  bool verify = false;
  void AddTo(CLI::App& app);
  void Apply(InputLimits* limits) const {
    limits->verify_crc = !fast || verify;
    limits->verify_remote = verify;
  }
};
// --all (every problem of a cause) and --summary (one line per failing object), for check and env.
void AddDetailOptions(CLI::App& app, bool* all, bool* summary);
// --gpu and --cuda-driver (docs/gpu-model.md) into `options`, for check and env.
void AddDeviceOptions(CLI::App& app, std::string* gpu, std::string* cuda_driver);
// --sysroot (must exist), --ignore-env and --glibc (MAJOR.MINOR), for check and env.
void AddLoaderOptions(CLI::App& app, CheckOptions* options, bool* ignore_env);
// --find-links, --index-url, --extra-index-url: where wheels and `pip:REQ` inputs come from;
// --offline: only from abicheck's cache.
void AddIndexOptions(CLI::App& app, CheckOptions* options, InputLimits* limits);
// Parses `args` (the words after the command) into `app`: nullopt to go on, or the exit code
// when parsing ended the command (--help: 0; an error, said as ParseErrorExit says it: 2).
std::optional<int> Parse(const Invocation& io, CLI::App& app, std::vector<std::string> args);
// A command-line parse error, in our words: "abicheck: --gpu: ..." and where to read the usage
// (exit 2); --help and --version print and return 0.
int ParseErrorExit(const Invocation& io, const CLI::App& app, const CLI::ParseError& e);
// LD_LIBRARY_PATH from the environment, searched after -L as the loader would search it (unless
// `ignore`), with a note in every report that says so.
void AddEnvironmentLibraryPath(bool ignore, CheckOptions* options);
// "unknown GPU 'X' (give ...; `abicheck gpu --list` lists them)".
std::string UnknownGpuMessage(const std::string& gpu);
// A usage error (message, false) when --gpu or --cuda-driver names nothing known.
bool DeviceOptionsValid(const Invocation& io, const std::string& gpu,
                        const std::string& cuda_driver);

// Levenshtein distance: how far a mistyped command or option is from a real one.
size_t EditDistance(const std::string& a, const std::string& b);

// "abicheck: MESSAGE" on stderr, its control bytes escaped as the reports escape them (a file
// name may hold any byte).
void PrintError(const Invocation& io, const absl::Status& status);

// PrintError, and with --format sarif|junit -o FILE, a valid FILE that records the error (so a CI
// upload step shows it); returns the exit code for `status`.
int FailWith(const Invocation& io, const absl::Status& status, const OutputOptions& out);

// --max-member-size, --max-total-size, --max-members, --max-files, --max-depth (docs/limits.md).
void AddLimitOptions(CLI::App& app, abicheck::InputLimits* limits);

// A usage error (message, true) when `output` is one of `inputs` — the same file, by device and
// inode, through any name or link — or lies inside an input directory: writing it would destroy
// what is being read.
bool OutputIsAnInput(const Invocation& io, const std::string& output,
                     const std::vector<std::string>& inputs);

// Writes `text` where `out` says; returns false (after a message naming the file) on failure.
bool Emit(const Invocation& io, const std::string& text, const OutputOptions& out);

}  // namespace abicheck::cli

#endif  // ABICHECK_LIB_CLI_COMMANDS_H_
