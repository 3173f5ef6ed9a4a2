// Check() and CheckMatrix(): which modules are checked against which builds, in which world
// (lib/resolve/world.h does one module's dlopen), with the explanations of diagnose/ added; and
// the exit codes.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <utility>

#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "lib/api/build.h"
#include "lib/api/check_internal.h"
#include "lib/api/limits.h"
#include "lib/diagnose/diagnose.h"
#include "lib/elf/elf_constants.h"
#include "lib/inputs/inputs.h"
#include "lib/inputs/pip.h"
#include "lib/inputs/python_env.h"
#include "lib/inputs/requirements.h"
#include "lib/resolve/loader.h"
#include "lib/resolve/world.h"
#include "lib/results/results.h"
#include "lib/util/keep_until_exit.h"
#include "lib/util/paths.h"
#include "lib/util/status_macros.h"

namespace abicheck {

int ExitCodeForStatus(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitLoads;
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kUnavailable:
      return kExitBadInput;
    default:
      return kExitUsage;
  }
}

absl::StatusOr<Report> CheckInWorld(World& w, const InputFile& module_input,
                                    const std::vector<InputFile>& providers,
                                    const CheckOptions& options, ModuleAlreadyLoaded if_loaded,
                                    const Object* set_aside) {
  Loader& loader = *w.loader;
  // What this check loads and names is undone after it: the world serves the next module.
  struct Undo {
    Loader& loader;
    Loader::Mark mark;
    ~Undo() { loader.Rollback(mark); }
  } undo{loader, loader.Checkpoint()};
  loader.SetAside(set_aside);
  ABICHECK_ASSIGN_OR_RETURN(ModuleLoad load,
                            LoadModule(w, module_input, providers, options, if_loaded, set_aside));
  if (load.module == nullptr) return std::move(load.report);
  if (options.diagnose) DiagnoseProblems(loader, load.scope, &load.report);
  ABICHECK_RETURN_IF_ERROR(FinishModule(w, undo.mark, module_input, set_aside, &load));
  return std::move(load.report);
}

absl::StatusOr<Report> CheckObjects(const InputFile& module_input,
                                    const std::vector<InputFile>& providers,
                                    const std::vector<InputFile>& preload, const InputFile* python,
                                    const CheckOptions& options, ModuleAlreadyLoaded if_loaded,
                                    ParseCache* parses, size_t own_package) {
  return ReusedWorld().Check(module_input, providers, preload, python, options, if_loaded, parses,
                             own_package);
}

absl::StatusOr<Report> ReusedWorld::Check(const InputFile& module,
                                          const std::vector<InputFile>& providers,
                                          const std::vector<InputFile>& preload,
                                          const InputFile* python, const CheckOptions& options,
                                          ModuleAlreadyLoaded if_loaded, ParseCache* parses,
                                          size_t own_package) {
  Report refused;
  ABICHECK_ASSIGN_OR_RETURN(std::optional<ElfFile> probe, ProbeModule(module, &refused));
  if (!probe) return refused;
  if (!world_ || made_for_ != providers.size() || probe->machine() != world_->machine ||
      probe->is_64() != world_->is_64 || probe->big_endian() != world_->big_endian) {
    world_.reset();
    ABICHECK_ASSIGN_OR_RETURN(
        World w, PrepareWorld(*probe, providers, preload, python, options, parses, own_package));
    world_ = std::move(w);
    made_for_ = providers.size();
  }
  return CheckInWorld(*world_, module, providers, options, if_loaded, nullptr);
}

bool IsGlobalDeps(const InputFile& f) {
  return absl::StartsWith(Basename(f.path), "libtorch_global_deps.so");
}

namespace {

// Expands provider inputs; libtorch_global_deps goes to the global scope (docs/loader-model.md §E).
absl::Status ExpandProviders(const std::vector<std::string>& paths, const InputLimits& limits,
                             std::vector<InputFile>* providers, std::vector<InputFile>* preload,
                             std::vector<Warning>* notes) {
  for (const std::string& p : paths) {
    ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in, ExpandInput(p, ToReadLimits(limits)));
    if (in.objects.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(p, ": no ELF shared objects in this ", in.kind));
    }
    for (const std::string& n : in.notes) notes->push_back({p, n});
    for (InputFile& f : in.objects)
      (IsGlobalDeps(f) ? preload : providers)->push_back(std::move(f));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<InputFile> SingleFile(const std::string& path, const char* role,
                                     const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in, ExpandInput(path, ToReadLimits(limits)));
  if (in.kind != "file") {
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": is ",
        !in.kind.empty() && absl::StrContains("aeiou", in.kind.substr(0, 1)) ? "an " : "a ",
        in.kind, "; the ", role, " must be one file (to check every module of a wheel or ",
        "directory, name the build with --against)"));
  }
  return std::move(in.objects.front());
}

