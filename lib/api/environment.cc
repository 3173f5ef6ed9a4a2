// CheckEnvironment(): an installed Python environment, as `import torch` and then each
// package's own loads would meet it (docs/loader-model.md E1-E7). Builds are placed at the
// environment's site-packages/torch so that their RPATH reaches its nvidia-* libraries.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <tuple>

#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "lib/api/build.h"
#include "lib/api/check_internal.h"
#include "lib/api/findings.h"
#include "lib/api/given_loads.h"
#include "lib/api/limits.h"
#include "lib/diagnose/diagnose.h"
#include "lib/elf/elf_file.h"
#include "lib/inputs/build_world.h"
#include "lib/inputs/inputs.h"
#include "lib/inputs/python_env.h"
#include "lib/inputs/requirements.h"
#include "lib/io/byte_source.h"
#include "lib/resolve/device_check.h"
#include "lib/resolve/ld_cache.h"
#include "lib/resolve/world.h"
#include "lib/results/results.h"
#include "lib/util/paths.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

// One column: a torch build as `import torch` would have loaded it in this environment.
struct TorchBuild {
  std::string name;  // the column's name
  std::string version;
  std::vector<InputFile> providers;  // its libraries and modules, and the CUDA preloads (E4)
  std::vector<InputFile> preload;    // libtorch_global_deps (E1)
  std::optional<InputFile> torch_c;  // torch/_C*.so, checked as `import torch` itself
  bool from_index = false;           // an index: exports only, no relocations to check
  bool installed = false;            // the environment's own torch, as installed
  bool published = false;            // read from a package index (a URL pip resolved)
  // A wheel installed over the environment with what it pins (E11): the site-packages as pip
  // would leave it; null for the installed build and builds given as directories.
  std::shared_ptr<const FileTree> overlay;
  std::vector<std::string> replaced;  // the installed distributions pip removes for it
  // Per replaced distribution, the shared objects its pinned version installs (BuildWorld).
  std::vector<std::pair<std::string, std::vector<std::string>>> replaced_objects;
  // Its world lacking pinned wheels (the overlay's not_given(), E12): the libraries import torch
  // preloads (E4) from files of the environment that satisfy none of its pins, which such a
  // wheel may replace.
  std::vector<std::string> preloaded_from_disk;
  // Of `replaced`, those whose required version's wheel is not given, with the requirement.
  std::vector<std::pair<std::string, std::string>> replaced_not_given;
};

