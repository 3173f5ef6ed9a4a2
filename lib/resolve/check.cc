// Check(): the phases of dl_open_worker for one module — map the dependency closure, check the
// versions every new object needs, relocate — collecting every failure where ld.so stops at the
// first one, and marking that first one (docs/loader-model.md §C1).
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <functional>
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
#include "lib/demangle/demangle.h"
#include "lib/diagnose/diagnose.h"
#include "lib/elf/elf_constants.h"
#include "lib/inputs/inputs.h"
#include "lib/inputs/python_env.h"
#include "lib/resolve/check_internal.h"
#include "lib/resolve/device_check.h"
#include "lib/resolve/host_cpu.h"
#include "lib/resolve/loader.h"
#include "lib/util/paths.h"
#include "lib/util/status_macros.h"

namespace abicheck {

const char* TorchAbiName(TorchAbi abi) {
  switch (abi) {
    case TorchAbi::kNoTorch:
      return "no_torch";
    case TorchAbi::kStable:
      return "stable";
    case TorchAbi::kUnstable:
      return "unstable";
  }
  return "unknown";
}

bool IsTorchShimName(absl::string_view name) {
  return absl::StartsWith(name, "aoti_torch_") || absl::StartsWith(name, "torch_");
}

bool IsTorchCxxName(absl::string_view name) {
  // Mangled names in torch's C++ namespaces, functions and their vtables/typeinfo; torch::stable
  // and torch::headeronly are excluded (header-only: an external reference there is still the
  // stable ABI's).
  for (absl::string_view p : {"_ZN", "_ZNK", "_ZTVN", "_ZTIN", "_ZTSN", "_ZThn"}) {
    absl::string_view rest = name;
    if (!absl::ConsumePrefix(&rest, p)) continue;
    if (absl::StartsWith(rest, "5torch6stable") || absl::StartsWith(rest, "5torch10headeronly"))
      return false;
    for (absl::string_view ns : {"3c10", "2at", "5torch", "6caffe2"}) {
      if (absl::StartsWith(rest, ns)) return true;
    }
  }
  return false;
}

const char* ProblemKindName(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::kUndefinedSymbol:
      return "undefined_symbol";
    case ProblemKind::kVersionNotFound:
      return "version_not_found";
    case ProblemKind::kMissingLibrary:
      return "missing_library";
    case ProblemKind::kWrongElfClass:
      return "wrong_elf_class";
    case ProblemKind::kWrongMachine:
      return "wrong_machine";
    case ProblemKind::kNotLoadable:
      return "not_loadable";
    case ProblemKind::kLoaderAssertion:
      return "loader_assertion";
    case ProblemKind::kNoKernelImage:
      return "no_kernel_image";
    case ProblemKind::kUnsupportedPtx:
      return "unsupported_ptx";
    case ProblemKind::kInsufficientDriver:
      return "insufficient_driver";
  }
  return "unknown";
}

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

namespace {

bool IsInterpreterSymbol(absl::string_view name) {
  return absl::StartsWith(name, "Py") || absl::StartsWith(name, "_Py");
}

std::string ElfClassName(bool is_64) { return is_64 ? "ELFCLASS64" : "ELFCLASS32"; }

// What to do about a refusal of the loader's (docs/loader-model.md A9-A12), by its message.
std::string RefusalHint(absl::string_view message) {
  if (absl::EndsWith(message, "invalid ELF header"))
    return "a file that is not a shared object (a linker script, a text stub) is first on the "
           "search path under that name: the loader stops there";
  if (absl::EndsWith(message, "file too short"))
    return "a truncated or empty file is first on the search path under that name: the loader "
           "stops there";
  if (absl::StrContains(message, "executable stack"))
    return "glibc 2.41 and later no longer make the stack executable for dlopen: relink it with "
           "-Wl,-z,noexecstack (or clear the flag: patchelf --clear-execstack)";
  if (absl::EndsWith(message, "cannot be dlopen()ed"))
    return "it was linked with -z nodlopen (DF_1_NOOPEN): only a program's own startup may load it";
  return "";
}

// The report of a module the loader refuses outright: that one problem, ld.so's first error.
Report ModuleRefused(Report report, std::string message, std::string hint) {
  Problem p;
  p.kind = ProblemKind::kNotLoadable;
  p.object = report.module;
  p.message = std::move(message);
  p.hint = std::move(hint);
  p.first = true;
  report.problems.push_back(std::move(p));
  return report;
}

// A function a relocation binds to must be code of its object: the loader stores its address for
// calls, wherever it points (docs/loader-model.md B7). Outside, the file is corrupt.
absl::Status CheckDefinitionAddress(const ElfFile& elf, const Symbol& def) {
  // Undefined, absolute, common or an extended index (the reserved range): no address to judge.
  if (def.shndx == elf::SHN_UNDEF || def.shndx >= 0xff00) return absl::OkStatus();
  if (def.value == 0 && def.type() != elf::STT_TLS && def.type() != elf::STT_SECTION) {
    // Address 0 is the ELF header: no definition lives there.
    return absl::DataLossError(absl::StrFormat(
        "%s: .dynsym: %s is defined at address 0, the ELF header", elf.name(), def.name));
  }
  if (def.type() != elf::STT_FUNC && def.type() != elf::STT_GNU_IFUNC) return absl::OkStatus();
  if (elf.Maps(def.value, 1, elf::PF_X)) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrFormat("%s: .dynsym: function %s at 0x%x is outside the "
                      "object's code",
                      elf.name(), def.name, def.value));
}

// The order in which dl_open_worker relocates new objects: dependencies before dependents
// (the reverse of l_initfini, a depth-first post-order from the module).
std::vector<const Object*> RelocationOrder(const Object* module) {
  std::vector<const Object*> order;
  absl::flat_hash_set<const Object*> seen;
  std::function<void(const Object*)> visit = [&](const Object* o) {
    if (o == nullptr || !seen.insert(o).second) return;
    for (const Object* d : o->deps) visit(d);
    order.push_back(o);
  };
  visit(module);
  return order;
}

}  // namespace