// How a row of the matrix is shown: the member's path inside a wheel, the path below a
// directory, the file name of a file.
std::vector<std::string> PackagesOf(const ExpandedInput& ex) {
  // One package for a wheel, a file or a package's own directory; per top-level entry for a
  // directory of installed packages (it has a *.dist-info or *.egg-info directory).
  std::vector<std::string> out(ex.objects.size());
  if (ex.kind != "directory") return out;
  std::error_code ec;
  bool site = false;
  for (const auto& d : std::filesystem::directory_iterator(ex.path, ec)) {
    const std::string n = d.path().filename().string();
    if (absl::EndsWith(n, ".dist-info") || absl::EndsWith(n, ".egg-info")) site = true;
  }
  if (!site) return out;
  for (size_t i = 0; i < ex.objects.size(); ++i) {
    absl::string_view rest = ex.objects[i].name;
    if (!absl::ConsumePrefix(&rest, ex.path)) continue;
    while (absl::ConsumePrefix(&rest, "/")) {
    }
    std::string top(rest.substr(0, rest.find('/')));
    if (absl::EndsWith(top, ".libs"))
      top.resize(top.size() - 5);  // auditwheel's vendored libraries
    out[i] = top;
  }
  return out;
}

// One module input's objects and their packages, shared by its modules.
struct ModuleGroup {
  std::vector<InputFile> objects;    // everything the input expanded to
  std::vector<std::string> package;  // per object, its package
  std::vector<size_t> place;         // per object, its place among its package's objects
  // File name -> the objects of that name, in order (E9's test).
  absl::flat_hash_map<std::string, std::vector<size_t>> by_basename;
  // An archive's objects where pip installs them (E10): a vendored library's $ORIGIN search
  // (auditwheel's torchvision.libs/libz.cac6d5fc.so.1) finds its siblings there.
  std::shared_ptr<FileTree> tree;
};

void MarkOrderDependent(const ModuleGroup& g, const std::string& package, Report* r) {
  // docs/loader-model.md E9: a missing library that another package in the same directory
  // ships is there only if that package was imported first.
  for (Problem& p : r->problems) {
    if (p.kind != ProblemKind::kMissingLibrary) continue;
    auto it = g.by_basename.find(p.library);
    if (it == g.by_basename.end()) continue;
    for (size_t j : it->second) {
      if (g.package[j] == package) continue;
      p.hint = absl::StrCat("order-dependent: ", g.objects[j].name, " provides ", p.library,
                            ", but it belongs to another package: this loads only if that "
                            "package is imported first (and loads it RTLD_GLOBAL or by this "
                            "name); depend on it explicitly, or bundle the library");
      break;
    }
  }
}

std::string ModuleLabel(const ExpandedInput& in, const InputFile& f) {
  if (size_t bang = f.name.rfind('!'); bang != std::string::npos) return f.name.substr(bang + 1);
  if (in.kind == "directory" && absl::StartsWith(f.name, in.path)) {
    absl::string_view rest = absl::string_view(f.name).substr(in.path.size());
    while (absl::ConsumePrefix(&rest, "/")) {
    }
    if (!rest.empty()) return std::string(rest);
  }
  return Basename(f.name);
}

std::vector<int> BuildVersion(absl::string_view build) {
  auto first = [](absl::string_view s) {
    std::vector<int> v;
    for (size_t i = 0; i < s.size(); ++i) {
      if (!absl::ascii_isdigit(s[i]) || (i > 0 && absl::ascii_isalnum(s[i - 1]) && s[i - 1] != 'h'))
        continue;
      size_t j = i;
      std::vector<int> parts;
      while (j < s.size() && absl::ascii_isdigit(s[j])) {
        size_t k = j;
        int n = 0;
        while (k < s.size() && absl::ascii_isdigit(s[k]) && n < 100000) n = n * 10 + (s[k++] - '0');
        parts.push_back(n);
        j = k;
        if (j + 1 < s.size() && s[j] == '.' && absl::ascii_isdigit(s[j + 1])) {
          ++j;
        } else {
          break;
        }
      }
      if (parts.size() >= 2) return parts;
      i = j;
    }
    return v;
  };
  if (size_t hash = build.rfind('#'); hash != absl::string_view::npos)
    build.remove_prefix(hash + 1);
  const size_t slash = build.rfind('/');
  std::vector<int> v = first(slash == absl::string_view::npos ? build : build.substr(slash + 1));
  return v.empty() ? first(build) : v;
}

void MarkTorchAbi(Matrix* m) {
  const size_t nb = m->builds.size();
  if (nb == 0) return;
  std::vector<size_t> by_age(nb);
  for (size_t b = 0; b < nb; ++b) by_age[b] = b;
  std::stable_sort(by_age.begin(), by_age.end(), [&](size_t a, size_t b) {
    return BuildVersion(m->builds[a]) < BuildVersion(m->builds[b]);
  });
  for (size_t i = 0; i < m->modules.size() && i < m->module_info.size(); ++i) {
    ModuleInfo& info = m->module_info[i];
    info.torch_abi = m->cells[i * nb].report.torch_abi;
    if (info.torch_abi != TorchAbi::kStable || nb < 2) continue;
    // E8: the oldest build that exports every shim function the object itself uses.
    for (size_t b : by_age) {
      const Report& r = m->cells[i * nb + b].report;
      bool all = true;
      for (const Problem& p : r.problems) {
        all = all && !(p.kind == ProblemKind::kUndefinedSymbol && p.object == r.module &&
                       IsTorchShimName(p.symbol));
      }
      if (all) {
        info.stable_since = m->builds[b];
        break;
      }
    }
  }
}