// The file names in `dir` as the build's overlay (E11) leaves the directory, or as on disk.
std::vector<std::string> NamesInOverlay(const FileTree* overlay, const std::string& dir) {
  std::vector<std::string> names;
  for (std::string& n : FileNamesIn(dir)) {
    if (overlay == nullptr || !overlay->Hides(absl::StrCat(dir, "/", n)))
      names.push_back(std::move(n));
  }
  if (overlay == nullptr) return names;
  if (std::optional<std::string> d = overlay->Directory(dir)) {
    for (const InputFile* f : overlay->FilesIn(*d)) {
      std::string n = Basename(f->path);
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(std::move(n));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Splits a build's objects into the roles import torch gives them, placing each at
// site/<its torch-relative path>.
absl::Status AssembleBuild(const PythonEnvironment& env, std::vector<InputFile> objects,
                           absl::string_view init_py, absl::string_view version_py, TorchBuild* b) {
  for (InputFile& f : objects) {
    std::string rel = TorchRelative(f.name);
    if (rel.empty()) rel = absl::StrCat("torch/lib/", Basename(f.name));
    f.path = absl::StrCat(env.site_packages, "/", rel);
    const std::string base = Basename(rel);
    if (IsGlobalDeps(f)) {
      b->preload.push_back(std::move(f));
      continue;
    }
    if (rel.find('/', 6) == std::string::npos && absl::StartsWith(base, "_C.") && !b->torch_c) {
      b->torch_c = f;  // torch/_C.cpython-312-x86_64-linux-gnu.so
    }
    b->providers.push_back(std::move(f));
  }
  b->version = PyStringAssignment(version_py, "__version__");
  // E4: the CUDA libraries torch preloads once libtorch_global_deps (and so libcudart) loaded,
  // where the build's overlay (E11) or the disk has them.
  const FileTree* overlay = b->overlay.get();
  for (const std::string& p : TorchPreloadPaths(
           env.site_packages, !b->preload.empty(), init_py, version_py,
           [overlay](const std::string& dir) { return NamesInOverlay(overlay, dir); })) {
    if (const InputFile* f = overlay ? overlay->File(p) : nullptr) {
      b->providers.push_back(*f);
      continue;
    }
    if (overlay != nullptr && !overlay->not_given().empty() && !overlay->KeptOnDisk(p))
      b->preloaded_from_disk.push_back(p);
    ABICHECK_ASSIGN_OR_RETURN(InputFile f, SingleFile(p, "CUDA library"));
    b->providers.push_back(std::move(f));
  }
  return absl::OkStatus();
}

absl::StatusOr<TorchBuild> InstalledBuild(const PythonEnvironment& env, const InputLimits& limits) {
  TorchBuild b;
  ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in,
                            ExpandInstalledDirectory(env.torch_dir, ToReadLimits(limits)));
  std::string init = ReadSmallTextFile(env.torch_dir + "/__init__.py").value_or("");
  std::string version = ReadSmallTextFile(env.torch_dir + "/version.py").value_or("");
  ABICHECK_RETURN_IF_ERROR(AssembleBuild(env, std::move(in.objects), init, version, &b));
  if (b.version.empty()) b.version = env.distributions[env.torch].metadata.version;
  b.name = absl::StrCat("torch ", b.version, " (installed)");
  b.installed = true;
  return b;
}

// E11: a torch wheel installed in the environment is the wheel and what it pins, as pip would
// install them there: a requirement an installed distribution satisfies keeps it; the rest
// replace what is installed of them (their files hidden) or are added.
WorldPlacement PlacementIn(const PythonEnvironment& env) {
  WorldPlacement into;
  into.site_packages = env.site_packages;
  for (const InstalledDistribution& d : env.distributions) {
    into.installed.push_back({NormalizeDistName(d.metadata.name), d.metadata.version,
                              d.metadata.requirements, d.shared_objects});
  }
  return into;
}

absl::StatusOr<TorchBuild> OtherBuild(const PythonEnvironment& env, const Build& opened,
                                      const std::vector<std::string>& find_links,
                                      const PipTarget* pip, const InputLimits& limits,
                                      std::string* changes) {
  TorchBuild b;
  b.name = opened.name();
  b.published = IsUrl(b.name);
  const std::string& arg = b.name;
  ExpandedInput in = opened.state().input;
  if (in.objects.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(arg, ": no ELF shared objects in this ", in.kind));
  }
  const WorldPlacement into = PlacementIn(env);
  // An index's build made from a wheel is placed as that wheel, from what was given (E12).
  const std::optional<ExpandedInput> indexed = IndexedWheel(in);
  ABICHECK_ASSIGN_OR_RETURN(std::optional<BuildWorld> world,
                            GatherBuildWorld(indexed ? *indexed : in, find_links,
                                             ToReadLimits(limits), &into, indexed ? nullptr : pip));
  if (world) {
    b.overlay = std::move(world->tree);
    b.replaced = std::move(world->replaced);
    b.replaced_objects = std::move(world->replaced_objects);
    b.replaced_not_given = std::move(world->replaced_not_given);
    std::vector<std::string> parts;
    if (!world->replacements.empty())
      parts.push_back(absl::StrCat("replaces ", absl::StrJoin(world->replacements, ", ")));
    if (!world->additions.empty()) {
      parts.push_back(absl::StrCat("adds ", world->additions.size(), ": ",
                                   absl::StrJoin(world->additions, ", ")));
    }
    *changes = absl::StrJoin(parts, "; ");
    if (!world->not_given.empty()) {
      absl::StrAppend(changes, "; not given: ", absl::StrJoin(world->not_given, ", "),
                      " (give the wheels with --find-links DIR)");
    }
  }
  const std::string init = TorchText(in, "__init__.py");
  const std::string version = TorchText(in, "version.py");
  b.from_index = in.kind == "index";
  ABICHECK_RETURN_IF_ERROR(AssembleBuild(env, std::move(in.objects), init, version, &b));
  return b;
}

// Of the packages `failing` with build `best`, those whose failing modules each fail the same
// way with every build: no torch choice fixes them (issue 32 item 4). `example`: the first one's
// first error.
void SameWithEveryBuild(const EnvironmentReport& env, size_t best,
                        const std::vector<std::string>& failing, std::vector<std::string>* names,
                        std::string* example) {
  const size_t nb = env.matrix.builds.size();
  names->clear();
  for (const EnvironmentPackage& p : env.packages) {
    if (std::find(failing.begin(), failing.end(), p.name) == failing.end()) continue;
    bool all_same = true;
    std::string first;
    for (size_t row : p.modules) {
      if (NothingInTheWay(env.matrix.cells[row * nb + best].report)) continue;
      std::string same = SameFailureWithEveryBuild(env.matrix, row);
      all_same = all_same && !same.empty();
      if (first.empty()) first = std::move(same);
    }
    if (!all_same) continue;
    names->push_back(p.name);
    if (example->empty()) *example = std::move(first);
  }
}

// The specifier of a torch requirement of `p` that leaves `version` out ("==2.9.1"); "" when
// none does, or the version is unknown. pip says such a requirement is not met when it installs
// that torch.
std::string SpecifierLeavingOut(const EnvironmentPackage& p, const std::string& version) {
  if (version.empty()) return "";
  for (const std::string& t : p.torch_requirements) {
    absl::StatusOr<Requirement> req = ParseRequirement(t);
    if (!req.ok()) continue;
    absl::StatusOr<bool> met = VersionSatisfies(version, req->specifier);
    if (met.ok() && !*met) return req->specifier;
  }
  return "";
}

std::string VersionOf(const EnvironmentReport& env, size_t b) {
  return b < env.matrix.build_versions.size() ? env.matrix.build_versions[b] : "";
}

// The packages that load with build `best` but whose own torch requirement leaves its version
// out, as a clause of the recommendation: pip says the requirement is not met when it installs
// that build (those in `failing` are said apart). "" when none.
std::string PinnedApartClause(const EnvironmentReport& env, size_t best,
                              const std::vector<std::string>& failing) {
  std::vector<std::string> pinned_apart;
  for (const EnvironmentPackage& p : env.packages) {
    if (std::find(failing.begin(), failing.end(), p.name) != failing.end()) continue;
    const std::string specifier = SpecifierLeavingOut(p, VersionOf(env, best));
    if (!specifier.empty())
      pinned_apart.push_back(absl::StrCat(p.name, " ", p.version, " (torch", specifier, ")"));
  }
  if (pinned_apart.empty()) return "";
  return absl::StrCat("; ", absl::StrJoin(pinned_apart, ", "),
                      pinned_apart.size() == 1 ? " loads with it but requires another torch"
                                               : " load with it but require another torch",
                      ": pip will say so as it installs it");
}

// What the choice among builds weighs besides the cells (docs/suggest.md).
struct BuildFacts {
  bool installed = false;  // the environment's own torch
  bool published = false;  // resolved by pip from an index: installable with a pip command
  size_t replaced = 0;     // installed distributions pip replaces to install it (E11)
  std::string version;     // torch's own version, "" when unknown
};

bool NewerOrSame(const EnvironmentReport& env, const std::vector<BuildFacts>& facts, size_t b,
                 size_t than) {
  if (!facts[b].version.empty() && !facts[than].version.empty())
    return CompareVersions(facts[b].version, facts[than].version) >= 0;
  return BuildVersion(env.matrix.builds[b]) >= BuildVersion(env.matrix.builds[than]);
}

// The build to recommend (docs/suggest.md), in order: the fewest packages failing; failing only
// packages that fail with the installed build now (never break what loads); the installed build;
// the fewest packages whose own torch requirement leaves it out (vllm pins torch==2.14.0: pip
// would warn of one more); the fewest installed packages replaced; the newest; the one given last.
size_t ChooseBuild(const EnvironmentReport& env,
                   const std::vector<std::vector<std::string>>& failing,
                   const std::vector<BuildFacts>& facts) {
  const size_t nb = env.matrix.builds.size();
  const std::vector<std::string>* now = nullptr;
  for (size_t b = 0; b < nb; ++b) {
    if (facts[b].installed) now = &failing[b];
  }
  auto key = [&](size_t b) {
    size_t pinned_apart = 0;
    for (const EnvironmentPackage& p : env.packages)
      pinned_apart += SpecifierLeavingOut(p, VersionOf(env, b)).empty() ? 0 : 1;
    const bool breaks =
        now != nullptr &&
        std::any_of(failing[b].begin(), failing[b].end(), [&](const std::string& n) {
          return std::find(now->begin(), now->end(), n) == now->end();
        });
    return std::make_tuple(failing[b].size(), breaks, !facts[b].installed, pinned_apart,
                           facts[b].replaced);
  };
  size_t best = 0;
  auto best_key = key(0);
  for (size_t b = 1; b < nb; ++b) {
    const auto k = key(b);
    if (k < best_key || (k == best_key && NewerOrSame(env, facts, b, best))) {
      best = b;
      best_key = k;
    }
  }
  return best;
}

// A word of a shell command, quoted when it needs to be.
std::string ShellWord(const std::string& w) {
  const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || absl::StrContains("_-./=:+@%,", c);
  });
  return plain ? w : absl::StrCat("'", absl::StrReplaceAll(w, {{"'", "'\\''"}}), "'");
}