absl::StatusOr<std::optional<ElfFile>> ProbeModule(const InputFile& module, Report* refused) {
  const std::string& module_path = module.name;
  // open_verify refuses a header before anything is parsed (docs/loader-model.md A11): with the
  // ELF magic, that is the loader's answer, not an input error.
  if (const absl::Span<const uint8_t> b = module.blob->bytes();
      b.size() >= 20 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') {
    // The module's own class, byte order and machine pick the loader: those checks pass.
    const bool be = b[elf::EI_DATA] == elf::ELFDATA2MSB;
    const OpenVerdict v =
        OpenVerify(b, b[elf::EI_CLASS] == elf::ELFCLASS64,
                   static_cast<uint16_t>(be ? (b[18] << 8 | b[19]) : (b[18] | b[19] << 8)), be);
    if (v.kind == OpenVerdict::kRefused) {
      refused->module = module_path;
      *refused = ModuleRefused(std::move(*refused), absl::StrCat(module_path, ": ", v.error), "");
      return std::nullopt;
    }
  }
  // The module decides which loader runs: its machine and class.
  ABICHECK_ASSIGN_OR_RETURN(ElfFile probe, ElfFile::Parse(module_path, module.blob->bytes()));
  return probe;
}

absl::StatusOr<World> PrepareWorld(const ElfFile& probe, const std::vector<InputFile>& providers,
                                   const std::vector<InputFile>& preload, const InputFile* python,
                                   const CheckOptions& options, ParseCache* parses,
                                   size_t own_package) {
  World w;
  w.machine = probe.machine();
  w.is_64 = probe.is_64();
  w.big_endian = probe.big_endian();
  w.has_python = python != nullptr;
  LdCache cache;
  if (options.use_host) {
    std::string sysroot = options.sysroot == "/" ? "" : options.sysroot;
    ABICHECK_ASSIGN_OR_RETURN(cache, LdCache::Read(absl::StrCat(sysroot, "/etc/ld.so.cache")));
  }
  if (!options.gpu.empty() || !options.cuda_driver.empty()) {
    ABICHECK_ASSIGN_OR_RETURN(w.device, ResolveDeviceTarget(options, cache, w.machine));
  }
  w.loader = std::make_unique<Loader>(options, w.machine, w.is_64, std::move(cache), parses);
  Loader& loader = *w.loader;
  loader.SetBigEndian(w.big_endian);

  // Global scope: the interpreter and preloaded objects with their dependencies
  // (docs/loader-model.md §C3).
  auto add_global = [&](const InputFile& in, const char* how) -> absl::Status {
    ABICHECK_ASSIGN_OR_RETURN(Object * o, loader.OpenGiven(in, how, /*preexisting=*/true));
    ABICHECK_ASSIGN_OR_RETURN(std::vector<const Object*> list,
                              loader.MapDeps(o, true, &w.failures));
    for (const Object* l : list) {
      if (std::find(w.global.begin(), w.global.end(), l) == w.global.end()) w.global.push_back(l);
    }
    return absl::OkStatus();
  };
  if (python != nullptr) ABICHECK_RETURN_IF_ERROR(add_global(*python, "interpreter"));
  for (const InputFile& p : preload) ABICHECK_RETURN_IF_ERROR(add_global(p, "preload"));

  // Providers: loaded before, RTLD_LOCAL (docs/loader-model.md §E) — visible only through
  // DT_NEEDED. Those of another class or machine are not loaded with the module (CheckInWorld
  // says so).
  std::vector<bool> opened_new(providers.size(), false);
  for (size_t i = 0; i < providers.size(); ++i) {
    const size_t before = loader.object_count();
    ABICHECK_ASSIGN_OR_RETURN(Object * o,
                              loader.OpenGiven(providers[i], "provider", /*preexisting=*/true));
    opened_new[i] = loader.object_count() > before;
    w.given.push_back(o);
    if (o->elf->machine() != w.machine || o->elf->is_64() != w.is_64) {
      w.other_machine.push_back(i);
      continue;
    }
    w.providers.push_back(o);
    if (i < own_package) w.own_package.insert(o);
  }
  std::vector<bool> mapped_new(providers.size(), false);
  for (size_t i = 0, k = 0; i < providers.size(); ++i) {
    if (k >= w.providers.size() || w.given[i] != w.providers[k]) continue;
    ++k;
    const size_t objects = loader.object_count(), matches = loader.identity_matches(),
                 walks = loader.fresh_walks();
    ABICHECK_RETURN_IF_ERROR(loader.MapDeps(w.given[i], true, &w.failures).status());
    // Its walk changed the world if it loaded an object, matched a file by identity, or walked
    // another object's dependencies first (whose failures then come earlier in the world's order
    // than in the world without it).
    const size_t own_walk = w.given[i]->elf->dependencies().empty() ? 0 : 1;
    mapped_new[i] = loader.object_count() > objects || loader.identity_matches() > matches ||
                    loader.fresh_walks() - walks > own_walk;
  }
  // What the providers needed and we could not find was loaded with them (C2a).
  for (const MapFailure& f : w.failures) {
    if (f.requester != nullptr && f.requester->preexisting &&
        f.kind == ProblemKind::kMissingLibrary && !w.own_package.contains(f.requester))
      loader.AssumeLoaded(f.name);
  }
  // Every failure of the world is a preexisting object's: what CheckInWorld reports of them,
  // each (requester, name) once, grouped by name in the order met.
  for (const MapFailure& f : w.failures) {
    if (!w.seen_failures.insert({f.requester, f.name}).second) continue;
    auto [it, added] = w.missing_index.try_emplace(f.name, w.missing.size());
    if (added) w.missing.push_back({f.name, {}, {}});
    w.missing[it->second].needed_by.push_back(f.requester);
    w.missing[it->second].met_at.push_back(w.seen_failures.size() - 1);
  }
  for (const Object* p : w.providers) {
    const std::string name(p->elf->soname().empty() ? Basename(p->path) : p->elf->soname());
    if (const size_t so = name.find(".so"); so != std::string::npos)
      w.by_stem[name.substr(0, so + 3)].push_back(p);
  }
  for (const Object* o : loader.loaded()) {
    if (o->syms->external()) w.indexed.push_back(o);
  }
  // docs/loader-model.md E7: a module of the package is checked in this world with its own
  // object set aside only where the world without it is this one less that object — nothing
  // else loaded needs it, its walk brought nothing in and walked no other object first, it is
  // not two inputs at once.
  absl::flat_hash_set<const Object*> needed, twice, once;
  for (const Object* o : loader.loaded()) {
    for (const Object* d : o->deps) {
      if (d != nullptr && d != o) needed.insert(d);
    }
  }
  for (const Object* g : w.given) {
    if (!once.insert(g).second) twice.insert(g);
  }
  w.set_aside_ok.resize(providers.size());
  for (size_t i = 0; i < providers.size(); ++i) {
    const Object* o = w.given[i];
    w.set_aside_ok[i] = opened_new[i] && !mapped_new[i] && !needed.contains(o) &&
                        !twice.contains(o) && w.own_package.contains(o) &&
                        std::find(w.global.begin(), w.global.end(), o) == w.global.end();
  }
  return w;
}

