// Check(): one module against the libraries given or a build, in a world of its own
// (lib/resolve/world.h does its dlopen), with the explanations of diagnose/ added; and the
// exit codes. The matrix is matrix.cc, its recommendation recommend.cc.

#include <filesystem>
#include <memory>
#include <utility>

#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/api/build.h"
#include "lib/api/check_internal.h"
#include "lib/api/findings.h"
#include "lib/api/given_loads.h"
#include "lib/api/limits.h"
#include "lib/diagnose/diagnose.h"
#include "lib/inputs/inputs.h"
#include "lib/resolve/loader.h"
#include "lib/resolve/world.h"
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
                            LoadModule(w, module_input, providers, if_loaded, set_aside));
  if (load.module == nullptr) return ToReport(std::move(load.findings));
  ABICHECK_RETURN_IF_ERROR(JudgeModule(w, module_input, &load));
  if (!options.diagnose) {
    ABICHECK_RETURN_IF_ERROR(IndexedTablesStatus(w, undo.mark, set_aside));
    return ToReport(std::move(load.findings));
  }
  Diagnosed diagnosed = ForDiagnosis(&load.findings);
  DiagnoseProblems(loader, load.scope, &diagnosed);
  ABICHECK_RETURN_IF_ERROR(IndexedTablesStatus(w, undo.mark, set_aside));
  return ToReport(std::move(load.findings), std::move(diagnosed));
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
  LoadFindings refused;
  ABICHECK_ASSIGN_OR_RETURN(std::optional<ElfFile> probe, ProbeModule(module, &refused));
  if (!probe) return ToReport(std::move(refused));
  const bool same_loader = world_ && probe->machine() == world_->machine &&
                           probe->is_64() == world_->is_64 &&
                           probe->big_endian() == world_->big_endian;
  if (same_loader && parses != nullptr && providers.size() > made_for_) {
    // Grown: the world made larger where that makes the world a new one would (ExtendWorld).
    absl::StatusOr<bool> grown = ExtendWorld(*world_, providers, made_for_, own_package, parses);
    if (grown.ok() && *grown) {
      made_for_ = providers.size();
      ++grown_;
    }
  }
  if (!same_loader || made_for_ != providers.size()) {
    world_.reset();
    ABICHECK_ASSIGN_OR_RETURN(World w, PrepareWorld(*probe, providers, preload, python,
                                                    ToLoadOptions(options), parses, own_package));
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
  if (r.ok()) {
    GivenLoads given({&held->c.providers, &held->c.preload, held->c.python_file()}, options,
                     nullptr);
    absl::StatusOr<std::optional<Warning>> note = given.Apply(&*r);
    if (!note.ok()) r = note.status();
    if (note.ok() && *note) notes.push_back(**note);
  }
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
  GivenLoads given({&providers, &preload, c.python_file()}, options, &parses);
  ABICHECK_ASSIGN_OR_RETURN(std::optional<Warning> note, given.Apply(&r));
  if (note) notes.push_back(*std::move(note));
  r.warnings.insert(r.warnings.begin(), notes.begin(), notes.end());
  return r;
}

}  // namespace abicheck