// The command that installs requirement `req` in this environment (docs/suggest.md): its own
// interpreter's pip (PREFIX/bin/python -m pip, for a virtualenv or a prefix), with the index
// options the builds were resolved through; plain `pip` for a bare site-packages.
std::string InstallCommand(const EnvironmentReport& env, const std::string& req,
                           const CheckOptions& options) {
  std::string command = "pip";
  const std::string& site = env.site_packages;
  const size_t lib = site.rfind("/lib");
  if (lib != std::string::npos && absl::EndsWith(site, "/site-packages")) {
    const std::string python = absl::StrCat(site.substr(0, lib), "/bin/python");
    std::error_code ec;
    if (std::filesystem::exists(python, ec)) command = absl::StrCat(ShellWord(python), " -m pip");
  }
  absl::StrAppend(&command, " install ", ShellWord(req));
  for (const std::string& a : options.pip_index_args) absl::StrAppend(&command, " ", ShellWord(a));
  for (const std::string& d : options.find_links)
    absl::StrAppend(&command, " --find-links ", ShellWord(d));
  return command;
}

// In an environment the answer is about packages: the build with the fewest packages that will
// not load (every package, when import torch itself fails), as ChooseBuild weighs equals.
void RecommendByPackage(EnvironmentReport& env, const std::vector<bool>& unusable,
                        const std::vector<BuildFacts>& facts, const CheckOptions& options) {
  const size_t nb = env.matrix.builds.size();
  std::vector<std::vector<std::string>> failing(nb);
  for (size_t b = 0; b < nb; ++b) {
    for (const EnvironmentPackage& p : env.packages) {
      bool ok = !unusable[b];
      for (size_t row : p.modules)
        ok = ok && NothingInTheWay(env.matrix.cells[row * nb + b].report);
      if (!ok) failing[b].push_back(p.name);
    }
  }
  const size_t best = ChooseBuild(env, failing, facts);
  env.matrix.has_recommendation = true;
  Recommendation& r = env.matrix.recommendation;
  r.build = env.matrix.builds[best];
  NameRecommendation(env.matrix, best, &r);
  r.installed = facts[best].installed;
  if (!r.installed && facts[best].published && !r.requirement.empty())
    r.install_command = InstallCommand(env, r.requirement, options);
  r.every_module_loads = failing[best].empty();
  r.still_failing.clear();
  r.failing_modules = 0;
  // An unknown cell (C2c) never counts as loading; it is said apart, with what it needs.
  std::vector<std::string> unknown_packages;
  for (const EnvironmentPackage& p : env.packages) {
    bool fails = unusable[best], unknown = false;
    for (size_t row : p.modules) {
      const Report& cell = env.matrix.cells[row * nb + best].report;
      fails = fails || cell.verdict() == Verdict::kFails;
      unknown = unknown || cell.verdict() == Verdict::kUnknown;
    }
    if (unknown && !fails) unknown_packages.push_back(p.name);
  }
  for (size_t i = 0; i < env.matrix.modules.size(); ++i) {
    const Report& cell = env.matrix.cells[i * nb + best].report;
    if (!unusable[best] && cell.verdict() == Verdict::kUnknown) {
      ++r.unknown_modules;
      AddNotGiven(cell, &r.not_given);
    } else if (unusable[best] || !NothingInTheWay(cell)) {
      r.still_failing.push_back(env.matrix.modules[i]);
      ++r.failing_modules;
    }
  }
  const size_t fails = failing[best].size() - unknown_packages.size();
  if (r.every_module_loads) {
    r.summary = r.installed
                    ? absl::StrCat("keep ", r.label,
                                   ", the best of the builds checked: every package "
                                   "loads with it; nothing to install")
                    : absl::StrCat("install ", Installable(r), ": every package loads with it");
  } else if (fails == 0) {
    r.summary = absl::StrFormat(
        "no build is known to load every package: with %s none fails, but %d of %d cannot be "
        "told without %s: %s",
        r.label, unknown_packages.size(), env.packages.size(), absl::StrJoin(r.not_given, ", "),
        absl::StrJoin(unknown_packages, ", "));
  } else {
    std::vector<std::string> failing_names;
    for (const std::string& n : failing[best]) {
      if (std::find(unknown_packages.begin(), unknown_packages.end(), n) == unknown_packages.end())
        failing_names.push_back(n);
    }
    r.summary =
        absl::StrFormat("no build loads every package; %s leaves the fewest failing, %d of %d: %s",
                        r.label, fails, env.packages.size(), absl::StrJoin(failing_names, ", "));
    std::string first_same;  // (where import torch fails with it, every package fails)
    if (!unusable[best])
      SameWithEveryBuild(env, best, failing_names, &r.fail_with_every_build, &first_same);
    absl::StrAppend(&r.summary, SameWithEveryBuildClause(r.fail_with_every_build, first_same));
    if (!unknown_packages.empty()) {
      absl::StrAppendFormat(&r.summary, "; %d cannot be told without %s: %s",
                            unknown_packages.size(), absl::StrJoin(r.not_given, ", "),
                            absl::StrJoin(unknown_packages, ", "));
    }
  }
  absl::StrAppend(&r.summary, PinnedApartClause(env, best, failing[best]));
  if (r.installed && !r.every_module_loads)
    absl::StrAppend(&r.summary, "; it is the installed build: nothing to install");
}

// The requirement build `b` replaces the distribution `name` (normalized) by, when no wheel of
// it was given (E12); nullptr otherwise.
const std::string* ReplacedNotGiven(const TorchBuild& b, const std::string& name) {
  for (const auto& [dist, pin] : b.replaced_not_given) {
    if (dist == name) return &pin;
  }
  return nullptr;
}

// One CheckEnvironment call: the environment read, its builds, and what every check shares.
class EnvironmentCheck {
 public:
  EnvironmentCheck(const std::string& path, PythonEnvironment env, const CheckOptions& options)
      : path_(path), env_(std::move(env)), opts_(options) {
    out_.environment = path;
    out_.site_packages = env_.site_packages;
    out_.python_version = env_.python_version;
    out_.interpreter = env_.interpreter;
    if (env_.torch >= 0) out_.torch_version = env_.distributions[env_.torch].metadata.version;
    for (const std::string& n : env_.notes) out_.matrix.notes.push_back({path, n});
  }