absl::StatusOr<Report> CheckInWorld(World& w, const InputFile& module_input,
                                    const std::vector<InputFile>& providers,
                                    const CheckOptions& options, ModuleAlreadyLoaded if_loaded,
                                    const Object* set_aside) {
  const std::string& module_path = module_input.name;
  Loader& loader = *w.loader;
  // What this check loads and names is undone after it: the world serves the next module.
  struct Undo {
    Loader& loader;
    Loader::Mark mark;
    ~Undo() { loader.Rollback(mark); }
  } undo{loader, loader.Checkpoint()};
  loader.SetAside(set_aside);
  const DeviceTarget& device = w.device;
  const std::vector<const Object*>& global = w.global;

  Report report;
  report.module = module_path;
  for (const std::string& n : options.notes) report.warnings.push_back({module_path, n});
  // Providers of another class or machine: named one by one, a mistake in the input; inside a
  // directory or archive, skipped with a note.
  for (size_t i : w.other_machine) {
    const InputFile& p = providers[i];
    const Object* o = w.given[i];
    if (o == set_aside) continue;
    const std::string what = absl::StrFormat(
        "%s: %s %s library cannot be loaded with %s (%s %s)", p.name, ElfClassName(o->elf->is_64()),
        o->elf->MachineName(), module_path, ElfClassName(w.is_64), MachineName(w.machine));
    if (p.name == p.path && providers.size() == 1) return absl::FailedPreconditionError(what);
    report.warnings.push_back({p.name, what});
  }

  ABICHECK_ASSIGN_OR_RETURN(Object * module, loader.OpenGiven(module_input, "module", false));
  if (module->preexisting) {
    if (if_loaded == ModuleAlreadyLoaded::kIsAnError) {
      return absl::InvalidArgumentError(absl::StrCat(module_path, ": is also given as a provider"));
    }
    // dlopen of an object already loaded (as a dependency of what was loaded before) returns it:
    // _dl_map_object finds it by file identity (docs/loader-model.md C2).
    Report already;
    already.module = module_path;
    already.loads = true;
    already.libraries.push_back({module->names.front(), module->path, module->found_by, false});
    already.warnings.push_back(
        {module_path,
         "already loaded (a dependency of what was loaded before it): nothing to check"});
    return already;
  }
  // _dl_map_object_from_fd's refusals of the module itself (docs/loader-model.md A9, A10, A12).
  if (MapRefusalResult refusal = MapRefusal(*module->elf, GlibcRelease(options))) {
    if (refusal.assertion) {
      report = ModuleRefused(std::move(report), refusal.message, "");
      report.problems.back().kind = ProblemKind::kLoaderAssertion;
      return report;
    }
    const std::string message = absl::StrCat(module_path, ": ", refusal.message);
    return ModuleRefused(std::move(report), message, RefusalHint(message));
  }

  std::vector<MapFailure> failures;  // this load's own (the world's are in w.failures)
  ABICHECK_ASSIGN_OR_RETURN(std::vector<const Object*> searchlist,
                            loader.MapDeps(module, false, &failures));
  for (const Object* o : searchlist) {
    LoadedLibrary lib;
    lib.name = o->names.empty() ? o->path : o->names.front();
    lib.path = o->path;
    lib.found_by = o->found_by;
    lib.newly_loaded = !o->preexisting;
    report.libraries.push_back(std::move(lib));
  }
  // A second copy (issue 15): a new object found by search whose soname stem is that of a given
  // library's, but which is another file — libc10.so.1.13 from the host beside the build's
  // libc10.so.2.6. The loader loads both; the module binds to the copy it named.
  for (const Object* o : searchlist) {
    if (o->preexisting || o == module) continue;
    const std::string name(o->elf->soname().empty() ? Basename(o->path) : o->elf->soname());
    const size_t so = name.find(".so");
    if (so == std::string::npos) continue;
    const std::string stem = name.substr(0, so + 3);
    auto same_stem = w.by_stem.find(stem);
    if (same_stem == w.by_stem.end()) continue;
    for (const Object* p : same_stem->second) {
      const std::string pname(p->elf->soname().empty() ? Basename(p->path) : p->elf->soname());
      if (p == set_aside || pname == name ||
          !(pname == stem || absl::StartsWith(pname, stem + ".")))
        continue;
      report.warnings.push_back(
          {o->path,
           absl::StrCat("a second copy of ", stem, ": ", o->names.front(), " is loaded from ",
                        o->path, " (", o->found_by, ") beside the given ", pname, " (", p->path,
                        "); the process then holds two builds of it, and ", o->names.front(),
                        "'s users bind to this copy. Rebuild against the given build."),
           "second_copy"});
      break;
    }
  }
  // Failed dependency loads. A provider's own dependency that cannot be found here was loaded
  // wherever the provider was: not the module's problem, but the check is partial there, and the
  // report says so. Each (requester, name) once: BFS walks a provider's DT_NEEDED again.
  std::vector<Problem> map_problems;
  // Per missing name, how many of the given libraries need it and the first two, in the order
  // met: the world's (without the object set aside), then what this load's walk of them adds.
  struct Missing {
    size_t first = 0;  // where it was first met, in the order of the failures
    const std::string* name = nullptr;
    size_t count = 0;
    const Object* by[2] = {nullptr, nullptr};
    void Add(const Object* o) {
      if (count < 2) by[count] = o;
      ++count;
    }
  };
  std::vector<Missing> unknown_provider_deps;
  absl::flat_hash_map<absl::string_view, size_t> unknown_index;
  for (const World::MissingName& e : w.missing) {
    Missing m;
    m.name = &e.name;
    for (size_t k = 0; k < e.needed_by.size() && m.count < 2; ++k) {
      if (e.needed_by[k] == set_aside) continue;
      if (m.count == 0) m.first = e.met_at[k];
      m.Add(e.needed_by[k]);
    }
    if (m.count == 0) continue;
    // Each (requester, name) is met once: the object set aside is among them at most once.
    const bool aside = set_aside != nullptr && w.seen_failures.contains({set_aside, e.name});
    m.count = e.needed_by.size() - (aside ? 1 : 0);
    unknown_index[e.name] = unknown_provider_deps.size();
    unknown_provider_deps.push_back(m);
  }
  absl::flat_hash_set<std::pair<const Object*, std::string>> seen_failures;
  size_t met = w.seen_failures.size();
  for (const MapFailure& f : failures) {
    if (w.seen_failures.contains({f.requester, f.name}) ||
        !seen_failures.insert({f.requester, f.name}).second)
      continue;
    if (f.requester->preexisting) {
      auto [it, added] = unknown_index.try_emplace(f.name, unknown_provider_deps.size());
      if (added) {
        Missing m;
        m.first = met;
        m.name = &f.name;
        unknown_provider_deps.push_back(m);
      }
      unknown_provider_deps[it->second].Add(f.requester);
      ++met;
      continue;
    }
    ++met;
    Problem p;
    p.kind = f.kind;
    p.object = f.requester->path;
    p.library = f.name;
    p.message = f.message;
    if (!f.skipped_file.empty()) {
      p.hint = absl::StrCat("the only ", f.name, " found is ", f.skipped_file,
                            ", built for another machine: the "
                            "loader skips it");
    }
    if (f.kind == ProblemKind::kNotLoadable) p.hint = RefusalHint(f.message);
    if (f.stand_in != nullptr) {
      p.stand_in = f.stand_in->path;
      p.hint = absl::StrCat("symbols were checked against ", f.stand_in->path,
                            " (same stem) in its place: what else would break is listed below");
    }
    map_problems.push_back(std::move(p));
  }
  std::stable_sort(unknown_provider_deps.begin(), unknown_provider_deps.end(),
                   [](const Missing& x, const Missing& y) { return x.first < y.first; });
  if (!unknown_provider_deps.empty()) {
    // One line: each missing name once, with how many of the given libraries need it.
    std::vector<std::string> items;
    for (const Missing& m : unknown_provider_deps) {
      items.push_back(absl::StrCat(
          *m.name, " (needed by ",
          m.count == 1 ? Basename(m.by[0]->path)
                       : absl::StrCat(m.count, " of them: ", Basename(m.by[0]->path), ", ",
                                      Basename(m.by[1]->path), m.count > 2 ? ", ..." : ""),
          ")"));
    }
    report.warnings.push_back(
        {module_path,
         absl::StrCat(unknown_provider_deps.size(),
                      unknown_provider_deps.size() == 1 ? " dependency" : " dependencies",
                      " of the given libraries not found here, so not checked (they were loaded "
                      "with them): ",
                      absl::StrJoin(items, ", "),
                      ". Give them too (or --sysroot) to check symbols they define.")});
  }

  // B4-B6: the verneed check of every newly loaded object, in search-list order
  // (_dl_check_map_versions, match_symbol).
  std::vector<Problem> version_problems;
  auto refuse = [&](std::vector<Problem>* group, ProblemKind kind, const std::string& object,
                    std::string message) {
    Problem p;
    p.kind = kind;
    p.object = object;
    p.message = std::move(message);
    group->push_back(std::move(p));
  };
  for (const Object* o : searchlist) {
    if (o->preexisting) continue;
    for (const VersionNeed& need : o->syms->version_needs()) {
      // Only the first record's vn_version is looked at (B6).
      if (&need == &o->syms->version_needs().front() && need.version != 1) {
        refuse(
            &version_problems, ProblemKind::kNotLoadable, o->path,
            absl::StrFormat("%s: unsupported version %u of Verneed record", o->path, need.version));
        break;
      }
      // find_needed: a loaded object, in load order, that has the file as one of its names —
      // any object of the namespace, so also the main program ("") and what it linked: libc and
      // the dynamic linker are in every process (docs/loader-model.md B5).
      const Object* provider = loader.FirstNamed(need.file);
      const bool in_every_process =
          need.file == "libc.so.6" || absl::StartsWith(need.file, "ld-linux") || need.file.empty();
      if (provider == nullptr && in_every_process && !need.file.empty() && options.use_host) {
        for (const Object* b : loader.ProcessBase(const_cast<Object*>(o))) {
          if (NameMatches(*b, need.file)) provider = b;
        }
      }
      if (provider == nullptr && in_every_process) continue;  // the program's: not known here
      if (provider == nullptr) {
        const bool load_failed = std::any_of(
            failures.begin(), failures.end(),
            [&](const MapFailure& f) { return f.requester == o && f.name == need.file; });
        if (load_failed) continue;  // reported above; ld.so stopped there
        const std::vector<std::string>& assumed = loader.assumed_used();
        if (std::find(assumed.begin(), assumed.end(), need.file) != assumed.end())
          continue;  // loaded with the providers, unreadable here (C2a): its versions unchecked
        // No such file was ever requested (a DT_NEEDED entry removed, the verneed left behind):
        // glibc 2.36 asserts (docs/loader-model.md B5).
        refuse(&version_problems, ProblemKind::kLoaderAssertion, o->path,
               "Inconsistency detected by ld.so: dl-version.c: 204: _dl_check_map_versions: "
               "Assertion `needed != NULL' failed!");
        version_problems.back().library = std::string(need.file);
        continue;
      }
      if (provider->elf->DynamicValue(elf::DT_VERDEF) == std::nullopt) {
        // match_symbol: passes; ld.so says so only in verbose (ldd) mode.
        report.warnings.push_back(
            {o->path,
             absl::StrCat(provider->path, ": no version information available (required by ",
                          o->path, ")")});
        continue;
      }
      for (const VersionNeedAux& aux : need.aux) {
        bool found = false, refused = false;
        for (const VersionDef& d : provider->syms->version_defs()) {
          if (d.version != 1) {  // read before the comparison, record by record (B6)
            refuse(&version_problems, ProblemKind::kNotLoadable, provider->path,
                   absl::StrFormat("%s: unsupported version %u of Verdef record", provider->path,
                                   d.version));
            refused = true;
            break;
          }
          if (d.hash == aux.hash && d.name == aux.name) {
            found = true;
            break;
          }
        }
        if (refused) break;
        if (found) continue;
        if (aux.flags & elf::VER_FLG_WEAK) {
          report.warnings.push_back(
              {o->path, absl::StrCat(provider->path, ": weak version `", aux.name,
                                     "' not found (required by ", o->path, ")")});
          continue;
        }
        Problem p;
        p.kind = ProblemKind::kVersionNotFound;
        p.object = o->path;
        p.version = std::string(aux.name);
        p.library = provider->path;
        p.message = absl::StrCat(provider->path, ": version `", aux.name,
                                 "' not found (required by ", o->path, ")");
        version_problems.push_back(std::move(p));
      }
    }
  }

  // A13: _dl_open_check's x86 ISA level check of the new objects, dependencies first, before any
  // relocation: an object marked as needing a level this CPU lacks.
  std::vector<Problem> isa_problems;
  for (const Object* o : RelocationOrder(module)) {
    if (o->preexisting || o->elf->machine() != elf::EM_X86_64) continue;
    const uint32_t need = o->elf->x86_isa_needed(), have = loader.cpu().x86_isa_supported;
    if (need == 0 || have == 0 || (need & ~have) == 0) continue;
    Problem p;
    p.kind = ProblemKind::kNotLoadable;
    p.object = o->path;
    p.message =
        absl::StrCat(o == module ? module_path : o->path, ": CPU ISA level is lower than required");
    p.hint = absl::StrCat("it is built for ", X86IsaLevelName(need), "; this CPU is ",
                          loader.cpu().x86_isa_name);
    isa_problems.push_back(std::move(p));
  }

  // Relocation: every reference of every new object, looked up in [global, searchlist].
  std::vector<const Object*> scope = global;
  for (const Object* o : searchlist) {
    if (std::find(scope.begin(), scope.end(), o) == scope.end()) scope.push_back(o);
  }
  // Without the interpreter given, the program's own libc and dynamic linker still sit in the
  // global scope of every process: a module that does not name libc binds to it anyway
  // (docs/loader-model.md C3). Searched last here, they change no binding the scope already
  // makes — only what it could not.
  if (!w.has_python && options.use_host &&
      std::none_of(scope.begin(), scope.end(),
                   [](const Object* o) { return NameMatches(*o, "libc.so.6"); })) {
    for (const Object* o : loader.ProcessBase(module)) {
      if (std::find(scope.begin(), scope.end(), o) == scope.end()) scope.push_back(o);
    }
  }
  std::vector<Problem> symbol_problems;
  // One reference of object `o`: looked up in the scope as elf_machine_rela's RESOLVE_MAP does.
  auto check_reference = [&](const Object* o, const Reference& ref) -> absl::Status {
    Symbol sym = o->syms->GetOrEmpty(ref.symbol);
    if (o == module && sym.shndx == elf::SHN_UNDEF && !sym.name.empty()) {
      // E8: how the module itself uses torch.
      if (IsTorchShimName(sym.name)) {
        ++report.torch_shim_references;
      } else if (IsTorchCxxName(sym.name)) {
        if (report.torch_cxx_references++ < 3)
          report.torch_cxx_examples.push_back(Demangle(sym.name));
      }
    }
    if (sym.name.empty()) {
      return absl::DataLossError(absl::StrFormat(
          "%s: .dynsym entry %u: name offset is outside .dynstr", o->path, ref.symbol));
    }
    // elf_machine_rela: local symbols and hidden/internal ones bind to themselves, no lookup.
    if (sym.bind() == elf::STB_LOCAL || sym.visibility() == elf::STV_HIDDEN ||
        sym.visibility() == elf::STV_INTERNAL) {
      if (sym.shndx != elf::SHN_UNDEF) return CheckDefinitionAddress(*o->elf, sym);
      // Bound to itself though undefined: to the object's own address st_value (B7).
      return absl::DataLossError(absl::StrFormat(
          "%s: .dynsym: %s is undefined but %s: the loader binds it to the object's address 0x%x",
          o->path, sym.name, sym.bind() == elf::STB_LOCAL ? "local" : "hidden", sym.value));
    }
    ++report.references_checked;
    std::optional<WantedVersion> want = WantedVersionOf(*o->syms, ref.symbol);
    HashedName name(sym.name);
    bool asserts = false;
    std::optional<Binding> b =
        loader.Lookup(scope, name, want ? &*want : nullptr, ref.plt_class, &asserts);
    if (asserts) {
      refuse(&symbol_problems, ProblemKind::kLoaderAssertion, o->path,
             "Inconsistency detected by ld.so: dl-lookup.c: 107: check_match: Assertion "
             "`version->filename == NULL || ! _dl_name_match_p (version->filename, map)' "
             "failed!");
      symbol_problems.back().symbol = std::string(sym.name);
      symbol_problems.back().demangled = Demangle(sym.name);
      if (want) symbol_problems.back().version = std::string(want->name);
      return absl::OkStatus();
    }
    if (b) {
      if (!b->object->syms->external())  // an index keeps no addresses
        ABICHECK_RETURN_IF_ERROR(CheckDefinitionAddress(*b->object->elf, b->symbol));
      const bool ref_tls = sym.type() == elf::STT_TLS, def_tls = b->symbol.type() == elf::STT_TLS;
      if (sym.type() != elf::STT_NOTYPE && ref_tls != def_tls) {
        report.warnings.push_back(
            {o->path, absl::StrCat("symbol ", sym.name, ": ", ref_tls ? "TLS" : "non-TLS",
                                   " reference bound to a ", def_tls ? "TLS" : "non-TLS",
                                   " definition in ", b->object->path)});
      }
      return absl::OkStatus();
    }
    if (sym.bind() == elf::STB_WEAK) {
      ++report.weak_unresolved;
      return absl::OkStatus();
    }
    if (options.python.empty() && IsInterpreterSymbol(sym.name)) {
      ++report.interpreter_symbols;
      return absl::OkStatus();
    }
    if (!loader.assumed_used().empty()) {
      ++report.unverified_references;  // may be defined by an assumed-loaded library (C2a)
      return absl::OkStatus();
    }
    Problem p;
    p.kind = ProblemKind::kUndefinedSymbol;
    p.object = o->path;
    p.symbol = std::string(sym.name);
    p.demangled = Demangle(sym.name);
    if (want) p.version = std::string(want->name);
    p.message = absl::StrCat(o->path, ": undefined symbol: ", sym.name,
                             want ? absl::StrCat(", version ", want->name) : "");
    symbol_problems.push_back(std::move(p));
    return absl::OkStatus();
  };
  bool stopped = false;  // at a relocation ld.so cannot apply (B7): nothing after it is relocated
  for (const Object* o : RelocationOrder(module)) {
    if (o->preexisting || stopped) continue;
    ABICHECK_ASSIGN_OR_RETURN(std::vector<Reference> refs, o->syms->References());
    for (const Reference& ref : refs) {
      if (ref.symbol != 0) {  // (0: a relocation that names no symbol, where ld.so stops)
        ABICHECK_RETURN_IF_ERROR(check_reference(o, ref));
      }
      if (ref.stop == Reference::Stop::kNone) continue;
      const bool assertion = ref.stop == Reference::Stop::kRelativeAssertion;
      refuse(&symbol_problems,
             assertion ? ProblemKind::kLoaderAssertion : ProblemKind::kNotLoadable, o->path,
             assertion ? RelocationStopMessage(ref)
                       : absl::StrCat(o->path, ": ", RelocationStopMessage(ref)));
      stopped = true;
      break;
    }
  }
  for (auto* group : {&map_problems, &version_problems, &isa_problems, &symbol_problems}) {
    for (Problem& p : *group) report.problems.push_back(std::move(p));
  }
  if (!report.problems.empty()) report.problems.front().first = true;
  report.assumed_loaded = loader.assumed_used();
  if (options.diagnose) DiagnoseProblems(loader, scope, &report);
  // An index decodes its name blocks on demand: a malformed one found on the way fails the check.
  for (const Object* o : w.indexed) {
    if (o != set_aside) ABICHECK_RETURN_IF_ERROR(o->syms->status());
  }
  for (const Object* o : loader.loaded_since(undo.mark))
    ABICHECK_RETURN_IF_ERROR(o->syms->status());
  report.loads = report.problems.empty();
  if (device.any()) {
    CheckDeviceCode(device, *module->elf, *module_input.blob, &report);
    CheckCudaRuntime(device, &report);
  }
  report.torch_abi = report.torch_cxx_references > 0    ? TorchAbi::kUnstable
                     : report.torch_shim_references > 0 ? TorchAbi::kStable
                                                        : TorchAbi::kNoTorch;
  return report;
}

