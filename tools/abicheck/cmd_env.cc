// `abicheck env [PATH]`: which packages of an installed Python environment will not load with its
// torch (or with another build, --against), why, and which build to install instead.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "absl/strings/str_split.h"
#include "lib/report/text_util.h"
#include "tools/abicheck/commands.h"
#include "tools/abicheck/progress.h"

namespace abicheck::cli {

int RunEnv(const std::string& prog, std::vector<std::string> args) {
  CLI::App app{
      "Checks an installed Python environment without running it: models `import torch` from its "
      "files, then every shared object of every other package, and says which packages will not "
      "load and why.",
      prog + " env"};
  std::string path;
  std::vector<std::string> against, library_path;
  CheckOptions options;
  OutputOptions out;
  bool no_host = false, no_diagnose = false;
  app.add_option("PATH", path,
                 "a virtualenv, a prefix with lib/pythonX.Y/site-packages, a site-packages "
                 "directory, or a Python executable in one (default: $VIRTUAL_ENV)");
  app.add_option("--against", against,
                 "check with this torch build instead of the installed one (a torch wheel, a "
                 "torch directory, an index, or another environment's installed torch); repeat "
                 "to compare builds and get a recommendation");
  std::string suggest;
  CLI::Option* suggest_opt =
      app.add_option("--suggest", suggest,
                     "check against the published torch releases (read by HTTP range requests "
                     "through pip, as pip:torch...): REQ's ('torch>=2.8,<2.13'), by default those "
                     "the installed packages' own torch requirements allow, else from two minor "
                     "releases below the installed torch on; ends with the release to install and "
                     "the pip command")
          ->expected(0, 1);
  app.add_option("-L,--library-path", library_path,
                 "a directory searched like LD_LIBRARY_PATH (':' separates several), e.g. one "
                 "holding the driver's libcuda.so.1");
  bool ignore_env = false;
  AddLoaderOptions(app, &options, &ignore_env);
  InputLimits limits;
  AddIndexOptions(app, &options, &limits);
  app.add_flag("--no-host", no_host, "do not search the host's ld.so.cache and system directories");
  app.add_flag("--no-diagnose", no_diagnose,
               "verdict and ld.so's messages only: no nearest candidates or causes (fastest)");
  AddDeviceOptions(app, &options.gpu, &options.cuda_driver);
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
      "exit codes: 0 every package loads, 1 one will not load, 2 usage error, 3 unreadable "
      "or invalid input (no torch installed, ...), 4 cannot tell: none fails, but a verdict "
      "rests on a library that was not given");
  AddLimitOptions(app, &limits);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return ParseErrorExit(app, e, prog);
  }
  if (!DeviceOptionsValid(prog, options.gpu, options.cuda_driver)) return kExitUsage;
  {
    std::vector<std::string> all = against;
    all.push_back(path);
    if (OutputIsAnInput(prog, out.output, all)) return kExitUsage;
  }
  if (path.empty()) {
    const char* venv = std::getenv("VIRTUAL_ENV");
    if (venv == nullptr || *venv == '\0') {
      std::fprintf(stderr,
                   "%s: env: name an environment (no PATH given and VIRTUAL_ENV is unset)\n",
                   prog.c_str());
      return kExitUsage;
    }
    path = venv;
  }
  for (const std::string& d : library_path) {
    for (absl::string_view part : absl::StrSplit(d, ':')) options.library_path.emplace_back(part);
  }
  options.use_host = !no_host;
  AddEnvironmentLibraryPath(ignore_env, &options);
  options.diagnose = !no_diagnose;
  ProgressBar bar(out.quiet);
  limits.progress = bar.Callback();
  limits.verify_crc = !fast || verify;
  limits.verify_remote = verify;
  if (suggest_opt->count() > 0) {
    std::string why;
    absl::StatusOr<std::string> builds = SuggestTorchBuilds(path, suggest, &why, limits);
    if (!builds.ok()) {
      bar.Finish();
      return FailWith(prog, builds.status(), out);
    }
    if (!out.quiet) std::fprintf(stderr, "%s: --suggest: %s\n", prog.c_str(), why.c_str());
    against.push_back(*builds);
  }
  absl::StatusOr<EnvironmentReport> env = CheckEnvironment(path, against, options, limits);
  bar.Finish();
  if (!env.ok()) {
    return FailWith(prog, env.status(), out);
  }
  if (!EmitResult(prog, *env, out)) return kExitBadInput;
  const Recommendation& r = env->matrix.recommendation;
  // The exact command, with the index options the builds were resolved through — for a build pip
  // resolved (a URL), not one the user gave as a file with --against.
  const bool published = r.build.rfind("http://", 0) == 0 || r.build.rfind("https://", 0) == 0;
  if (suggest_opt->count() > 0 && !out.quiet && out.format == "text" && out.output.empty() &&
      env->matrix.has_recommendation && !r.requirement.empty() && published) {
    std::string command = "pip install " + r.requirement;
    for (const std::string& a : options.pip_index_args) command += " " + a;
    for (const std::string& d : options.find_links) command += " --find-links " + d;
    std::printf("to install it: %s\n", Printable(command).c_str());
  }
  return ExitCodeForVerdicts(env->verdict() == Verdict::kFails,
                             env->verdict() == Verdict::kUnknown);
}

}  // namespace abicheck::cli