  absl::StatusOr<EnvironmentReport> Run(const std::vector<std::string>& against,
                                        const InputLimits& limits) {
    ABICHECK_RETURN_IF_ERROR(OpenTorchBuilds(against, limits));
    build_worlds_.resize(builds_.size());
    if (opts_.diagnose) {
      // Every failing object is diagnosed against torch's libraries: their names by base name
      // are made on another core while the verdicts are made here.
      std::vector<const SymbolTable*> tables;
      for (const TorchBuild& b : builds_) {
        for (const std::vector<InputFile>* inputs : {&b.providers, &b.preload}) {
          for (const InputFile& f : *inputs) tables.push_back(parses_.Given(f).syms.get());
        }
      }
      PrepareDiagnosis(tables, &parses_);
    }
    FindInterpreter();
    ABICHECK_RETURN_IF_ERROR(CheckArchitecture());
    for (const TorchBuild& b : builds_) ABICHECK_RETURN_IF_ERROR(ImportTorch(b));
    // Every shared object of every other distribution, and those no distribution owns (E6, E7).
    for (size_t i = 0; i < env_.distributions.size(); ++i) {
      const InstalledDistribution& d = env_.distributions[i];
      // torch is the build; nvidia-* are its CUDA libraries, checked where import torch loads
      // them.
      const std::string name = NormalizeDistName(d.metadata.name);
      if (static_cast<int>(i) == env_.torch || absl::StartsWith(name, "nvidia-")) continue;
      // A distribution another torch replaces (triton, cuda-bindings: E11) is part of that
      // build, not one of the user's packages: with every build replacing it by a wheel that
      // was read, it has no row.
      std::vector<bool> replaced;
      bool unread = false;  // a replacement whose wheel is not given: its rows are unknown
      for (const TorchBuild& b : builds_) {
        replaced.push_back(std::find(b.replaced.begin(), b.replaced.end(), name) !=
                           b.replaced.end());
        unread = unread || ReplacedNotGiven(b, name) != nullptr;
      }
      if (!unread && std::all_of(replaced.begin(), replaced.end(), [](bool r) { return r; }))
        continue;
      ABICHECK_RETURN_IF_ERROR(AddPackage(d.metadata.name, d.metadata.version,
                                          d.metadata.torch_requirements, d.shared_objects,
                                          d.problems, replaced));
    }
    std::vector<std::string> unowned;
    for (const std::string& f : env_.unowned) {
      if (!absl::StartsWith(f, env_.site_packages + "/nvidia/")) unowned.push_back(f);
    }
    ABICHECK_RETURN_IF_ERROR(
        AddPackage("(no package)", "", {}, unowned, {}, std::vector<bool>(builds_.size())));
    InheritUnknownImports();
    MarkTorchAbi(&out_.matrix);
    if (builds_.size() > 1) {
      std::vector<bool> unusable;  // an unknown import made its cells unknown instead
      for (const Report& r : out_.torch_imports) unusable.push_back(r.verdict() == Verdict::kFails);
      std::vector<BuildFacts> facts;
      for (const TorchBuild& b : builds_)
        facts.push_back({b.installed, b.published, b.replaced.size(), b.version});
      RecommendByPackage(out_, unusable, facts, opts_);
    }
    return std::move(out_);
  }

 private:
  const InputFile* python() const { return python_ ? &*python_ : nullptr; }

  absl::Status OpenTorchBuilds(const std::vector<std::string>& given, const InputLimits& limits) {
    // `pip:torch==X` for this environment's Python (issue 33).
    ABICHECK_ASSIGN_OR_RETURN(
        const std::vector<std::string> against,
        ExpandPipInputs(given, opts_, limits, env_.python_version, &out_.matrix.notes));
    if ((against.empty() || opts_.with_installed_build) && env_.torch >= 0) {
      ABICHECK_ASSIGN_OR_RETURN(TorchBuild b, InstalledBuild(env_, limits));
      builds_.push_back(std::move(b));
      out_.build_changes.emplace_back();
    }
    // Read alone (several at once when URLs); each placed in the environment after, one at a
    // time.
    const PipTarget pip = PipTargetOf(opts_, limits, env_.python_version);
    const WorldPlacement into = PlacementIn(env_);
    ABICHECK_ASSIGN_OR_RETURN(
        const std::vector<std::vector<Build>> read,
        OpenBuildInputs(against, limits, WheelDependencies::kAlone, opts_.find_links, &pip, &into));
    for (const std::vector<Build>& opened : read) {
      for (const Build& o : opened) {
        std::string changes;
        ABICHECK_ASSIGN_OR_RETURN(TorchBuild b,
                                  OtherBuild(env_, o, opts_.find_links, &pip, limits, &changes));
        builds_.push_back(std::move(b));
        out_.build_changes.push_back(std::move(changes));
      }
    }
    return absl::OkStatus();
  }

  void FindInterpreter() {
    if (env_.interpreter.empty()) return;
    absl::StatusOr<InputFile> f = SingleFile(env_.interpreter, "interpreter");
    if (f.ok()) {
      python_ = *std::move(f);
      opts_.python = python_->name;  // Py* references are then real references (E5)
    } else {
      out_.matrix.notes.push_back({path_, std::string(f.status().message())});
    }
  }

  // A site-packages of another architecture than its interpreter: nothing in it can load.
  absl::Status CheckArchitecture() {
    if (!python_) return absl::OkStatus();
    ABICHECK_ASSIGN_OR_RETURN(ElfFile interp,
                              ElfFile::Parse(python_->name, python_->blob->bytes()));
    for (const TorchBuild& b : builds_) {
      if (!b.torch_c) continue;
      ABICHECK_ASSIGN_OR_RETURN(ElfFile c,
                                ElfFile::Parse(b.torch_c->name, b.torch_c->blob->bytes()));
      if (c.machine() != interp.machine() || c.is_64() != interp.is_64()) {
        return absl::FailedPreconditionError(
            absl::StrFormat("%s: built for %s, but the environment's interpreter %s is for %s",
                            b.torch_c->name, c.MachineName(), python_->name, interp.MachineName()));
      }
    }
    return absl::OkStatus();
  }

  // E12: a library import torch preloads from files of the environment that satisfy none of the
  // build's pins may be replaced by a wheel its world lacks: loads cannot be said.
  void PreloadsTheInstallMayReplace(const TorchBuild& b, Report* r) const {
    if (r->verdict() == Verdict::kFails || b.preloaded_from_disk.empty() || !b.overlay) return;
    const std::vector<std::string>& not_given = b.overlay->not_given();
    r->loads = false;
    for (const std::string& pin : not_given) {
      if (std::find(r->unknown_because.begin(), r->unknown_because.end(), pin) ==
          r->unknown_because.end())
        r->unknown_because.push_back(pin);
    }
    r->warnings.push_back(
        {b.name, absl::StrCat("import torch preloads ", Label(b.preloaded_from_disk.front()),
                              b.preloaded_from_disk.size() > 1
                                  ? absl::StrCat(" and ", b.preloaded_from_disk.size() - 1,
                                                 " more files of the environment")
                                  : ", a file of the environment",
                              ", which the wheels the build pins and that are not given (",
                              absl::StrJoin(not_given, ", "),
                              ") may replace; whether it imports cannot be told (give them "
                              "with --find-links DIR)")});
  }