std::string BuildLabel(absl::string_view build) {
  // The shortest tail of path components that names a version: "torch-2.10.0/torch" for a
  // torch directory, the wheel's name without .whl.
  std::string label = Basename(build);
  for (size_t end = build.size(), at = build.rfind('/'); at != absl::string_view::npos && at > 0;
       at = build.rfind('/', at - 1)) {
    const absl::string_view tail = build.substr(at + 1, end - at - 1);
    if (std::any_of(tail.begin(), tail.end(), [](char c) { return absl::ascii_isdigit(c); })) {
      label = std::string(tail);
      break;
    }
  }
  if (absl::EndsWith(label, ".whl")) label.resize(label.size() - 4);
  return label;
}

void NameRecommendation(const Matrix& m, size_t b, Recommendation* r) {
  const std::string v = b < m.build_versions.size() ? m.build_versions[b] : "";
  r->label = v.empty() ? BuildLabel(r->build) : absl::StrCat("torch ", v);
  r->requirement = v.empty() ? "" : absl::StrCat("torch==", v.substr(0, v.find('+')));
}

std::string Installable(const Recommendation& r) {
  return r.requirement.empty() ? r.label : absl::StrCat(r.requirement, " (", r.label, ")");
}

std::string SameWithEveryBuildClause(const std::vector<std::string>& names,
                                     const std::string& example_error) {
  if (names.empty()) return "";
  return absl::StrFormat(
      "; %d of them fail%s with every build given, the same way, so no torch choice fixes %s: "
      "%s (%s)",
      names.size(), names.size() == 1 ? "s" : "", names.size() == 1 ? "it" : "them",
      absl::StrJoin(names, ", "), example_error);
}

std::string SameFailureWithEveryBuild(const Matrix& m, size_t i) {
  const size_t nb = m.builds.size();
  std::string first;
  for (size_t b = 0; b < nb; ++b) {
    const Report& cell = m.cells[i * nb + b].report;
    if (cell.verdict() != Verdict::kFails) return "";
    std::string message;
    for (const Problem& p : cell.problems) {
      if (p.first) message = p.message;
    }
    if (message.empty() || (b > 0 && message != first)) return "";
    first = std::move(message);
  }
  return first;
}

void Recommend(Matrix* m, const std::vector<bool>& unusable) {
  const size_t nb = m->builds.size();
  if (nb < 2 || m->modules.empty()) return;
  // An unknown cell (C2c) counts as not loading: the recommendation never rests on it.
  std::vector<int> failing(nb, 0);
  for (size_t i = 0; i < m->modules.size(); ++i) {
    for (size_t b = 0; b < nb; ++b) {
      const bool dead = b < unusable.size() && unusable[b];
      failing[b] += (dead || !m->cells[i * nb + b].report.ok()) ? 1 : 0;
    }
  }
  // Fewest failing modules; among equals the newest version; among those the one given last.
  size_t best = 0;
  for (size_t b = 1; b < nb; ++b) {
    if (failing[b] < failing[best] || (failing[b] == failing[best] &&
                                       BuildVersion(m->builds[b]) >= BuildVersion(m->builds[best])))
      best = b;
  }
  Recommendation& r = m->recommendation;
  m->has_recommendation = true;
  r.build = m->builds[best];
  NameRecommendation(*m, best, &r);
  r.every_module_loads = failing[best] == 0;
  std::string first_same;  // the first error of the first that fails the same with every build
  for (size_t i = 0; i < m->modules.size(); ++i) {
    const Report& cell = m->cells[i * nb + best].report;
    if (cell.ok() && !(best < unusable.size() && unusable[best])) continue;
    if (cell.verdict() == Verdict::kUnknown) {
      ++r.unknown_modules;
      AddNotGiven(cell, &r.not_given);
      continue;
    }
    ++r.failing_modules;
    r.still_failing.push_back(m->modules[i]);
    if (std::string same = SameFailureWithEveryBuild(*m, i); !same.empty()) {
      r.fail_with_every_build.push_back(m->modules[i]);
      if (first_same.empty()) first_same = std::move(same);
    }
  }
  if (r.every_module_loads) {
    r.summary = absl::StrCat("install ", Installable(r), ": every module loads against it");
  } else if (r.failing_modules == 0) {
    r.summary = absl::StrFormat(
        "no build is known to load every module: against %s none fails, but %d of %d cannot be "
        "told without %s",
        r.label, r.unknown_modules, m->modules.size(), absl::StrJoin(r.not_given, ", "));
  } else {
    r.summary =
        absl::StrFormat("no build loads every module; %s leaves the fewest failing (%d of %d)",
                        r.label, r.failing_modules, m->modules.size());
    if (r.unknown_modules > 0) {
      absl::StrAppendFormat(&r.summary, ", and %d cannot be told without %s", r.unknown_modules,
                            absl::StrJoin(r.not_given, ", "));
    }
    absl::StrAppend(&r.summary, SameWithEveryBuildClause(r.fail_with_every_build, first_same));
  }
}