absl::StatusOr<Report> CheckObjects(const InputFile& module_input,
                                    const std::vector<InputFile>& providers,
                                    const std::vector<InputFile>& preload, const InputFile* python,
                                    const CheckOptions& options, ModuleAlreadyLoaded if_loaded,
                                    ParseCache* parses, size_t own_package) {
  Report refused;
  ABICHECK_ASSIGN_OR_RETURN(std::optional<ElfFile> probe, ProbeModule(module_input, &refused));
  if (!probe) return refused;
  ABICHECK_ASSIGN_OR_RETURN(
      World w, PrepareWorld(*probe, providers, preload, python, options, parses, own_package));
  return CheckInWorld(w, module_input, providers, options, if_loaded, nullptr);
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
    ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in, ExpandInput(p, limits));
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

absl::StatusOr<InputFile> SingleFile(const std::string& path, const char* role) {
  ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in, ExpandInput(path, InputLimits{}));
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

void Recommend(Matrix* m, const std::vector<bool>& unusable) {
  const size_t nb = m->builds.size();
  if (nb < 2 || m->modules.empty()) return;
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
  r.label = BuildLabel(r.build);
  r.failing_modules = failing[best];
  r.every_module_loads = failing[best] == 0;
  for (size_t i = 0; i < m->modules.size(); ++i) {
    if (!m->cells[i * nb + best].report.ok() || (best < unusable.size() && unusable[best]))
      r.still_failing.push_back(m->modules[i]);
  }
  r.summary = r.every_module_loads
                  ? absl::StrCat("install ", r.label, ": every module loads against it")
                  : absl::StrFormat(
                        "no build loads every module; %s leaves the fewest failing "
                        "(%d of %d)",
                        r.label, r.failing_modules, m->modules.size());
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
      if (!p.exported_by.empty() && p.candidates.empty()) {
        p.hint = absl::StrCat("removed in this build; exported by ",
                              absl::StrJoin(p.exported_by, ", "), " (of the builds given)");
      }
    }
  }
}