  // import torch itself, per build: torch/_C against the rest of the build.
  absl::Status ImportTorch(const TorchBuild& b) {
    out_.matrix.builds.push_back(b.name);
    // The installed build's name says it already ("torch 2.9.1 (installed)").
    out_.matrix.build_versions.push_back(b.installed ? std::string() : b.version);
    if (!b.torch_c) {
      Report r;
      r.module = b.name;
      r.warnings.push_back({b.name, "no torch/_C*.so in this build: import torch not checked"});
      r.loads = true;
      out_.torch_imports.push_back(std::move(r));
      return absl::OkStatus();
    }
    if (b.from_index) {
      // An index keeps what the build's libraries export, which is what the packages' objects are
      // checked against, but not torch/_C's relocations: import torch cannot be told (issue 36:
      // env --against INDEX was refused whole).
      Report r;
      r.module = b.torch_c->name;
      r.loads = false;  // no problem found, and not checked: unknown
      r.unknown_because = {"torch/_C's relocations: the build's wheel or directory"};
      r.warnings.push_back(
          {b.name,
           "an index keeps what torch's libraries export, not torch/_C's relocations: import "
           "torch is not checked with it (give the wheel or directory for that); the packages "
           "are checked against its exports"});
      out_.torch_imports.push_back(std::move(r));
      return absl::OkStatus();
    }
    parses_.SetOverlay(b.overlay);
    std::vector<InputFile> rest;
    for (const InputFile& f : b.providers) {
      if (f.blob != b.torch_c->blob) rest.push_back(f);
    }
    ABICHECK_ASSIGN_OR_RETURN(Report r, CheckObjects(*b.torch_c, rest, b.preload, python(), opts_,
                                                     ModuleAlreadyLoaded::kIsAnError, &parses_));
    // E2a: torch's own libraries that torch/_C's load relies on must load themselves.
    ABICHECK_ASSIGN_OR_RETURN(std::optional<Warning> cannot,
                              GivenOf(static_cast<size_t>(&b - builds_.data())).Apply(&r));
    if (cannot) r.warnings.push_back(*std::move(cannot));
    const std::string tag =
        absl::StrCat("cpython-", absl::StrReplaceAll(env_.python_version, {{".", ""}}), "-");
    if (!env_.python_version.empty() && absl::StrContains(Basename(b.torch_c->name), "cpython-") &&
        !absl::StrContains(Basename(b.torch_c->name), tag)) {
      r.warnings.push_back(
          {b.torch_c->name,
           absl::StrCat("built for another Python than this environment's ", env_.python_version,
                        ": import torch fails to find torch._C")});
    }
    // C2c: what torch's own libraries need and this environment lacks (a CUDA 12 torch in a
    // CUDA 13 environment: libcudart.so.12) decides whether import torch succeeds here, and it
    // was not read: unknown, never "loads". The GPU driver alone may be absent (C2b).
    if (r.verdict() == Verdict::kLoads) {
      for (const std::string& m : r.providers_missing) {
        if (!IsGpuDriverLibrary(m)) r.unknown_because.push_back(m);
      }
      if (!r.unknown_because.empty()) {
        r.loads = false;
        r.warnings.push_back(
            {b.name,
             absl::StrCat("import torch needs ", absl::StrJoin(r.unknown_because, ", "),
                          ", which this environment does not have: pip installs ",
                          r.unknown_because.size() == 1 ? "it" : "them",
                          " with that torch (its Requires-Dist), so whether it imports here "
                          "cannot be told")});
      }
    }
    PreloadsTheInstallMayReplace(b, &r);
    if (!opts_.gpu.empty() && r.loads) ABICHECK_RETURN_IF_ERROR(TorchDeviceCode(b, &r));
    out_.torch_imports.push_back(std::move(r));
    return absl::OkStatus();
  }

  // A module that loads only once import torch did rests on it: where import torch cannot be
  // told (C2c), neither can the module — those that do not touch torch's libraries stand.
  void InheritUnknownImports() {
    const size_t nb = builds_.size();
    for (size_t b = 0; b < nb; ++b) {
      const Report& import = out_.torch_imports[b];
      if (import.verdict() != Verdict::kUnknown) continue;
      absl::flat_hash_set<absl::string_view> torch;
      for (const InputFile& f : builds_[b].providers) torch.insert(f.name);
      for (const InputFile& f : builds_[b].preload) torch.insert(f.name);
      for (size_t i = b; i < out_.matrix.cells.size(); i += nb) {
        Report& r = out_.matrix.cells[i].report;
        if (r.verdict() != Verdict::kLoads) continue;
        const bool uses_torch =
            std::any_of(r.libraries.begin(), r.libraries.end(),
                        [&](const LoadedLibrary& l) { return torch.contains(l.path); });
        if (!uses_torch) continue;
        r.loads = false;
        r.unknown_because = import.unknown_because;
        r.warnings.push_back(
            {r.module, "it loads if import torch does, which cannot be told here"});
      }
    }
  }

  // docs/gpu-model.md G5-G6 for torch itself: its CUDA kernels are in libtorch_cuda.
  absl::Status TorchDeviceCode(const TorchBuild& b, Report* r) {
    LdCache cache;  // only --cuda-driver host looks in it (CheckObjects read it for the rest)
    if (opts_.use_host && opts_.cuda_driver == "host") {
      const std::string root = opts_.sysroot == "/" ? "" : opts_.sysroot;
      ABICHECK_ASSIGN_OR_RETURN(cache, LdCache::Read(absl::StrCat(root, "/etc/ld.so.cache")));
    }
    ABICHECK_ASSIGN_OR_RETURN(ElfFile c, ElfFile::Parse(b.torch_c->name, b.torch_c->blob->bytes()));
    ABICHECK_ASSIGN_OR_RETURN(DeviceTarget target,
                              ResolveDeviceTarget(ToLoadOptions(opts_), cache, c.machine()));
    // libtorch_cuda.so first (r->device describes it), then its companions (_linalg, ...); the
    // first that cannot run is the one reported.
    std::vector<const InputFile*> cuda_libs;
    for (const InputFile& f : b.providers) {
      if (absl::StartsWith(Basename(f.path), "libtorch_cuda")) cuda_libs.push_back(&f);
    }
    std::sort(cuda_libs.begin(), cuda_libs.end(), [](const InputFile* x, const InputFile* y) {
      return Basename(x->path).size() < Basename(y->path).size();
    });
    LoadFindings device = DeviceCheckInput(*r);
    for (const InputFile* f : cuda_libs) {
      ABICHECK_ASSIGN_OR_RETURN(ElfFile lib, ElfFile::Parse(f->name, f->blob->bytes()));
      ABICHECK_RETURN_IF_ERROR(CheckDeviceCode(target, lib, *f->blob, &device,
                                               /*verdict_only=*/true, f->device_code.get()));
      if (!device.problems.empty()) break;
    }
    AppendDeviceFindings(std::move(device), r);
    return absl::OkStatus();
  }

  // How an object is named: its path in site-packages; one a RECORD places outside it (pip's
  // data files: intel-openmp's ../../../lib/libiomp5.so) by its path in the environment's prefix,
  // else in full.
  std::string Label(const std::string& file) const {
    const std::string& site = env_.site_packages;
    if (absl::StartsWith(file, site + "/")) return file.substr(site.size() + 1);
    const size_t lib = site.rfind("/lib/python");
    if (lib != std::string::npos && lib > 0 && absl::StartsWith(file, site.substr(0, lib + 1)))
      return file.substr(lib + 1);
    return file;
  }

