// `abicheck [check] MODULE PROVIDER...`: the headline command.
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "absl/strings/str_split.h"
#include "lib/report/text_util.h"
#include "tools/abicheck/commands.h"
#include "tools/abicheck/progress.h"

namespace abicheck::cli {

int RunCheck(const std::string& prog, std::vector<std::string> args) {
  CLI::App app{
      "Predicts whether dlopen(MODULE, RTLD_NOW) succeeds after the PROVIDER libraries were "
      "loaded (as `import torch` loads torch's libraries), and explains every failure.",
      prog + " check"};
  std::vector<std::string> positional, against, extra_providers;
  CheckOptions options;
  OutputOptions out;
  bool no_host = false, host_only = false;
  std::vector<std::string> library_path;
  app.add_option(
         "MODULE PROVIDER...", positional,
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
  app.add_flag("--all", all,
               "list every problem of a cause (by default a cause shows three and how many more)");
  bool fast = false;
  bool verify = false;
  app.add_flag("--fast", fast,
               "read wheel members only where their loader tables are (a large member's end is "
               "decoded from the end of its deflate stream), without checking their CRC-32 (the "
               "report's notes say so)");
  app.add_flag("--verify", verify,
               "read wheels given as URLs (and pip: builds) whole and check every shared "
               "object's CRC-32; by default only the bytes the loader needs are fetched, as --fast "
               "reads a file (the notes say so); it overrides --fast");
  out.AddTo(app, {"text", "json", "sarif", "junit"});
  app.footer(
      "exit codes: 0 loads (and, with --gpu/--cuda-driver, can run), 1 will not load or run, 2 "
      "usage error, 3 unreadable or invalid input, 4 cannot tell: nothing fails, but a verdict "
      "rests on a library that was not given");
  AddLimitOptions(app, &limits);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return ParseErrorExit(app, e, prog);
  }
  if (!DeviceOptionsValid(prog, options.gpu, options.cuda_driver)) return kExitUsage;
  auto usage = [&](const std::string& what) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), what.c_str());
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
    if (OutputIsAnInput(prog, out.output, inputs)) return kExitUsage;
  }
  for (const std::string& d : library_path) {
    for (absl::string_view part : absl::StrSplit(d, ':')) options.library_path.emplace_back(part);
  }
  options.use_host = !no_host;
  AddEnvironmentLibraryPath(ignore_env, &options);
  options.diagnose = !no_diagnose;
  if (!against.empty()) {
    options.providers = extra_providers;
    ProgressBar bar(out.quiet);
    limits.progress = bar.Callback();
    limits.verify_crc = !fast || verify;
    limits.verify_remote = verify;
    absl::StatusOr<Matrix> m = CheckMatrix(positional, against, options, limits);
    bar.Finish();
    if (!m.ok()) {
      return FailWith(prog, m.status(), out);
    }
    if (!EmitResult(prog, *m, out, all)) return kExitBadInput;
    bool any_fails = false, any_unknown = false;
    for (const MatrixCell& c : m->cells) {
      any_fails = any_fails || c.report.verdict() == Verdict::kFails;
      any_unknown = any_unknown || c.report.verdict() == Verdict::kUnknown;
    }
    return ExitCodeForVerdicts(any_fails, any_unknown);
  }
  const std::string module = positional.front();
  options.providers.assign(positional.begin() + 1, positional.end());
  options.providers.insert(options.providers.end(), extra_providers.begin(), extra_providers.end());
  if (options.providers.empty() && !host_only && options.preload.empty()) {
    std::fprintf(stderr,
                 "%s: no PROVIDER libraries given for %s: name the libraries it is loaded against "
                 "(e.g. torch/lib), or pass --host-only\n",
                 prog.c_str(), Printable(module).c_str());
    return kExitUsage;
  }
  limits.verify_crc = !fast || verify;
  limits.verify_remote = verify;
  options.release_at_exit = true;  // the process ends after the report
  absl::StatusOr<Report> report = Check(module, options, limits);  // --max-*, --fast: providers too
  if (!report.ok()) {
    return FailWith(prog, report.status(), out);
  }
  if (!EmitResult(prog, *report, out, all)) return kExitBadInput;
  return ExitCodeForVerdicts(report->verdict() == Verdict::kFails,
                             report->verdict() == Verdict::kUnknown);
}

}  // namespace abicheck::cli