// For every undefined symbol of a cell: which of the builds given export that exact symbol —
// the answer to "which torch should I install instead?" (issue: explain every failure).
void MarkExportingBuilds(const std::vector<std::vector<InputFile>>& builds, Matrix* m) {
  std::vector<std::vector<ParsedElf>> tables(builds.size());
  for (size_t b = 0; b < builds.size(); ++b) {
    for (const InputFile& f : builds[b]) {
      absl::StatusOr<ParsedElf> p = ParseElf(f);
      if (p.ok()) tables[b].push_back(*std::move(p));
    }
  }
  for (MatrixCell& c : m->cells) {
    for (Problem& p : c.report.problems) {
      if (p.kind != ProblemKind::kUndefinedSymbol) continue;
      HashedName name(p.symbol);
      for (size_t b = 0; b < builds.size(); ++b) {
        bool found = false;
        for (const ParsedElf& t : tables[b]) {
          t.syms->ForEachNamedSymbol(name, [&](const Symbol& s, uint16_t vs) {
            if (!s.exported()) return false;
            const VersionSlot* slot = t.syms->Slot(vs);
            found = p.version.empty() || (slot != nullptr && slot->name == p.version);
            return found;
          });
          if (found) break;
        }
        if (found) p.exported_by.push_back(m->builds[b]);
      }
      // Not "removed": the build that exports it may as well be newer (torchao's
      // torch_dtype_float4_e2m1fn_x2, a stable-shim function of 2.15, against 2.10). What the
      // diagnosis said of it stays.
      if (!p.exported_by.empty() && p.candidates.empty()) {
        const std::string by = absl::StrCat("exported by ", absl::StrJoin(p.exported_by, ", "),
                                            " (of the builds given)");
        p.hint = p.hint.empty() || p.hint == kNotExportedHint
                     ? absl::StrCat("not in this build; ", by)
                     : absl::StrCat(p.hint, "; ", by);
      }
    }
  }
}

namespace {

// What every check of a call shares besides its build: --provider (with libtorch_global_deps
// moved to the global scope), --preload and --python.
struct CommonInputs {
  std::vector<InputFile> providers, preload;
  std::optional<InputFile> python;
  const InputFile* python_file() const { return python ? &*python : nullptr; }
};

absl::StatusOr<CommonInputs> ReadCommonInputs(const CheckOptions& options,
                                              const InputLimits& limits,
                                              std::vector<Warning>* notes) {
  CommonInputs c;
  ABICHECK_RETURN_IF_ERROR(
      ExpandProviders(options.providers, limits, &c.providers, &c.preload, notes));
  for (const std::string& p : options.preload) {
    ABICHECK_ASSIGN_OR_RETURN(InputFile f, SingleFile(p, "--preload", limits));
    c.preload.push_back(std::move(f));
  }
  if (!options.python.empty()) {
    ABICHECK_ASSIGN_OR_RETURN(c.python, SingleFile(options.python, "--python", limits));
  }
  return c;
}

// A build's objects are providers: one given by the user must hold some (docs/loader-model.md E2).
absl::Status NeedObjects(const Build& b) {
  if (!b.state().input.objects.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(b.name(), ": no ELF shared objects in this ", b.state().input.kind));
}

}  // namespace

absl::StatusOr<Report> Check(const std::string& module, const CheckOptions& options) {
  return Check(module, options, InputLimits{});
}

namespace {

// The module found again among a directory's libraries given as providers (`check libcublas.so.13
// /usr/local/cuda/lib64`, `check mod.so .`) is the module being loaded, not one of them: it is left
// out, said in a note. Given itself as a provider by name, it stays (LoadModule refuses that).
void LeaveOutTheModule(const InputFile& mod, const std::vector<std::string>& given,
                       std::vector<InputFile>* providers, std::vector<Warning>* notes) {
  std::error_code ec;
  for (const std::string& g : given) {
    if (std::filesystem::equivalent(g, mod.path, ec)) return;
  }
  // The file identity each mapped input already holds (no stat per provider).
  const std::optional<FileId> id = mod.blob ? mod.blob->file_id() : std::nullopt;
  for (auto it = providers->begin(); it != providers->end();) {
    const bool same = it->path == mod.path || (id && it->blob && it->blob->file_id() == id);
    if (!same) {
      ++it;
      continue;
    }
    notes->push_back({mod.name, absl::StrCat(it->name,
                                             " is the module itself: left out of the libraries "
                                             "given, as the module is what is being loaded")});
    it = providers->erase(it);
  }
}

}  // namespace

absl::StatusOr<Report> Check(const std::string& module, const CheckOptions& options,
                             const InputLimits& limits) {
  // The inputs and the world made of them (declared last, so destroyed first): freed when this
  // returns, or left for the process's exit (release_at_exit).
  struct Held {
    InputFile mod;
    CommonInputs c;
    ReusedWorld world;
  };
  ABICHECK_ASSIGN_OR_RETURN(InputFile mod, SingleFile(module, "module", limits));
  std::vector<Warning> notes;
  ABICHECK_ASSIGN_OR_RETURN(CommonInputs c, ReadCommonInputs(options, limits, &notes));
  LeaveOutTheModule(mod, options.providers, &c.providers, &notes);
  auto held = std::make_unique<Held>(Held{std::move(mod), std::move(c), {}});
  absl::StatusOr<Report> r =
      held->world.Check(held->mod, held->c.providers, held->c.preload, held->c.python_file(),
                        options, ModuleAlreadyLoaded::kIsAnError, nullptr);
  if (options.release_at_exit) KeepUntilExit(std::move(held));
  if (r.ok()) r->warnings.insert(r->warnings.begin(), notes.begin(), notes.end());
  return r;
}

