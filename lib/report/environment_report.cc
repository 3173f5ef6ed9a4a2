// `abicheck env`: one line per package and build on top (the answer to "which of my packages
// break with this torch?"), import torch itself, the recommendation, then each failing shared
// object's report. JSON embeds the matrix document.
#include <algorithm>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/report/json_report.h"
#include "lib/report/render.h"
#include "lib/report/text_util.h"
#include "lib/results/results.h"
#include "lib/util/paths.h"

namespace abicheck {
namespace {

// "loads", or "FAILS (2 of 7)": how many of the package's shared objects fail against build b;
// "WON'T RUN (2 of 7)" when they all load but cannot run on the GPU or driver given; "CANNOT
// TELL (libcudart.so.12 not given)" when none fails and some verdict is unknown (C2c).
std::string PackageVerdict(const EnvironmentReport& env, const EnvironmentPackage& p, size_t b,
                           Verdict* verdict) {
  const size_t nb = env.matrix.builds.size();
  size_t failing = 0, not_loading = 0, installed = 0;
  std::vector<std::string> not_given;
  for (size_t row : p.modules) {
    const Report& r = env.matrix.cells[row * nb + b].report;
    if (r.verdict() == Verdict::kNotInstalled) continue;  // E11: no file there with this build
    ++installed;
    if (r.verdict() == Verdict::kUnknown) {
      AddNotGiven(r, &not_given);
      continue;
    }
    failing += r.ok() ? 0 : 1;
    not_loading += r.loads ? 0 : 1;
  }
  *verdict = failing > 0          ? Verdict::kFails
             : !not_given.empty() ? Verdict::kUnknown
                                  : Verdict::kLoads;
  if (p.modules.empty()) return "-";
  if (installed == 0) {  // the version this build installs has none of these files
    *verdict = Verdict::kNotInstalled;
    return "not installed";
  }
  if (failing == 0 && not_given.empty()) return "loads";
  if (failing == 0) return UnknownVerdictText(not_given);
  return absl::StrFormat("%s (%d of %d)", not_loading == 0 ? "WON'T RUN" : "FAILS", failing,
                         installed);
}

// import torch, per build: whether it loads, and if its kernels cannot run, why.
void AppendTorchImports(const EnvironmentReport& env, const std::vector<std::string>& labels,
                        bool color, std::string* out) {
  const size_t nb = env.matrix.builds.size();
  for (size_t b = 0; b < nb; ++b) {
    const Report& r = env.torch_imports[b];
    std::string line = r.loads ? "loads" : "FAILS";
    if (r.verdict() == Verdict::kUnknown) {
      line = UnknownVerdictText(r.unknown_because);
    } else if (!r.loads) {
      for (const Problem& p : r.problems) {
        if (p.first) line = absl::StrCat("FAILS: ", Shown(p.message));
      }
    } else if (!r.ok()) {  // docs/gpu-model.md: torch's own kernels cannot run there
      const Problem& p = r.problems.front();
      const std::string what =
          p.kind == ProblemKind::kInsufficientDriver
              ? absl::StrCat(Shown(p.library), " needs a CUDA ", p.version,
                             " driver; this one supports CUDA ", r.device.driver_cuda)
          : p.kind == ProblemKind::kUnsupportedPtx
              ? absl::StrCat(Shown(Basename(p.object)), " has for ", r.device.gpu,
                             " only PTX newer than the CUDA ", r.device.driver_cuda,
                             " driver: ", Shown(p.version))
              : absl::StrCat("its kernels will not run on ", r.device.gpu, ": ",
                             Shown(Basename(p.object)), " carries ",
                             absl::StrJoin(r.device.images, ", "));
      line = absl::StrCat("loads, but ", what, " (", Shown(p.message), ")");
    }
    absl::StrAppend(out, "import torch with ", Printable(labels[b]), ": ",
                    Paint(color, r.verdict(), line), "\n");
    for (const Warning& w : r.warnings) absl::StrAppend(out, "  warning: ", Shown(w.message), "\n");
  }
}

// The table: a row per package, a column per build.
void AppendPackageTable(const EnvironmentReport& env, const std::vector<std::string>& labels,
                        bool color, std::string* out) {
  const size_t nb = env.matrix.builds.size();
  size_t w_name = 7, w_ver = 7, w_pin = 9;
  for (const EnvironmentPackage& p : env.packages) {
    w_name = std::max(w_name, p.name.size());
    w_ver = std::max(w_ver, p.version.size());
    w_pin = std::max(w_pin, PinText(p.torch_requirements).size());
  }
  std::vector<size_t> widths;
  widths.reserve(labels.size());
  for (const std::string& l : labels) widths.push_back(std::max<size_t>(16, l.size()));
  absl::StrAppend(out, absl::StrFormat("%-*s  %-*s  %-*s", w_name, "package", w_ver, "version",
                                       w_pin, "torch pin"));
  for (size_t b = 0; b < nb; ++b)
    absl::StrAppend(out, "  ", absl::StrFormat("%-*s", widths[b], Printable(labels[b])));
  out->push_back('\n');
  for (const EnvironmentPackage& p : env.packages) {
    absl::StrAppend(
        out, absl::StrFormat("%-*s  %-*s  %-*s", w_name, Shown(p.name), w_ver, Shown(p.version),
                             w_pin, Shown(PinText(p.torch_requirements))));
    for (size_t b = 0; b < nb; ++b) {
      Verdict verdict = Verdict::kLoads;
      const std::string v = PackageVerdict(env, p, b, &verdict);
      absl::StrAppend(out, "  ", Paint(color, verdict, absl::StrFormat("%-*s", widths[b], v)));
    }
    out->push_back('\n');
    for (const std::string& problem : p.problems)
      absl::StrAppend(out, "  warning: ", Shown(problem), "\n");
  }
}

// What fails, in full: import torch per build, then each failing module with each build.
void AppendFailures(const EnvironmentReport& env, const std::vector<std::string>& labels,
                    bool color, bool all, std::string* out) {
  const size_t nb = env.matrix.builds.size();
  for (size_t b = 0; b < nb; ++b) {
    if (!env.torch_imports[b].loads) {
      absl::StrAppend(out, "\n== import torch with ", Printable(labels[b]), "\n",
                      RenderText(env.torch_imports[b], color, all));
    }
  }
  // What import torch warned of (the build's own libraries' misses) is said there, once.
  std::vector<std::vector<std::string>> said(nb);
  for (size_t b = 0; b < nb; ++b) {
    for (const Warning& w : env.torch_imports[b].warnings) said[b].push_back(w.message);
  }
  const std::vector<std::string> rows = ModuleRowLabels(env.matrix);
  for (size_t i = 0; i < env.matrix.modules.size(); ++i) {
    for (size_t b = 0; b < nb; ++b) {
      const MatrixCell& c = env.matrix.cells[i * nb + b];
      if (NothingInTheWay(c.report)) continue;
      absl::StrAppend(out, "\n== ", Printable(rows[i]), " (",
                      Shown(env.matrix.module_info[i].package), ") with ", Printable(labels[b]),
                      "\n", RenderText(c.report, color, all, said[b]));
    }
  }
}

// A library torch's wheels or their CUDA wheels ship (torch/lib, nvidia/*/lib, triton): a build
// of torch can change whether it is there.
bool TorchOrCudaLibrary(absl::string_view name) {
  for (absl::string_view prefix : {"libtorch", "libc10", "libcaffe2", "libshm", "libgomp", "libcu",
                                   "libnv", "libnccl", "libtriton", "libmagma"}) {
    if (absl::StartsWith(name, prefix)) return true;
  }
  return false;
}

// With one build there is no second column to show that a failure is the same whatever torch
// is: say it of a package whose every failing module misses only libraries that neither torch
// nor CUDA ships (issue 36 item 8: torchcodec without FFmpeg), and how to scope the gate.
std::string TorchIndependentLines(const EnvironmentReport& env) {
  if (env.matrix.builds.size() != 1) return "";  // several: the recommendation says it
  std::string out;
  for (const EnvironmentPackage& p : env.packages) {
    std::vector<std::string> missing;
    bool independent = false;
    for (size_t row : p.modules) {
      if (row >= env.matrix.cells.size()) continue;
      const Report& r = env.matrix.cells[row].report;
      if (r.verdict() != Verdict::kFails) continue;
      independent = true;
      for (const Problem& q : r.problems) {
        if (q.kind != ProblemKind::kMissingLibrary || TorchOrCudaLibrary(q.library)) {
          independent = false;
          break;
        }
        if (std::find(missing.begin(), missing.end(), q.library) == missing.end())
          missing.push_back(q.library);
      }
      if (!independent) break;
    }
    if (!independent || missing.empty()) continue;
    absl::StrAppend(&out, "note: ", Shown(p.name),
                    " fails for a reason no torch build changes: it needs ",
                    Shown(absl::StrJoin(missing, ", ")), ", which neither torch nor CUDA ships",
                    " (install it, or leave ", Shown(p.name), " out of the exit code: --ignore ",
                    Shown(p.name), ")\n");
  }
  return out;
}

}  // namespace

std::string RenderEnvironmentText(const EnvironmentReport& env, bool color, bool all,
                                  bool summary) {
  std::string out;
  absl::StrAppend(&out, "environment: ", Shown(env.site_packages), "\n");
  absl::StrAppend(&out, "  Python ", env.python_version.empty() ? "?" : env.python_version, ", ",
                  env.interpreter.empty() ? "interpreter not found (Py* references are not checked)"
                                          : absl::StrCat("interpreter ", Shown(env.interpreter)),
                  env.torch_version.empty()
                      ? "\n  no torch installed\n"
                      : absl::StrCat("\n  torch ", Shown(env.torch_version), " installed\n"));
  const std::vector<std::string> labels = BuildLabels(env.matrix);
  // What installing each build here would change (E11), once, above the table.
  for (size_t b = 0; b < env.build_changes.size() && b < labels.size(); ++b) {
    if (!env.build_changes[b].empty())
      absl::StrAppend(&out, "  installing ", Printable(labels[b]),
                      " here: ", Shown(env.build_changes[b]), "\n");
  }
  AppendTorchImports(env, labels, color, &out);
  out.push_back('\n');
  AppendPackageTable(env, labels, color, &out);
  if (env.matrix.has_recommendation)
    absl::StrAppend(&out, "\nrecommendation: ", Shown(env.matrix.recommendation.summary), "\n");
  if (const std::string stable = StableAbiLines(env.matrix); !stable.empty())
    absl::StrAppend(&out, "\n", stable);
  std::vector<std::string> urls_said;
  for (const Warning& n : env.matrix.notes) absl::StrAppend(&out, NoteLine(n, false, &urls_said));
  out += TorchIndependentLines(env);
  if (summary) {
    std::string failing;
    for (size_t b = 0; b < env.torch_imports.size() && b < labels.size(); ++b) {
      const Report& r = env.torch_imports[b];
      if (r.ok()) continue;
      absl::StrAppend(&failing, "  import torch with ", Printable(labels[b]), ": ",
                      r.problems.empty() ? "CANNOT TELL" : "FAILS", ": ",
                      Shown(r.problems.empty() ? "see the report without --summary"
                                               : r.problems.front().message),
                      "\n");
    }
    failing += FailingLines(env.matrix, labels);
    if (!failing.empty()) absl::StrAppend(&out, "\n", kFailingHeading, failing);
    return out;
  }
  AppendFailures(env, labels, color, all, &out);
  return out;
}

std::string RenderEnvironmentJson(const EnvironmentReport& env) {
  nlohmann::ordered_json j;
  j["schema_version"] = kJsonSchemaVersion;
  j["tool"] = {{"name", "abicheck"}, {"version", Version()}};
  j["environment"] = {{"path", env.environment},
                      {"site_packages", env.site_packages},
                      {"python_version", env.python_version},
                      {"interpreter", env.interpreter},
                      {"torch_version", env.torch_version}};
  j["verdict"] = VerdictName(env.verdict());
  j["loads"] = env.loads();
  nlohmann::ordered_json imports = nlohmann::ordered_json::array();
  for (size_t b = 0; b < env.torch_imports.size(); ++b) {
    imports.push_back({{"build", env.matrix.builds[b]},
                       {"changes", b < env.build_changes.size() ? env.build_changes[b] : ""},
                       {"verdict", VerdictName(env.torch_imports[b].verdict())},
                       {"loads", env.torch_imports[b].loads},
                       {"report", ReportJson(env.torch_imports[b])}});
  }
  j["torch_imports"] = std::move(imports);
  nlohmann::ordered_json packages = nlohmann::ordered_json::array();
  const size_t nb = env.matrix.builds.size();
  for (const EnvironmentPackage& p : env.packages) {
    nlohmann::ordered_json verdicts = nlohmann::ordered_json::array();
    for (size_t b = 0; b < nb; ++b) {
      Verdict verdict = Verdict::kLoads;
      PackageVerdict(env, p, b, &verdict);
      verdicts.push_back({{"build", env.matrix.builds[b]},
                          {"verdict", VerdictName(verdict)},
                          {"loads", verdict == Verdict::kLoads}});
    }
    packages.push_back({{"name", p.name},
                        {"version", p.version},
                        {"torch_requirements", p.torch_requirements},
                        {"modules", p.modules},
                        {"problems", p.problems},
                        {"verdicts", std::move(verdicts)}});
  }
  j["packages"] = std::move(packages);
  j["matrix"] = MatrixJson(env.matrix);
  return DumpJson(j);
}

}  // namespace abicheck