absl::StatusOr<Report> Check(const std::string& module, const CheckOptions& options) {
  ABICHECK_ASSIGN_OR_RETURN(InputFile mod, SingleFile(module, "module"));
  std::vector<InputFile> providers, preload;
  std::vector<Warning> notes;
  ABICHECK_RETURN_IF_ERROR(
      ExpandProviders(options.providers, InputLimits{}, &providers, &preload, &notes));
  for (const std::string& p : options.preload) {
    ABICHECK_ASSIGN_OR_RETURN(InputFile f, SingleFile(p, "--preload"));
    preload.push_back(std::move(f));
  }
  std::optional<InputFile> python;
  if (!options.python.empty()) {
    ABICHECK_ASSIGN_OR_RETURN(python, SingleFile(options.python, "--python"));
  }
  ABICHECK_ASSIGN_OR_RETURN(
      Report r, CheckObjects(mod, providers, preload, python ? &*python : nullptr, options));
  r.warnings.insert(r.warnings.begin(), notes.begin(), notes.end());
  return r;
}

absl::StatusOr<Matrix> CheckMatrix(const std::vector<std::string>& module_inputs,
                                   const std::vector<std::string>& build_args,
                                   const CheckOptions& options, const InputLimits& limits) {
  Matrix m;
  // The same input given twice (by the same name, or another name of the same file) is checked
  // once, with a note.
  auto dedupe = [&](const std::vector<std::string>& args, const char* role) {
    std::vector<std::string> kept;
    std::vector<std::pair<uint64_t, uint64_t>> ids;
    for (const std::string& a : args) {
      struct stat st;
      const bool have = ::stat(a.c_str(), &st) == 0;
      const std::pair<uint64_t, uint64_t> id{have ? st.st_dev : 0, have ? st.st_ino : 0};
      const bool dup = std::find(kept.begin(), kept.end(), a) != kept.end() ||
                       (have && std::find(ids.begin(), ids.end(), id) != ids.end());
      if (dup) {
        m.notes.push_back({a, absl::StrCat("given twice as ", role, ": checked once")});
        continue;
      }
      kept.push_back(a);
      if (have) ids.push_back(id);
    }
    return kept;
  };
  const std::vector<std::string> unique_modules = dedupe(module_inputs, "a module input");
  const std::vector<std::string> unique_builds = dedupe(build_args, "a build (--against)");
  // An index of several builds is several columns.
  std::vector<std::string> builds;
  for (const std::string& b : unique_builds) {
    ABICHECK_ASSIGN_OR_RETURN(std::vector<std::string> names, IndexBuilds(b));
    if (names.size() > 1) {
      for (const std::string& n : names) builds.push_back(absl::StrCat(b, "#", n));
    } else {
      builds.push_back(b);
    }
  }
  // Modules, each with the shared objects that came with it (its package's own libraries): an
  // index into its input's objects and their packages, shared by the input's modules — a wheel
  // of n objects would otherwise hold n^2 of them.
  struct ModuleEntry {
    std::shared_ptr<const ModuleGroup> group;
    size_t self = 0;
    ModuleInfo info;
    const InputFile& module() const { return group->objects[self]; }
    const std::string& package() const { return group->package[self]; }
  };
  std::vector<ModuleEntry> modules;
  // A module's device code lies in the middle of the file: with a GPU to judge, archive members
  // are kept whole (docs/gpu-model.md).
  InputLimits module_limits = limits;
  module_limits.whole_members = limits.whole_members || !options.gpu.empty();
  for (const std::string& in : unique_modules) {
    ABICHECK_ASSIGN_OR_RETURN(std::vector<std::string> in_index, IndexBuilds(in));
    if (!in_index.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(in, ": an index holds builds to check against (--against), not modules"));
    }
    ABICHECK_ASSIGN_OR_RETURN(ExpandedInput ex, ExpandInput(in, module_limits));
    for (const std::string& n : ex.notes) m.notes.push_back({in, n});
    if (ex.objects.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(in, ": no module to check in this ", ex.kind,
                                                     " (it holds no ELF shared object)"));
    }
    const PackageMetadata md = ParseMetadata(TextMember(ex, ".dist-info/METADATA"));
    // docs/loader-model.md E6, E7: every shared object a package ships is loaded and checked;
    // its siblings count as loaded for it. A directory that holds installed packages (a
    // site-packages: it has *.dist-info) is several packages, one per top-level entry
    // ("torchvision" with its "torchvision.libs"): a module sees its own package's objects; what
    // only another package provides depends on import order (E9).
    auto group = std::make_shared<ModuleGroup>();
    group->package = PackagesOf(ex);
    group->objects = std::move(ex.objects);
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
      modules.push_back(std::move(e));
    }
  }
  std::vector<InputFile> common, common_preload;
  ABICHECK_RETURN_IF_ERROR(
      ExpandProviders(options.providers, limits, &common, &common_preload, &m.notes));
  for (const std::string& p : options.preload) {
    ABICHECK_ASSIGN_OR_RETURN(InputFile f, SingleFile(p, "--preload"));
    common_preload.push_back(std::move(f));
  }
  std::optional<InputFile> python;
  if (!options.python.empty()) {
    ABICHECK_ASSIGN_OR_RETURN(python, SingleFile(options.python, "--python"));
  }
  std::vector<std::vector<InputFile>> build_providers(builds.size()), build_preload(builds.size());
  for (size_t b = 0; b < builds.size(); ++b) {
    build_providers[b] = common;
    build_preload[b] = common_preload;
    ABICHECK_RETURN_IF_ERROR(
        ExpandProviders({builds[b]}, limits, &build_providers[b], &build_preload[b], &m.notes));
  }
  if (builds.empty()) {
    build_providers.push_back(common);
    build_preload.push_back(common_preload);
  }
  for (const ModuleEntry& e : modules) {
    m.modules.push_back(e.module().name);
    m.module_info.push_back(e.info);
  }
  m.builds = builds;
  if (m.builds.empty()) m.builds.push_back("(given libraries)");
  ParseCache parses;  // each build's libraries are parsed once for all the modules
  // One world per package and build (docs/loader-model.md E7): the package's objects and the
  // build's libraries loaded once, each module checked in it with its own object set aside —
  // linear in the package's size. A module the world cannot stand for (another object needs it,
  // it brought something in, another machine) is checked in a world of its own.
  struct PackageWorlds {
    std::vector<InputFile> objects;              // the package's, in order
    std::vector<std::vector<InputFile>> inputs;  // per build: objects + build providers
    std::vector<std::optional<World>> worlds;    // per build; nullopt: none could be made
    size_t remaining = 0;                        // modules still to check
  };
  absl::flat_hash_map<std::pair<const ModuleGroup*, std::string>, PackageWorlds> package_worlds;
  for (const ModuleEntry& e : modules) {
    PackageWorlds& pw = package_worlds[{e.group.get(), e.package()}];
    ++pw.remaining;
  }
  for (const ModuleEntry& e : modules) {
    const std::pair<const ModuleGroup*, std::string> key{e.group.get(), e.package()};
    PackageWorlds& pw = package_worlds[key];
    const std::vector<InputFile>& all = e.group->objects;
    if (pw.inputs.empty()) {
      std::optional<ElfFile> probe;
      for (size_t j = 0; j < all.size(); ++j) {
        if (e.group->package[j] != e.package()) continue;
        pw.objects.push_back(all[j]);
      }
      for (const InputFile& f : pw.objects) {
        Report refused;
        absl::StatusOr<std::optional<ElfFile>> p = ProbeModule(f, &refused);
        if (p.ok() && *p) {
          probe = std::move(**p);
          break;
        }
      }
      for (size_t b = 0; b < build_providers.size(); ++b) {
        std::vector<InputFile> inputs = pw.objects;
        inputs.insert(inputs.end(), build_providers[b].begin(), build_providers[b].end());
        absl::StatusOr<World> w =
            probe ? PrepareWorld(*probe, inputs, build_preload[b], python ? &*python : nullptr,
                                 options, &parses, pw.objects.size())
                  : absl::StatusOr<World>(absl::UnknownError("no module to make it"));
        pw.inputs.push_back(std::move(inputs));
        pw.worlds.push_back(w.ok() ? std::optional<World>(*std::move(w)) : std::nullopt);
      }
    }
    const size_t own = e.group->place[e.self];  // its place among its package's objects
    Report refused;                             // the module's header, read once for all the builds
    ABICHECK_ASSIGN_OR_RETURN(std::optional<ElfFile> probe, ProbeModule(e.module(), &refused));
    for (size_t b = 0; b < build_providers.size(); ++b) {
      std::optional<World>& w = pw.worlds[b];
      Report r;
      if (!probe) {
        r = refused;
      } else if (w && w->set_aside_ok[own] && probe->machine() == w->machine &&
                 probe->is_64() == w->is_64 && probe->big_endian() == w->big_endian) {
        ABICHECK_ASSIGN_OR_RETURN(r, CheckInWorld(*w, e.module(), pw.inputs[b], options,
                                                  ModuleAlreadyLoaded::kIsAnError, w->given[own]));
      } else {
        std::vector<InputFile> providers;
        providers.reserve(pw.inputs[b].size() - 1);
        for (size_t j = 0; j < pw.inputs[b].size(); ++j) {
          if (j != own) providers.push_back(pw.inputs[b][j]);
        }
        ABICHECK_ASSIGN_OR_RETURN(
            r,
            CheckObjects(e.module(), providers, build_preload[b], python ? &*python : nullptr,
                         options, ModuleAlreadyLoaded::kIsAnError, &parses, pw.objects.size() - 1));
      }
      if (!r.loads) MarkOrderDependent(*e.group, e.package(), &r);
      m.cells.push_back({e.module().name, m.builds[b], std::move(r)});
    }
    if (--pw.remaining == 0) package_worlds.erase(key);  // its objects are done with
  }
  MarkTorchAbi(&m);
  if (build_providers.size() > 1) {
    MarkExportingBuilds(build_providers, &m);
    Recommend(&m);
  }
  return m;
}

}  // namespace abicheck