absl::StatusOr<Report> Check(const std::string& module, const Build& build,
                             const CheckOptions& options, const InputLimits& limits) {
  ABICHECK_RETURN_IF_ERROR(NeedObjects(build));
  ABICHECK_ASSIGN_OR_RETURN(InputFile mod, SingleFile(module, "module", limits));
  std::vector<Warning> notes;
  for (const std::string& n : build.state().input.notes) notes.push_back({build.name(), n});
  ABICHECK_ASSIGN_OR_RETURN(CommonInputs c, ReadCommonInputs(options, limits, &notes));
  std::vector<InputFile> providers = build.state().providers;
  providers.insert(providers.end(), c.providers.begin(), c.providers.end());
  std::vector<InputFile> preload = build.state().preload;
  preload.insert(preload.end(), c.preload.begin(), c.preload.end());
  ParseCache parses(&build.state().parses);  // the build's parses, borrowed
  if (build.state().tree) parses.AddTree(build.state().tree);
  ABICHECK_ASSIGN_OR_RETURN(Report r,
                            CheckObjects(mod, providers, preload, c.python_file(), options,
                                         ModuleAlreadyLoaded::kIsAnError, &parses));
  r.warnings.insert(r.warnings.begin(), notes.begin(), notes.end());
  return r;
}

PipTarget PipTargetOf(const CheckOptions& options, const InputLimits& limits,
                      const std::string& python_version) {
  PipTarget target;
  target.python_version = python_version.empty() ? options.pip_python_version : python_version;
  target.index_args = options.pip_index_args;
  for (const std::string& d : options.find_links)
    target.index_args.insert(target.index_args.end(), {"--find-links", d});
  target.offline = limits.offline;
  return target;
}

absl::StatusOr<std::vector<std::string>> ExpandPipInputs(const std::vector<std::string>& inputs,
                                                         const CheckOptions& options,
                                                         const InputLimits& limits,
                                                         const std::string& python_version,
                                                         std::vector<Warning>* notes) {
  std::vector<std::string> out;
  const PipTarget target = PipTargetOf(options, limits, python_version);
  for (const std::string& in : inputs) {
    if (!IsPipInput(in)) {
      out.push_back(in);
      continue;
    }
    std::vector<std::string> said;
    ABICHECK_ASSIGN_OR_RETURN(std::vector<PipWheel> wheels, ResolvePipInput(in, target, &said));
    for (std::string& n : said) notes->push_back({in, std::move(n)});
    for (const PipWheel& w : wheels) {
      notes->push_back({w.location, absl::StrCat("pip resolves ", w.requirement, " to this wheel",
                                                 w.sha256.empty() ? "" : " (sha256 ", w.sha256,
                                                 w.sha256.empty() ? "" : ")")});
      out.push_back(w.location);
    }
  }
  return out;
}

namespace {

// The same input given twice (by the same name, or another name of the same file) is checked
// once, with a note.
std::vector<std::string> Dedupe(const std::vector<std::string>& args, const char* role,
                                std::vector<Warning>* notes) {
  std::vector<std::string> kept;
  std::vector<std::pair<uint64_t, uint64_t>> ids;
  for (const std::string& a : args) {
    struct stat st;
    const bool have = ::stat(a.c_str(), &st) == 0;
    const std::pair<uint64_t, uint64_t> id{have ? st.st_dev : 0, have ? st.st_ino : 0};
    const bool dup = std::find(kept.begin(), kept.end(), a) != kept.end() ||
                     (have && std::find(ids.begin(), ids.end(), id) != ids.end());
    if (dup) {
      notes->push_back({a, absl::StrCat("given twice as ", role, ": checked once")});
      continue;
    }
    kept.push_back(a);
    if (have) ids.push_back(id);
  }
  return kept;
}

// A module of the matrix: one object of a module input, with the input's other objects (its
// package's own libraries) shared by the input's modules — a wheel of n objects would otherwise
// hold n^2 of them.
struct ModuleEntry {
  std::shared_ptr<const ModuleGroup> group;
  size_t self = 0;
  ModuleInfo info;
  const InputFile& module() const { return group->objects[self]; }
  const std::string& package() const { return group->package[self]; }
};

// docs/loader-model.md E6, E7: every shared object a package ships is loaded and checked; its
// siblings count as loaded for it. A directory that holds installed packages (a site-packages:
// it has *.dist-info) is several packages, one per top-level entry ("torchvision" with its
// "torchvision.libs"): a module sees its own package's objects; what only another package
// provides depends on import order (E9).
absl::Status ExpandModules(const std::string& in, const InputLimits& limits,
                           std::vector<ModuleEntry>* modules, std::vector<Warning>* notes) {
  ABICHECK_ASSIGN_OR_RETURN(std::vector<std::string> in_index, IndexBuilds(in));
  if (!in_index.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(in, ": an index holds builds to check against (--against), not modules"));
  }
  ABICHECK_ASSIGN_OR_RETURN(ExpandedInput ex, ExpandInput(in, ToReadLimits(limits)));
  for (const std::string& n : ex.notes) notes->push_back({in, n});
  if (ex.objects.empty()) {
    // A pure-Python wheel among dist/*.whl has nothing the loader could refuse: it passes, said.
    if (ex.kind == "archive") {
      notes->push_back({in,
                        "no shared object in this archive (pure Python): nothing to load, "
                        "nothing that can fail to"});
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat(in, ": no module to check in this ", ex.kind,
                                                   " (it holds no ELF shared object)"));
  }
  const PackageMetadata md = ParseMetadata(TextMember(ex, ".dist-info/METADATA"));
  auto group = std::make_shared<ModuleGroup>();
  group->package = PackagesOf(ex);
  group->objects = std::move(ex.objects);
  if (ex.kind == "archive") {
    group->tree = std::make_shared<FileTree>(ex.path);
    for (const InputFile& f : group->objects)
      group->tree->Add(f.name.substr(f.name.rfind('!') + 1), f);
  }
  absl::flat_hash_map<absl::string_view, size_t> count;
  for (size_t i = 0; i < group->objects.size(); ++i) {
    group->place.push_back(count[group->package[i]]++);
    group->by_basename[Basename(group->objects[i].name)].push_back(i);
  }
  for (size_t i = 0; i < group->objects.size(); ++i) {
    ModuleEntry e;
    e.group = group;
    e.self = i;
    e.info.label = ModuleLabel(ex, e.module());
    e.info.package = md.name;
    e.info.version = md.version;
    e.info.torch_requirements = md.torch_requirements;
    e.info.extension_module = DefinesPyInit(e.module());
    modules->push_back(std::move(e));
  }
  return absl::OkStatus();
}

