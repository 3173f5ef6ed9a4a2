// `abicheck [check] MODULE PROVIDER...`: the headline command.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "absl/strings/str_split.h"
#include "lib/cli/commands.h"
#include "lib/cli/progress.h"
#include "lib/inputs/pip.h"
#include "lib/io/byte_source.h"
#include "lib/report/text_util.h"

namespace abicheck::cli {
namespace {

// check --against: module inputs x builds.
int RunMatrix(const Invocation& io, const std::vector<std::string>& modules,
              const std::vector<std::string>& against, const CheckOptions& options,
              InputLimits limits, const ReadOptions& read, const OutputOptions& out, bool all) {
  ProgressBar bar(io.err, io.progress, out.quiet);
  limits.progress = bar.Callback();
  limits.input_progress = bar.InputCallback();
  read.Apply(&limits);
  absl::StatusOr<Matrix> m = CheckMatrix(modules, against, options, limits);
  bar.Finish();
  if (!m.ok()) return FailWith(io, m.status(), out);
  if (!EmitResult(io, *m, out, all)) return kExitBadInput;
  bool any_fails = false, any_unknown = false;
  for (const MatrixCell& c : m->cells) {
    any_fails = any_fails || c.report.verdict() == Verdict::kFails;
    any_unknown = any_unknown || c.report.verdict() == Verdict::kUnknown;
  }
  return ExitCodeForVerdicts(any_fails, any_unknown);
}

// A module input that holds several modules: a wheel (a file or a URL), a directory, pip:REQ.
bool HoldsSeveralModules(const std::string& input) {
  if (IsPipInput(input)) return true;
  // "URL!member" (or "x.whl!member") names one module of the archive.
  if (IsUrl(input)) return input.find('!') == std::string::npos;
  std::error_code ec;
  if (std::filesystem::is_directory(input, ec)) return true;
  std::ifstream f(input, std::ios::binary);
  char magic[4] = {};
  return f.read(magic, sizeof(magic)) && std::memcmp(magic, "PK\x03\x04", 4) == 0;
}

}  // namespace

// Long: the option table, in the order --help lists it, then the checks between options.
int RunCheck(const Invocation& io, std::vector<std::string> args) {
  CLI::App app{
      "Predicts whether dlopen(MODULE, RTLD_NOW) succeeds after the PROVIDER libraries were "
      "loaded (as `import torch` loads torch's libraries), and explains every failure.",
      io.prog + " check"};
  std::vector<std::string> positional, against, extra_providers;
  CheckOptions options;
  OutputOptions out;
  out.terminal = io.out;
  bool no_host = false, host_only = false;
  std::vector<std::string> library_path;
  app.add_option(
         "MODULE PROVIDER", positional,
         "the extension module (.so) to check, then the libraries already loaded when it is "
         "imported "
         "(files, directories such as torch/lib, or wheels); DT_NEEDED names match their "
         "DT_SONAME. "
         "With --against, every argument is a module input: .so files, directories or wheels")
      ->required();
  app.add_option("--against", against,
                 "a torch build (wheel, installed torch/lib directory, index, or file) to check "
                 "against, or a Python environment (its installed torch); repeat for a "
                 "compatibility matrix, one column per build");
  InputLimits limits;
  AddIndexOptions(app, &options, &limits);
  app.add_option("-p,--provider", extra_providers,
                 "with --against: a library loaded in every column");
  app.add_option("--preload", options.preload,
                 "an object in the global scope (LD_PRELOAD, RTLD_GLOBAL)");
  app.add_option("--python", options.python,
                 "the Python interpreter (executable or libpython) that provides Py* symbols");
  app.add_option("-L,--library-path", library_path,
                 "a directory searched like LD_LIBRARY_PATH (':' separates several)");
  bool ignore_env = false;
  AddLoaderOptions(app, &options, &ignore_env);
  app.add_flag("--no-host", no_host, "do not search the host's ld.so.cache and system directories");
  app.add_flag("--host-only", host_only, "check against the host's libraries alone (no PROVIDER)");
  bool no_diagnose = false;
  app.add_flag("--no-diagnose", no_diagnose,
               "verdict and ld.so's messages only: no nearest candidates or causes (fastest)");
  AddDeviceOptions(app, &options.gpu, &options.cuda_driver);
  bool all = false;
  AddDetailOptions(app, &all, &out.summary);
  ReadOptions read;
  read.AddTo(app);
  out.AddTo(app, {"text", "json", "sarif", "junit"});
  app.footer(
      "exit codes: 0 loads (and, with --gpu/--cuda-driver, can run), 1 will not load or run, 2 "
      "usage error, 3 unreadable or invalid input, 4 cannot tell: nothing fails, but a verdict "
      "rests on a library that was not given");
  AddLimitOptions(app, &limits);
  if (std::optional<int> done = Parse(io, app, std::move(args))) return *done;
  if (!DeviceOptionsValid(io, options.gpu, options.cuda_driver)) return kExitUsage;
  auto usage = [&](const std::string& what) {
    std::fprintf(io.err, "%s: %s\n", io.prog.c_str(), what.c_str());
    return kExitUsage;
  };
  if (!extra_providers.empty() && against.empty())
    return usage(
        "-p/--provider adds a library to every --against column; without --against, "
        "name the providers after the module");
  if (host_only && (positional.size() > 1 || !extra_providers.empty() || !against.empty()))
    return usage(
        "--host-only checks against the host's libraries alone: it cannot be combined "
        "with PROVIDER arguments, -p or --against");
  {
    std::vector<std::string> inputs = positional;
    for (const auto* v : {&against, &extra_providers, &options.preload})
      inputs.insert(inputs.end(), v->begin(), v->end());
    if (OutputIsAnInput(io, out.output, inputs)) return kExitUsage;
  }
  for (const std::string& d : library_path) {
    for (absl::string_view part : absl::StrSplit(d, ':')) options.library_path.emplace_back(part);
  }
  options.use_host = !no_host;
  AddEnvironmentLibraryPath(ignore_env, &options);
  options.diagnose = !no_diagnose;
  if (!against.empty()) {
    options.providers = extra_providers;
    return RunMatrix(io, positional, against, options, limits, read, out, all);
  }
  const std::string module = positional.front();
  options.providers.assign(positional.begin() + 1, positional.end());
  options.providers.insert(options.providers.end(), extra_providers.begin(), extra_providers.end());
  const bool several = HoldsSeveralModules(module);
  if (options.providers.empty() && !host_only && options.preload.empty()) {
    std::fprintf(io.err,
                 "%s: no PROVIDER libraries given for %s: name the libraries it is loaded against "
                 "(e.g. torch/lib), or pass --host-only\n",
                 io.prog.c_str(), Printable(module).c_str());
    return kExitUsage;
  }
  // Every module of a wheel, a directory or pip:REQ against the host alone or the providers named
  // after it: a matrix of one column (issue 54 item 16: pip: was read as a file's path).
  if (several) return RunMatrix(io, {module}, {}, options, limits, read, out, all);
  read.Apply(&limits);
  options.release_at_exit = io.process_exits;
  absl::StatusOr<Report> report = Check(module, options, limits);  // --max-*, --fast: providers too
  if (!report.ok()) {
    return FailWith(io, report.status(), out);
  }
  if (!EmitResult(io, *report, out, all)) return kExitBadInput;
  return ExitCodeForVerdicts(report->verdict() == Verdict::kFails,
                             report->verdict() == Verdict::kUnknown);
}

}  // namespace abicheck::cli