  absl::Status AddPackage(const std::string& name, const std::string& version,
                          const std::vector<std::string>& pins,
                          const std::vector<std::string>& files,
                          const std::vector<std::string>& problems,
                          const std::vector<bool>& replaced) {
    EnvironmentPackage pkg{name, version, pins, {}, problems};
    std::vector<InputFile> objects;
    for (const std::string& f : files) {
      if (absl::StartsWith(f, env_.torch_dir + "/")) continue;  // part of the build
      ABICHECK_ASSIGN_OR_RETURN(InputFile in, SingleFile(f, "shared object"));
      ModuleInfo info;
      info.label = Label(f);
      info.package = name;
      info.version = version;
      info.torch_requirements = pins;
      info.extension_module = DefinesPyInit(in);
      pkg.modules.push_back(out_.matrix.modules.size());
      out_.matrix.modules.push_back(f);
      out_.matrix.module_info.push_back(info);
      objects.push_back(std::move(in));
    }
    std::vector<std::vector<Report>> reports(objects.size(), std::vector<Report>(builds_.size()));
    for (size_t b = 0; b < builds_.size(); ++b) {
      if (replaced[b]) {
        ABICHECK_RETURN_IF_ERROR(CheckReplaced(objects, name, b, &reports));
      } else {
        ABICHECK_RETURN_IF_ERROR(CheckPackage(objects, builds_[b], b, &reports));
      }
    }
    for (size_t i = 0; i < objects.size(); ++i) {
      for (size_t b = 0; b < builds_.size(); ++b) {
        out_.matrix.cells.push_back({objects[i].name, builds_[b].name, std::move(reports[i][b])});
      }
    }
    if (!pkg.modules.empty() || !pkg.problems.empty()) out_.packages.push_back(std::move(pkg));
    return absl::OkStatus();
  }

  // The message of the problem ld.so reports first (the first problem when none is marked).
  static std::string FirstError(const Report& r) {
    for (const Problem& p : r.problems) {
      if (p.first) return p.message;
    }
    return r.problems.empty() ? std::string() : r.problems.front().message;
  }

  // A package build `b` replaces with the version it pins (E11), where another build does not:
  // each row is what that version installs at its path, checked as the package's objects are;
  // a file it does not install is not there: nothing loads it, and its row is not installed
  // with that build (it counts for nothing).
  absl::Status CheckReplaced(const std::vector<InputFile>& objects, const std::string& name,
                             size_t b, std::vector<std::vector<Report>>* reports) {
    const TorchBuild& build = builds_[b];
    const std::string called =
        build.version.empty() ? build.name : absl::StrCat("torch ", build.version);
    if (const std::string* pin = ReplacedNotGiven(build, NormalizeDistName(name))) {
      // E12: the version it requires was not read: what stands at each path cannot be told.
      for (size_t i = 0; i < objects.size(); ++i) {
        Report& r = (*reports)[i][b];
        r.module = objects[i].name;
        r.loads = false;
        r.unknown_because = {*pin};
        r.warnings.push_back(
            {r.module, absl::StrCat("installing ", called, " replaces ", name,
                                    " with the version it requires (", *pin,
                                    "), whose wheel is not given: what that version installs "
                                    "here cannot be told (give it with --find-links DIR)")});
      }
      return absl::OkStatus();
    }
    std::vector<InputFile> present;
    std::vector<size_t> at;
    for (size_t i = 0; i < objects.size(); ++i) {
      if (const InputFile* f = build.overlay->File(objects[i].name)) {
        present.push_back(*f);
        at.push_back(i);
        continue;
      }
      Report& r = (*reports)[i][b];
      r.module = objects[i].name;
      r.loads = false;
      r.installed = false;
    }
    // What that version installs and the installed one does not have (no row of its own) is
    // checked with the rest: a row cannot be said to load when a file the same install brings
    // will not (import may load it), so such rows are unknown, and say which file and why.
    const size_t rows = present.size();
    for (const auto& [dist, installs] : build.replaced_objects) {
      if (dist != NormalizeDistName(name)) continue;
      for (const std::string& relative : installs) {
        const std::string path = absl::StrCat(env_.site_packages, "/", relative);
        const bool has_row = std::any_of(objects.begin(), objects.end(),
                                         [&](const InputFile& o) { return o.name == path; });
        if (const InputFile* f = build.overlay->File(path); f != nullptr && !has_row)
          present.push_back(*f);
      }
    }
    std::vector<std::vector<Report>> checked(present.size(), std::vector<Report>(builds_.size()));
    ABICHECK_RETURN_IF_ERROR(CheckPackage(present, build, b, &checked));
    std::string added_fails;
    for (size_t k = rows; k < present.size() && added_fails.empty(); ++k) {
      const Report& r = checked[k][b];
      if (r.ok()) continue;
      added_fails = absl::StrCat(
          present[k].name, ", which would not load: ",
          r.verdict() == Verdict::kFails
              ? FirstError(r)
              : absl::StrCat("it cannot be told without ", absl::StrJoin(r.unknown_because, ", ")));
    }
    for (size_t k = 0; k < rows; ++k) {
      Report& r = checked[k][b];
      if (!added_fails.empty() && r.ok()) {
        r.loads = false;
        r.unknown_because.push_back(absl::StrCat(name, " as installed with ", called));
        r.warnings.push_back({r.module, absl::StrCat("installing ", called, " replaces ", name,
                                                     " with the version it pins, which also "
                                                     "installs ",
                                                     added_fails)});
      }
      (*reports)[at[k]][b] = std::move(checked[k][b]);
    }
    return absl::OkStatus();
  }