// The matrix's columns: per build, its providers and global-scope objects (the common ones
// first); one column of the common ones alone when no build is given.
struct Columns {
  std::vector<std::vector<InputFile>> providers, preload;
  std::vector<std::shared_ptr<const FileTree>> trees;  // the wheel builds' (E10)
};

// One world per package and build (docs/loader-model.md E7): the package's objects and the
// build's libraries loaded once, each module checked in it with its own object set aside —
// linear in the package's size. A module the world cannot stand for (another object needs it, it
// brought something in, another machine) is checked in a world of its own.
class PackageChecks {
 public:
  PackageChecks(const Columns& columns, const CommonInputs& common, const CheckOptions& options,
                const std::vector<ModuleEntry>& modules)
      : columns_(columns), common_(common), options_(options) {
    for (const ModuleEntry& e : modules) ++worlds_[{e.group.get(), e.package()}].remaining;
    for (const auto& t : columns.trees) parses_.AddTree(t);
    for (const ModuleEntry& e : modules) {
      if (e.group->tree) parses_.AddTree(e.group->tree);
    }
  }

  // The module's report against every build, in column order.
  absl::StatusOr<std::vector<Report>> Check(const ModuleEntry& e) {
    const std::pair<const ModuleGroup*, std::string> key{e.group.get(), e.package()};
    PackageWorlds& pw = worlds_[key];
    if (pw.inputs.empty()) Prepare(e, &pw);
    const size_t own = e.group->place[e.self];  // its place among its package's objects
    Report refused;                             // the module's header, read once for all builds
    ABICHECK_ASSIGN_OR_RETURN(std::optional<ElfFile> probe, ProbeModule(e.module(), &refused));
    std::vector<Report> reports;
    for (size_t b = 0; b < columns_.providers.size(); ++b) {
      Report r;
      if (!probe) {
        r = refused;
      } else {
        ABICHECK_ASSIGN_OR_RETURN(r, CheckOne(e, *probe, own, b, pw));
      }
      if (!r.loads) MarkOrderDependent(*e.group, e.package(), &r);
      reports.push_back(std::move(r));
    }
    if (--pw.remaining == 0) worlds_.erase(key);  // its objects are done with
    return reports;
  }

 private:
  static constexpr size_t kNotGiven = ~size_t{0};
  struct PackageWorlds {
    std::vector<InputFile> objects;  // the package's, in order
    // Per object, its place among a world's given objects; kNotGiven for a vendored library
    // (E7: it loads only as what another object needs, found where pip installs it).
    std::vector<size_t> slot;
    size_t given = 0;                            // how many of the package's a world is given
    std::vector<std::vector<InputFile>> inputs;  // per build: the given objects + build providers
    std::vector<std::optional<World>> worlds;    // per build; nullopt: none could be made
    size_t remaining = 0;                        // modules still to check
  };

  void Prepare(const ModuleEntry& e, PackageWorlds* pw) {
    const std::vector<InputFile>& all = e.group->objects;
    for (size_t j = 0; j < all.size(); ++j) {
      if (e.group->package[j] == e.package()) pw->objects.push_back(all[j]);
    }
    std::optional<ElfFile> probe;
    for (const InputFile& f : pw->objects) {
      Report refused;
      absl::StatusOr<std::optional<ElfFile>> p = ProbeModule(f, &refused);
      if (p.ok() && *p) {
        probe = std::move(**p);
        break;
      }
    }
    std::vector<InputFile> own;
    for (const InputFile& f : pw->objects) {
      pw->slot.push_back(IsVendoredLibrary(f.name) ? kNotGiven : own.size());
      if (pw->slot.back() != kNotGiven) own.push_back(f);
    }
    pw->given = own.size();
    for (size_t b = 0; b < columns_.providers.size(); ++b) {
      std::vector<InputFile> inputs = own;
      inputs.insert(inputs.end(), columns_.providers[b].begin(), columns_.providers[b].end());
      absl::StatusOr<World> w =
          probe ? PrepareWorld(*probe, inputs, columns_.preload[b], common_.python_file(), options_,
                               &parses_, pw->given)
                : absl::StatusOr<World>(absl::UnknownError("no module to make it"));
      pw->inputs.push_back(std::move(inputs));
      pw->worlds.push_back(w.ok() ? std::optional<World>(*std::move(w)) : std::nullopt);
    }
  }

