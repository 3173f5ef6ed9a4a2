// `abicheck env [PATH]`: which packages of an installed Python environment will not load with its
// torch (or with another build, --against), why, and which build to install instead.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/cli/commands.h"
#include "lib/cli/progress.h"
#include "lib/inputs/pip.h"
#include "lib/inputs/python_env.h"
#include "lib/inputs/requirements.h"
#include "lib/report/text_util.h"

namespace abicheck::cli {
namespace {

// env --suggest: the build to install, and the exact command — its own interpreter's pip, with
// the index options the builds were resolved through; none when it is the installed one.
void PrintInstallCommand(const Invocation& io, const Matrix& m) {
  const Recommendation& r = m.recommendation;
  if (!m.has_recommendation) return;
  if (r.installed) {
    std::fprintf(io.out, "already installed: %s is the best of the builds checked\n",
                 Printable(r.label).c_str());
  } else if (!r.install_command.empty()) {
    std::fprintf(io.out, "to install it: %s\n", Printable(r.install_command).c_str());
  }
}

// env --package / --ignore (issue 36): which packages' objects the exit code counts.
struct GateScope {
  std::vector<std::string> only, ignored;
  bool empty() const { return only.empty() && ignored.empty(); }
};

// The exit code over import torch and the packages `scope` counts; `say`: a line on what was left
// out. A --package that names no installed package is a usage error (a gate on nothing passes).
int GateExitCode(const Invocation& io, const EnvironmentReport& env, const GateScope& scope,
                 bool say) {
  if (scope.empty())
    return ExitCodeForVerdicts(env.verdict() == Verdict::kFails,
                               env.verdict() == Verdict::kUnknown);
  absl::flat_hash_set<std::string> only, ignored, seen;
  for (const std::string& n : scope.only) only.insert(NormalizeDistName(n));
  for (const std::string& n : scope.ignored) ignored.insert(NormalizeDistName(n));
  bool fails = false, unknown = false;
  auto take = [&](const Report& r) {
    fails = fails || r.verdict() == Verdict::kFails;
    unknown = unknown || r.verdict() == Verdict::kUnknown;
  };
  for (const Report& r : env.torch_imports) take(r);
  std::vector<std::string> left_out;
  const size_t nb = env.matrix.builds.size();
  for (const EnvironmentPackage& p : env.packages) {
    const std::string n = NormalizeDistName(p.name);
    seen.insert(n);
    if ((!only.empty() && !only.contains(n)) || ignored.contains(n)) {
      left_out.push_back(p.name);
      continue;
    }
    for (size_t m : p.modules) {
      for (size_t b = 0; b < nb && m * nb + b < env.matrix.cells.size(); ++b)
        take(env.matrix.cells[m * nb + b].report);
    }
  }
  for (const std::string& n : scope.only) {
    if (!seen.contains(NormalizeDistName(n))) {
      std::fprintf(io.err, "%s: env --package %s: no such package is installed here\n",
                   io.prog.c_str(), Printable(n).c_str());
      return kExitUsage;
    }
  }
  if (say && !left_out.empty())
    std::fprintf(io.out, "exit code: import torch and %zu of %zu packages (%s not counted)\n",
                 env.packages.size() - left_out.size(), env.packages.size(),
                 Printable(absl::StrJoin(left_out, ", ")).c_str());
  return ExitCodeForVerdicts(fails, unknown);
}

// env --against pip:REQ: a build of torch, so a requirement on another package is a usage error
// (its wheels would be taken for torch builds).
bool EnvironmentBuildsAreTorch(const Invocation& io, const std::vector<std::string>& against) {
  for (const std::string& a : against) {
    if (!IsPipInput(a)) continue;
    absl::StatusOr<Requirement> r = ParseRequirement(a.substr(4));
    if (r.ok() && r->name != "torch") {
      std::fprintf(io.err,
                   "%s: env --against %s: a requirement on %s, not on torch: env checks the "
                   "environment's packages against torch builds\n",
                   io.prog.c_str(), Printable(a).c_str(), Printable(r->name).c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

// Long: the option table, in the order --help lists it, then the checks between options.
int RunEnv(const Invocation& io, std::vector<std::string> args) {
  CLI::App app{
      "Checks an installed Python environment without running it: models `import torch` from its "
      "files, then every shared object of every other package, and says which packages will not "
      "load and why.",
      io.prog + " env"};
  std::string path;
  std::vector<std::string> against, library_path;
  CheckOptions options;
  OutputOptions out;
  out.terminal = io.out;
  bool no_host = false, no_diagnose = false;
  app.add_option("PATH", path,
                 "a virtualenv, a prefix with lib/pythonX.Y/site-packages, a site-packages "
                 "directory, or a Python executable in one (default: $VIRTUAL_ENV)");
  app.add_option("--against", against,
                 "check with this torch build instead of the installed one (a torch wheel, a "
                 "torch directory, another environment's installed torch, or an index: its "
                 "exports, import torch not checked); repeat to compare builds and get a "
                 "recommendation");
  std::string suggest;
  CLI::Option* suggest_opt =
      app.add_option(
             "--suggest", suggest,
             "check against the published torch releases (read by HTTP range requests "
             "through pip, as pip:torch...): REQ's ('torch>=2.8,<2.13'), by default those "
             "the installed packages' own torch requirements allow (all from the oldest one "
             "of them allows to the newest when they allow none together), else from two "
             "minor releases below the installed torch on; ends with the release to install and "
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
  bool all = false;
  AddDetailOptions(app, &all, &out.summary);
  GateScope scope;
  app.add_option("--package", scope.only,
                 "gate on this package (repeatable): the exit code counts its objects and import "
                 "torch only; the report still shows every package");
  app.add_option("--ignore", scope.ignored,
                 "a package whose objects do not count for the exit code (repeatable), e.g. one "
                 "that fails for a reason torch cannot change; the report still shows it");
  ReadOptions read;
  read.AddTo(app);
  out.AddTo(app, {"text", "json", "sarif", "junit"});
  app.footer(
      "exit codes: 0 every package loads, 1 one will not load, 2 usage error, 3 unreadable "
      "or invalid input (no torch installed, ...), 4 cannot tell: none fails, but a verdict "
      "rests on a library that was not given");
  AddLimitOptions(app, &limits);
  if (std::optional<int> done = Parse(io, app, std::move(args))) return *done;
  if (!DeviceOptionsValid(io, options.gpu, options.cuda_driver)) return kExitUsage;
  {
    std::vector<std::string> inputs = against;
    inputs.push_back(path);
    if (OutputIsAnInput(io, out.output, inputs)) return kExitUsage;
  }
  if (!EnvironmentBuildsAreTorch(io, against)) return kExitUsage;
  if (suggest_opt->count() > 0 && path.empty() && !suggest.empty() &&
      std::filesystem::is_directory(suggest)) {
    // `env --suggest VENV`: --suggest's REQ is optional, and a directory is the environment.
    path = std::exchange(suggest, std::string());
  }
  if (path.empty()) {
    const char* venv = std::getenv("VIRTUAL_ENV");
    if (venv == nullptr || *venv == '\0') {
      std::fprintf(io.err,
                   "%s: env: name an environment (no PATH given and VIRTUAL_ENV is unset)\n",
                   io.prog.c_str());
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
  ProgressBar bar(io.err, io.progress, out.quiet);
  limits.progress = bar.Callback();
  limits.input_progress = bar.InputCallback();
  read.Apply(&limits);
  if (suggest_opt->count() > 0) {
    std::string why;
    absl::StatusOr<std::string> builds = SuggestTorchBuilds(path, suggest, &why, limits, options);
    if (!builds.ok()) {
      bar.Finish();
      // REQ itself is wrong (not a requirement, not torch's): a usage error.
      const int code = FailWith(io, builds.status(), out);
      return absl::IsInvalidArgument(builds.status()) && !suggest.empty() ? kExitUsage : code;
    }
    options.with_installed_build = true;  // what loads now is weighed, and kept on a tie
    if (!out.quiet) std::fprintf(io.err, "%s: --suggest: %s\n", io.prog.c_str(), why.c_str());
    against.push_back(*builds);
  }
  absl::StatusOr<EnvironmentReport> env = CheckEnvironment(path, against, options, limits);
  bar.Finish();
  if (!env.ok()) {
    return FailWith(io, env.status(), out);
  }
  if (!EmitResult(io, *env, out, all)) return kExitBadInput;
  if (suggest_opt->count() > 0 && !out.quiet && out.format == "text" && out.output.empty())
    PrintInstallCommand(io, env->matrix);
  return GateExitCode(io, *env, scope, !out.quiet && out.format == "text" && out.output.empty());
}

}  // namespace abicheck::cli