  // E7: a package loads its own libraries before its modules need them. Its objects are loaded
  // after import torch in name order, pass after pass, until a pass loads no more. Its Python
  // code loads its own libraries by name, never auditwheel's vendored ones (`<pkg>.libs/`):
  // those load only as what another object needs, so a loaded one is no provider. A failing
  // object keeps the report of its first attempt, or of a later one made once every library of
  // the package it names in DT_NEEDED (not vendored) had loaded — the import loads those first.
  // The passes decide the verdicts; the diagnosis is made once, for the last attempt.
  absl::Status CheckPackage(const std::vector<InputFile>& objects, const TorchBuild& build,
                            size_t b, std::vector<std::vector<Report>>* reports) {
    parses_.SetOverlay(build.overlay);
    CheckOptions verdict_only = opts_;
    verdict_only.diagnose = false;
    std::vector<bool> loaded(objects.size(), false), attempted(objects.size(), false);
    std::vector<size_t> kept_with(objects.size(), 0);  // how many providers its kept report had
    const std::vector<std::vector<size_t>> own_needs = OwnLibrariesNeeded(objects);
    std::vector<InputFile> providers = build.providers;
    // Checked with the build's own providers, an object is checked in the world made of them
    // once per build for every package (CheckInWorld undoes each check); once the package's own
    // libraries have loaded, in a world of the package's.
    ReusedWorld passes, diagnosis;
    auto world_for = [&](const std::vector<InputFile>& with, ReusedWorld& own) -> ReusedWorld& {
      return with.size() == build.providers.size() ? build_worlds_[b] : own;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < objects.size(); ++i) {
        if (loaded[i]) continue;
        ABICHECK_ASSIGN_OR_RETURN(
            Report r, world_for(providers, passes)
                          .Check(objects[i], providers, build.preload, python(), verdict_only,
                                 ModuleAlreadyLoaded::kLoads, &parses_));
        // An object whose verdict is unknown (C2c) may have loaded: the objects that need it
        // are checked with it, and their verdict is then unknown too (InheritUnknown).
        const bool loads = r.loads || r.verdict() == Verdict::kUnknown;
        if (loads) {
          loaded[i] = true;
          changed = true;
          if (!IsVendoredLibrary(objects[i].name)) providers.push_back(objects[i]);
        }
        const bool ready =
            !own_needs[i].empty() && std::all_of(own_needs[i].begin(), own_needs[i].end(),
                                                 [&](size_t j) { return loaded[j]; });
        if (loads || !attempted[i] || ready) {
          (*reports)[i][b] = std::move(r);
          kept_with[i] = providers.size() - (loads && !IsVendoredLibrary(objects[i].name) ? 1 : 0);
        }
        attempted[i] = true;
      }
    }
    InheritUnknown(objects, b, reports);
    // Each failing object diagnosed with the providers of its kept attempt; in their order (a
    // reused world's providers only grow).
    std::vector<size_t> failing;
    for (size_t i = 0; i < objects.size() && opts_.diagnose; ++i) {
      if (!loaded[i]) failing.push_back(i);
    }
    std::stable_sort(failing.begin(), failing.end(),
                     [&](size_t x, size_t y) { return kept_with[x] < kept_with[y]; });
    for (size_t i : failing) {
      const std::vector<InputFile> then(
          providers.begin(), providers.begin() + static_cast<std::ptrdiff_t>(kept_with[i]));
      ABICHECK_ASSIGN_OR_RETURN((*reports)[i][b],
                                world_for(then, diagnosis)
                                    .Check(objects[i], then, build.preload, python(), opts_,
                                           ModuleAlreadyLoaded::kLoads, &parses_));
      NameOwnLibraries(objects, loaded, &(*reports)[i][b]);
    }
    // E2a: torch's libraries an object relied on must load themselves (import torch, where the
    // build has torch/_C, meets it first and says so).
    for (size_t i = 0; i < objects.size(); ++i) {
      ABICHECK_ASSIGN_OR_RETURN(std::optional<Warning> cannot, GivenOf(b).Apply(&(*reports)[i][b]));
      if (cannot) (*reports)[i][b].warnings.push_back(*std::move(cannot));
    }
    return absl::OkStatus();
  }

  // For each object, the package's own libraries (not vendored) it names in DT_NEEDED, by
  // soname or file name.
  std::vector<std::vector<size_t>> OwnLibrariesNeeded(const std::vector<InputFile>& objects) {
    std::vector<std::vector<size_t>> out(objects.size());
    for (size_t i = 0; i < objects.size(); ++i) {
      const ParsedObject& o = parses_.Given(objects[i]);
      if (!o.elf) continue;
      for (absl::string_view n : o.elf->needed()) {
        for (size_t j = 0; j < objects.size(); ++j) {
          if (j == i || IsVendoredLibrary(objects[j].name)) continue;
          const ParsedObject& d = parses_.Given(objects[j]);
          if (n == Basename(objects[j].name) || (d.elf && n == d.elf->soname()))
            out[i].push_back(j);
        }
      }
    }
    return out;
  }

  // A verdict that rests on an object of the package whose own verdict is unknown is unknown
  // too (C2c): `loads` there means only that it loads if that object does.
  static void InheritUnknown(const std::vector<InputFile>& objects, size_t b,
                             std::vector<std::vector<Report>>* reports) {
    absl::flat_hash_map<absl::string_view, size_t> unknown;  // by name, as its scope lists it
    for (size_t i = 0; i < objects.size(); ++i) {
      if ((*reports)[i][b].verdict() == Verdict::kUnknown) unknown.emplace(objects[i].name, i);
    }
    for (bool changed = !unknown.empty(); changed;) {
      changed = false;
      for (size_t i = 0; i < objects.size(); ++i) {
        Report& r = (*reports)[i][b];
        if (r.verdict() != Verdict::kLoads) continue;
        for (const LoadedLibrary& l : r.libraries) {
          auto it = unknown.find(l.path);
          if (it == unknown.end() || it->second == i) continue;
          const Report& dep = (*reports)[it->second][b];
          r.loads = false;
          r.unknown_because = dep.unknown_because;
          r.warnings.push_back(
              {r.module, absl::StrCat("it needs ", l.path, ", whose own verdict cannot be told")});
          unknown.emplace(objects[i].name, i);
          changed = true;
          break;
        }
      }
    }
  }

  // A missing library the package ships itself, but that did not load (torchaudio's
  // _torchaudio.so needs libtorchaudio.so): not "no file named ...", but which file it is and
  // that the package's import fails there first. The undefined symbols that file defines come
  // with it: torchcodec's custom_ops9 misses 82 facebook::torchcodec names of its core9, which
  // were each "no library in the load exports this name"; three or more are one cause.
  void NameOwnLibraries(const std::vector<InputFile>& objects, const std::vector<bool>& loaded,
                        Report* r) {
    std::vector<std::pair<std::string, const ParsedObject*>> own;  // (name needed, its file)
    for (Problem& p : r->problems) {
      if (p.kind != ProblemKind::kMissingLibrary) continue;
      for (size_t j = 0; j < objects.size(); ++j) {
        if (loaded[j] || objects[j].name == r->module) continue;
        const ParsedObject& o = parses_.Given(objects[j]);
        const absl::string_view soname = o.elf ? o.elf->soname() : "";
        if (p.library != soname && p.library != Basename(objects[j].name)) continue;
        p.hint = absl::StrCat(p.library, " is this package's own ", Label(objects[j].name),
                              ", which does not load itself (its report says why): the "
                              "package's import fails there first");
        if (o.syms) own.emplace_back(p.library, &o);
        break;
      }
    }
    std::vector<Problem*> members;
    std::vector<std::string> from;
    for (Problem& p : r->problems) {
      if (p.kind != ProblemKind::kUndefinedSymbol || !p.candidates.empty() || !p.cause.empty() ||
          (!p.hint.empty() && p.hint != kNotExportedHint))
        continue;
      const HashedName name(p.symbol);
      for (const auto& [library, o] : own) {
        bool defined = false;
        o->syms->ForEachNamedSymbol(
            name, [&](const Symbol& s, uint16_t) { return defined = s.exported(); });
        if (!defined) continue;
        p.hint = absl::StrCat("it comes with ", library,
                              ", this package's own library, which does not load (above)");
        members.push_back(&p);
        if (std::find(from.begin(), from.end(), library) == from.end()) from.push_back(library);
        break;
      }
    }
    if (members.size() < kMinCauseMembers) return;
    AddCause(
        "symbols_of_own_libraries",
        absl::StrCat("symbols of this package's own ", absl::StrJoin(from, ", "),
                     from.size() == 1 ? ", which does" : ", which do", " not load (above), e.g. ",
                     CauseExamples(members), ": they fail because ",
                     from.size() == 1 ? "it does" : "those do", " not load"),
        members, r);
  }

  const std::string path_;
  const PythonEnvironment env_;
  CheckOptions opts_;
  EnvironmentReport out_;
  std::vector<TorchBuild> builds_;
  std::optional<InputFile> python_;
  ParseCache parses_;  // torch's and the CUDA libraries are parsed once for every check
  // Per build, the world made of its own providers, which every package's checks start from
  // (CheckPackage); destroyed before the parses it holds.
  std::vector<ReusedWorld> build_worlds_;
  std::vector<std::unique_ptr<GivenLoads>> given_;  // per build, made when first asked

  // E2a: build `b`'s own libraries, each one's load made once, for import torch and every
  // package (builds_ does not change once the checks begin).
  GivenLoads& GivenOf(size_t b) {
    while (given_.size() <= b) given_.emplace_back();
    if (!given_[b]) {
      const TorchBuild& build = builds_[b];
      given_[b] = std::make_unique<GivenLoads>(
          GivenLoads::Inputs{&build.providers, &build.preload, python()}, opts_, &parses_);
    }
    return *given_[b];
  }
};

}  // namespace