  absl::StatusOr<Report> CheckOne(const ModuleEntry& e, const ElfFile& probe, size_t own, size_t b,
                                  PackageWorlds& pw) {
    std::optional<World>& w = pw.worlds[b];
    const size_t slot = pw.slot[own];
    // E7: a vendored library the module names by its soname is loaded only because another of
    // the package's objects needed it (by its hashed file name): the import meets this module
    // without it, so those objects are not in its world.
    absl::flat_hash_set<size_t> bringers;
    if (w) {
      for (const Object* o : w->loader->loaded()) {
        if (!IsVendoredLibrary(o->path) || !o->elf || o->elf->soname().empty()) continue;
        const absl::string_view soname = o->elf->soname();
        if (soname == Basename(o->path)) continue;  // found by its own name: a search finds it
        if (std::find(probe.needed().begin(), probe.needed().end(), soname) == probe.needed().end())
          continue;
        for (size_t j : DependentsOf(*w, o, pw.given)) bringers.insert(j);
      }
    }
    if (w && slot != kNotGiven && bringers.empty() && w->set_aside_ok[slot] &&
        probe.machine() == w->machine && probe.is_64() == w->is_64 &&
        probe.big_endian() == w->big_endian) {
      return CheckInWorld(*w, e.module(), pw.inputs[b], options_, ModuleAlreadyLoaded::kIsAnError,
                          w->given[slot]);
    }
    // E7: the package's objects that need this one, directly or through others (its $ORIGIN
    // siblings, found where pip installs them), cannot have loaded before it: they are not in
    // its world. A vendored library is in the world only as what another object needed.
    const Object* self = nullptr;
    if (w && slot != kNotGiven) {
      self = w->given[slot];
    } else if (w) {  // loaded as what another needed: the same bytes, or the same file on disk
      const std::optional<FileId>& id = parses_.Given(e.module()).file_id;
      for (const Object* o : w->loader->loaded()) {
        if (o->blob == e.module().blob || (id && o->file_id && *o->file_id == *id)) self = o;
      }
    }
    const absl::flat_hash_set<size_t> dependents =
        self ? DependentsOf(*w, self, pw.given) : absl::flat_hash_set<size_t>{};
    std::vector<InputFile> providers;
    providers.reserve(pw.inputs[b].size());
    size_t own_package = 0;
    for (size_t j = 0; j < pw.inputs[b].size(); ++j) {
      if (j == slot || dependents.contains(j) || bringers.contains(j)) continue;
      providers.push_back(pw.inputs[b][j]);
      own_package += j < pw.given ? 1 : 0;
    }
    return CheckObjects(e.module(), providers, columns_.preload[b], common_.python_file(), options_,
                        ModuleAlreadyLoaded::kIsAnError, &parses_, own_package);
  }

  // Of the first `count` given objects (the package's), those whose dependency closure in `w`
  // holds `self`.
  static absl::flat_hash_set<size_t> DependentsOf(const World& w, const Object* self,
                                                  size_t count) {
    absl::flat_hash_set<const Object*> needing = {self};
    for (bool grew = true; grew;) {
      grew = false;
      for (const Object* o : w.loader->loaded()) {
        if (needing.contains(o)) continue;
        for (const Object* d : o->deps) {
          if (d != nullptr && needing.contains(d)) {
            needing.insert(o);
            grew = true;
            break;
          }
        }
      }
    }
    absl::flat_hash_set<size_t> out;
    for (size_t j = 0; j < count && j < w.given.size(); ++j) {
      if (w.given[j] != self && needing.contains(w.given[j])) out.insert(j);
    }
    return out;
  }

  const Columns& columns_;
  const CommonInputs& common_;
  const CheckOptions& options_;
  ParseCache parses_;  // each build's libraries are parsed once for all the modules
  absl::flat_hash_map<std::pair<const ModuleGroup*, std::string>, PackageWorlds> worlds_;
};

}  // namespace