absl::StatusOr<EnvironmentReport> CheckEnvironment(const std::string& path,
                                                   const std::vector<std::string>& against,
                                                   const CheckOptions& options,
                                                   const InputLimits& limits) {
  // Builds given besides it need no torch installed: "which torch should I install here?"
  ABICHECK_ASSIGN_OR_RETURN(PythonEnvironment env,
                            ReadPythonEnvironment(path, ToReadLimits(limits),
                                                  against.empty() ? InstalledTorch::kRequired
                                                                  : InstalledTorch::kOptional));
  return EnvironmentCheck(path, std::move(env), options).Run(against, limits);
}

namespace {

// --suggest REQ: a requirement on torch, or a bare specifier of torch's.
absl::StatusOr<std::string> GivenTorchRequirement(const std::string& req, std::string* why) {
  // A bare specifier is torch's; anything else must be a requirement on its own.
  const std::string text =
      absl::ascii_isalpha(static_cast<unsigned char>(req[0])) ? req : absl::StrCat("torch", req);
  absl::StatusOr<Requirement> r = ParseRequirement(text);
  if (!r.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--suggest ", req, ": not a requirement (", r.status().message(),
                     "); give one as 'torch>=2.8,<2.13', after the environment's PATH"));
  }
  if (r->name != "torch") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--suggest ", req, ": a requirement on ", r->name,
        ", not on torch: the builds suggested are torch's (give 'torch>=2.8,<2.13', or a bare "
        "specifier '>=2.8')"));
  }
  *why = absl::StrCat("the releases of ", text, " (as given)");
  return absl::StrCat("pip:", text);
}

// The version "two minor releases below" counts from: the installed torch's, else (none
// installed) the newest final release pip lists for the environment's Python.
absl::StatusOr<std::string> BaseTorchVersion(const std::string& path, const PythonEnvironment& env,
                                             const InputLimits& limits,
                                             const CheckOptions& options) {
  std::string installed;
  if (env.torch >= 0) {
    installed = env.distributions[env.torch].metadata.version;
  } else {
    ABICHECK_ASSIGN_OR_RETURN(
        const std::vector<std::string> releases,
        ListReleases("torch", PipTargetOf(options, limits, env.python_version)));
    for (const std::string& v : releases) {
      const bool final_release =  // no a1, rc1, .dev0, +local
          std::none_of(v.begin(), v.end(),
                       [](char c) { return absl::ascii_isalpha(c) || c == '+'; });
      if (final_release && (installed.empty() || CompareVersions(v, installed) > 0)) installed = v;
    }
    if (installed.empty())
      return absl::NotFoundError(absl::StrCat(path,
                                              ": no torch installed, and pip lists no torch "
                                              "release for this environment's Python"));
  }
  return installed;
}

}  // namespace

absl::StatusOr<std::string> SuggestTorchBuilds(const std::string& path, const std::string& req,
                                               std::string* why, const InputLimits& limits,
                                               const CheckOptions& options) {
  if (!req.empty()) return GivenTorchRequirement(req, why);
  // No torch installed yet: the packages' own requirements decide, else the newest releases.
  ABICHECK_ASSIGN_OR_RETURN(
      PythonEnvironment env,
      ReadPythonEnvironment(path, ToReadLimits(limits), InstalledTorch::kOptional));
  std::vector<std::string> specs, by;
  for (const InstalledDistribution& d : env.distributions) {
    for (const std::string& t : d.metadata.torch_requirements) {
      absl::StatusOr<Requirement> r = ParseRequirement(t);
      if (!r.ok() || r->specifier.empty()) continue;
      if (std::find(specs.begin(), specs.end(), r->specifier) == specs.end())
        specs.push_back(r->specifier);
      by.push_back(
          absl::StrCat(d.metadata.name, " ", d.metadata.version, " (torch", r->specifier, ")"));
    }
  }
  if (!specs.empty()) {
    // Packages installed side by side may pin torch apart (pip installs them with a warning):
    // then no release is every one's, and the builds checked are those from the oldest any of
    // them allows to the newest — which to install is then the one the fewest packages fail with.
    std::vector<VersionRange> ranges;
    for (const std::string& spec : specs) {
      absl::StatusOr<VersionRange> r = RangeOf(spec);
      if (r.ok()) ranges.push_back(*std::move(r));
    }
    if (ranges.size() == specs.size() && !Intersect(ranges)) {
      const std::string text = absl::StrCat("torch", SpecifierOf(Cover(ranges)));
      *why = absl::StrCat("the releases of ", text,
                          ": the installed packages' own torch requirements allow no release "
                          "together, so from the oldest one of them allows to the newest: ",
                          absl::StrJoin(by, ", "));
      return absl::StrCat("pip:", text);
    }
    const std::string text = absl::StrCat("torch", absl::StrJoin(specs, ","));
    *why = absl::StrCat("the releases of ", text,
                        ", which the installed packages' own torch "
                        "requirements allow: ",
                        absl::StrJoin(by, ", "));
    return absl::StrCat("pip:", text);
  }
  ABICHECK_ASSIGN_OR_RETURN(const std::string installed,
                            BaseTorchVersion(path, env, limits, options));
  std::vector<absl::string_view> parts = absl::StrSplit(installed, absl::MaxSplits('.', 2));
  int major = 0, minor = 0;
  if (parts.size() < 2 || !absl::SimpleAtoi(parts[0], &major) ||
      !absl::SimpleAtoi(parts[1], &minor)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": the installed torch's version (", installed,
                     ") names no minor release; give the range: --suggest 'torch>=2.8,<2.13'"));
  }
  const std::string text = absl::StrCat("torch>=", major, ".", std::max(0, minor - 2));
  *why = absl::StrCat("the releases of ", text,
                      " (no installed package requires a torch "
                      "version; from two minor releases below the ",
                      env.torch >= 0 ? "installed " : "newest published (none is installed) ",
                      installed, " on)");
  return absl::StrCat("pip:", text);
}

}  // namespace abicheck