namespace {

// Several releases of one package among the modules (`check 'pip:sgl-kernel>=0.3' --against
// VENV`, or wheels of several versions): the newest whose every object loads against every build
// (an unknown verdict is not loading), said first among the notes (issue 33).
void NewestLoadingReleases(Matrix* m) {
  const size_t nb = m->builds.size();
  std::vector<std::string> packages;
  absl::flat_hash_map<std::string, std::vector<std::string>> versions;  // newest first
  absl::flat_hash_map<std::string, bool> loads;                         // "name version"
  for (size_t i = 0; i < m->module_info.size(); ++i) {
    const ModuleInfo& info = m->module_info[i];
    if (info.package.empty() || info.version.empty()) continue;
    std::vector<std::string>& v = versions[info.package];
    if (v.empty()) packages.push_back(info.package);
    if (std::find(v.begin(), v.end(), info.version) == v.end()) v.push_back(info.version);
    bool ok = true;
    for (size_t b = 0; b < nb; ++b) ok = ok && m->cells[i * nb + b].report.ok();
    auto [it, fresh] = loads.try_emplace(absl::StrCat(info.package, " ", info.version), ok);
    if (!fresh) it->second = it->second && ok;
  }
  std::vector<Warning> said;
  for (const std::string& p : packages) {
    std::vector<std::string>& v = versions[p];
    if (v.size() < 2) continue;
    std::sort(v.begin(), v.end(),
              [](const std::string& a, const std::string& b) { return CompareVersions(a, b) > 0; });
    const auto newest = std::find_if(v.begin(), v.end(), [&](const std::string& ver) {
      return loads[absl::StrCat(p, " ", ver)];
    });
    const std::string against = nb == 1 ? "against the build" : "against every build";
    said.push_back({p, newest == v.end()
                           ? absl::StrFormat("none of the %d releases checked loads %s (%s)",
                                             v.size(), against, absl::StrJoin(v, ", "))
                           : absl::StrFormat("newest release that loads %s: %s (of %d checked: %s)",
                                             against, *newest, v.size(), absl::StrJoin(v, ", "))});
  }
  m->notes.insert(m->notes.begin(), said.begin(), said.end());
}

}  // namespace

absl::StatusOr<Matrix> CheckMatrix(const std::vector<std::string>& module_inputs,
                                   const std::vector<std::string>& build_args,
                                   const CheckOptions& options, const InputLimits& limits) {
  Matrix m;
  ABICHECK_ASSIGN_OR_RETURN(const std::vector<std::string> module_args,
                            ExpandPipInputs(module_inputs, options, limits, "", &m.notes));
  ABICHECK_ASSIGN_OR_RETURN(const std::vector<std::string> build_paths,
                            ExpandPipInputs(build_args, options, limits, "", &m.notes));
  const std::vector<std::string> unique_modules = Dedupe(module_args, "a module input", &m.notes);
  const std::vector<std::string> unique_builds =
      Dedupe(build_paths, "a build (--against)", &m.notes);
  // Each build input read once; an index of several builds is several columns.
  std::vector<Build> builds;
  for (size_t i = 0; i < unique_builds.size(); ++i) {
    const std::string& b = unique_builds[i];
    SayInputBegins(limits, "builds", i, unique_builds.size(), b);
    const PipTarget pip = PipTargetOf(options, limits, "");
    ABICHECK_ASSIGN_OR_RETURN(
        std::vector<Build> opened,
        OpenBuildsAs(b, limits, WheelDependencies::kLaidOut, options.find_links, &pip));
    for (Build& o : opened) builds.push_back(std::move(o));
  }
  std::vector<ModuleEntry> modules;
  // A module's device code lies in the middle of the file: with a GPU to judge, archive members
  // are kept whole (docs/gpu-model.md).
  InputLimits module_limits = limits;
  module_limits.whole_members = limits.whole_members || !options.gpu.empty();
  for (size_t i = 0; i < unique_modules.size(); ++i) {
    SayInputBegins(limits, "modules", i, unique_modules.size(), unique_modules[i]);
    ABICHECK_RETURN_IF_ERROR(ExpandModules(unique_modules[i], module_limits, &modules, &m.notes));
  }
  ABICHECK_ASSIGN_OR_RETURN(CommonInputs common, ReadCommonInputs(options, limits, &m.notes));
  Columns columns;
  for (const Build& b : builds) {
    ABICHECK_RETURN_IF_ERROR(NeedObjects(b));
    for (const std::string& n : b.state().input.notes) m.notes.push_back({b.name(), n});
    columns.providers.push_back(common.providers);
    columns.preload.push_back(common.preload);
    const Build::State& s = b.state();
    columns.providers.back().insert(columns.providers.back().end(), s.providers.begin(),
                                    s.providers.end());
    columns.preload.back().insert(columns.preload.back().end(), s.preload.begin(), s.preload.end());
    if (s.tree) columns.trees.push_back(s.tree);
    m.builds.push_back(b.name());
    m.build_versions.push_back(s.torch_version);
  }
  if (builds.empty()) {
    columns.providers.push_back(common.providers);
    columns.preload.push_back(common.preload);
    m.builds.push_back("(given libraries)");
    m.build_versions.push_back("");
  }
  for (const ModuleEntry& e : modules) {
    m.modules.push_back(e.module().name);
    m.module_info.push_back(e.info);
  }
  PackageChecks checks(columns, common, options, modules);
  for (const ModuleEntry& e : modules) {
    ABICHECK_ASSIGN_OR_RETURN(std::vector<Report> reports, checks.Check(e));
    for (size_t b = 0; b < reports.size(); ++b)
      m.cells.push_back({e.module().name, m.builds[b], std::move(reports[b])});
  }
  MarkTorchAbi(&m);
  if (columns.providers.size() > 1) {
    MarkExportingBuilds(columns.providers, &m);
    Recommend(&m);
  }
  NewestLoadingReleases(&m);
  return m;
}

}  // namespace abicheck
