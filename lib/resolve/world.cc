// The phases of dl_open_worker for one module — map the dependency closure, check the versions
// every new object needs, relocate — collecting every failure where ld.so stops at the first
// one, and marking that first one (docs/loader-model.md §C1). Each phase is one function here.
#include "lib/resolve/world.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/demangle/demangle.h"
#include "lib/elf/elf_constants.h"
#include "lib/resolve/device_check.h"
#include "lib/resolve/host_cpu.h"
#include "lib/resolve/loader.h"
#include "lib/resolve/world_internal.h"
#include "lib/util/paths.h"
#include "lib/util/status_macros.h"

namespace abicheck {

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

namespace {

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
LoadFindings ModuleRefused(LoadFindings report, std::string message, std::string hint) {
  LoadFailure p;
  p.kind = FailureKind::kNotLoadable;
  p.object = report.module;
  p.message = std::move(message);
  p.hint = std::move(hint);
  p.first = true;
  report.problems.push_back(std::move(p));
  return report;
}

}  // namespace

// docs/loader-model.md C1: the order in which dl_open_worker relocates the new objects (glibc
// 2.36, elf/dl-open.c: from the last entry of l_initfini to the first). _dl_map_object_deps
// (elf/dl-deps.c) makes l_initfini of the module's search list, breadth first, and sorts it with
// _dl_sort_maps (elf/dl-sort-maps.c, force_first): _dl_sort_maps_dfs, the default since 2.35 —
// a depth-first traversal from each entry, the last first, each object's DT_NEEDED in order,
// prepending each object when its traversal ends (a reverse post-order), the module forced back
// to the front — or, before 2.35 and where GLIBC_TUNABLES says glibc.rtld.dynamic_sort=1,
// _dl_sort_maps_original (LegacyInitFini).
std::vector<const Object*> RelocationOrder(const std::vector<const Object*>& searchlist,
                                           const LoadOptions& options) {
  if (LegacySort(options)) {
    std::vector<const Object*> order = LegacyInitFini(searchlist);
    std::reverse(order.begin(), order.end());
    return order;
  }
  std::vector<const Object*> post;  // the traversal's post-order: l_initfini reversed
  absl::flat_hash_set<const Object*> visited;
  std::function<void(const Object*)> dfs_traversal = [&](const Object* map) {
    if (map == nullptr || !visited.insert(map).second) return;
    for (const Object* dep : map->deps) {
      if (dep != nullptr && !visited.contains(dep)) dfs_traversal(dep);
    }
    post.push_back(map);
  };
  for (size_t i = searchlist.size(); i-- > 0;) dfs_traversal(searchlist[i]);
  // force_first: the module is l_initfini[0], so relocated last.
  if (!searchlist.empty()) {
    auto at = std::find(post.begin(), post.end(), searchlist.front());
    if (at != post.end()) std::rotate(at, at + 1, post.end());
  }
  return post;
}

bool LegacySort(const LoadOptions& options) {
  if (GlibcRelease(options) < std::pair<int, int>{2, 35}) return true;  // the only sort then
  // _dl_sort_maps_init: the tunable of the process abicheck runs in, as the hwcaps one (C8).
  static const bool tunable = [] {
    const char* t = std::getenv("GLIBC_TUNABLES");
    if (t == nullptr) return false;
    bool legacy = false;
    for (absl::string_view kv : absl::StrSplit(t, ':')) {
      if (absl::ConsumePrefix(&kv, "glibc.rtld.dynamic_sort=")) legacy = kv == "1";
    }
    return legacy;
  }();
  return tunable;
}

// _dl_sort_maps_original (elf/dl-sort-maps.c) with force_first: the module stays first; each
// later entry, in turn, is moved behind the last entry whose l_initfini (itself, then its
// DT_NEEDED objects) holds it, `seen` ending a cycle's rotation. Returns l_initfini.
std::vector<const Object*> LegacyInitFini(const std::vector<const Object*>& searchlist) {
  std::vector<const Object*> maps = searchlist;
  if (maps.size() <= 2) return maps;
  const size_t first = 1, n = maps.size() - first;
  auto needs = [](const Object* o, const Object* dep) {
    return std::find(o->deps.begin(), o->deps.end(), dep) != o->deps.end();
  };
  std::vector<uint32_t> seen(n, 0);
  size_t i = 0;
  while (true) {
    ++seen[i];
    const Object* thisp = maps[first + i];
    bool moved = false;
    for (size_t k = n - 1; k > i; --k) {
      if (!needs(maps[first + k], thisp)) continue;
      // Move thisp behind maps[k], the last object that needs it.
      std::rotate(maps.begin() + static_cast<std::ptrdiff_t>(first + i),
                  maps.begin() + static_cast<std::ptrdiff_t>(first + i + 1),
                  maps.begin() + static_cast<std::ptrdiff_t>(first + k + 1));
      if (seen[i + 1] > n - i) {  // a cycle went round: leave it
        ++i;
        std::fill(seen.begin() + static_cast<std::ptrdiff_t>(i), seen.end(), 0);
      } else {
        std::rotate(seen.begin() + static_cast<std::ptrdiff_t>(i),
                    seen.begin() + static_cast<std::ptrdiff_t>(i + 1),
                    seen.begin() + static_cast<std::ptrdiff_t>(k + 1));
      }
      moved = true;
      break;
    }
    if (moved) continue;
    if (++i == n) break;
    std::fill(seen.begin() + static_cast<std::ptrdiff_t>(i), seen.end(), 0);
  }
  return maps;
}

absl::StatusOr<std::optional<ElfFile>> ProbeModule(const InputFile& module, LoadFindings* refused) {
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

void AddRefusal(std::vector<LoadFailure>* group, FailureKind kind, const std::string& object,
                std::string message) {
  LoadFailure p;
  p.kind = kind;
  p.object = object;
  p.message = std::move(message);
  group->push_back(std::move(p));
}

namespace {

// Providers of another class or machine: named one by one, a mistake in the input; inside a
// directory or archive, skipped with a note.
absl::Status OtherMachineProviders(const World& w, const std::vector<InputFile>& providers,
                                   const std::string& module_path, const Object* set_aside,
                                   LoadFindings* report) {
  for (size_t i : w.other_machine) {
    const InputFile& p = providers[i];
    const Object* o = w.given[i];
    if (o == set_aside) continue;
    const std::string what = absl::StrFormat(
        "%s: %s %s library cannot be loaded with %s (%s %s)", p.name, ElfClassName(o->elf->is_64()),
        o->elf->MachineName(), module_path, ElfClassName(w.is_64), MachineName(w.machine));
    if (p.name == p.path && providers.size() == 1) return absl::FailedPreconditionError(what);
    report->warnings.push_back({p.name, what});
  }
  return absl::OkStatus();
}

// A second copy (issue 15): a new object found by search whose soname stem is that of a given
// library's, but which is another file — libc10.so.1.13 from the host beside the build's
// libc10.so.2.6. The loader loads both; the module binds to the copy it named.
void WarnSecondCopies(const World& w, const std::vector<const Object*>& searchlist,
                      const Object* module, const Object* set_aside, LoadFindings* report) {
  for (const Object* o : searchlist) {
    if (o->preexisting || o == module) continue;
    const std::string name = LibraryName(*o);
    const std::string stem = SonameStem(name);
    if (stem.empty()) continue;
    auto same_stem = w.by_stem.find(stem);
    if (same_stem == w.by_stem.end()) continue;
    for (const Object* p : same_stem->second) {
      const std::string pname = LibraryName(*p);
      if (p == set_aside || pname == name ||
          !(pname == stem || absl::StartsWith(pname, stem + ".")))
        continue;
      report->warnings.push_back(
          {o->path,
           absl::StrCat("a second copy of ", stem, ": ", o->names.front(), " is loaded from ",
                        o->path, " (", HowFoundName(o->found_by), ") beside the given ", pname,
                        " (", p->path, "); the process then holds two builds of it, and ",
                        o->names.front(),
                        "'s users bind to this copy. Rebuild against the given build."),
           NoteKind::kSecondCopy});
      break;
    }
  }
}

// Per missing name of the given libraries' own dependencies, how many of them need it and the
// first two, in the order met: the world's (without the object set aside), then what this
// load's walk of them adds.
struct MissingDependency {
  size_t first = 0;  // where it was first met, in the order of the failures
  const std::string* name = nullptr;
  size_t count = 0;
  const Object* by[2] = {nullptr, nullptr};
  void Add(const Object* o) {
    if (count < 2) by[count] = o;
    ++count;
  }
};

// The package's own objects (E7) are not among "the given libraries": what they miss was not
// loaded with them (RecordWorldFailures assumes nothing for them), and their own rows report it.
class MissingDependencies {
 public:
  // The world's, without the object set aside and the package's own objects.
  MissingDependencies(const World& w, const Object* set_aside)
      : own_(w.own_package), met_(w.seen_failures.size()) {
    for (const World::MissingName& e : w.missing) {
      MissingDependency m;
      m.name = &e.name;
      for (size_t k = 0; k < e.needed_by.size(); ++k) {
        if (e.needed_by[k] == set_aside || own_.contains(e.needed_by[k])) continue;
        if (m.count == 0) m.first = e.met_at[k];
        m.Add(e.needed_by[k]);  // each (requester, name) is met once
      }
      if (m.count == 0) continue;
      index_[e.name] = list_.size();
      list_.push_back(m);
    }
  }
  // One more distinct failure met by this load: a preexisting object's (`requester`), or not.
  void Met(const MapFailure& f) {
    if (f.requester->preexisting && !own_.contains(f.requester)) {
      auto [it, added] = index_.try_emplace(f.name, list_.size());
      if (added) {
        MissingDependency m;
        m.first = met_;
        m.name = &f.name;
        list_.push_back(m);
      }
      list_[it->second].Add(f.requester);
    }
    ++met_;
  }
  // One line: each missing name once, with how many of the given libraries need it.
  void Warn(const std::string& module_path, LoadFindings* report) {
    if (list_.empty()) return;
    std::stable_sort(list_.begin(), list_.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> items;
    for (const MissingDependency& m : list_) {
      items.push_back(absl::StrCat(
          *m.name, " (needed by ",
          m.count == 1 ? Basename(m.by[0]->path)
                       : absl::StrCat(m.count, " of them: ", Basename(m.by[0]->path), ", ",
                                      Basename(m.by[1]->path), m.count > 2 ? ", ..." : ""),
          ")"));
    }
    for (const MissingDependency& m : list_) report->providers_missing.push_back(*m.name);
    const bool one = list_.size() == 1;
    report->warnings.push_back(
        {module_path, absl::StrCat(list_.size(), one ? " dependency" : " dependencies",
                                   " of the given libraries not found here, so not checked (",
                                   one ? "it was" : "they were",
                                   " loaded with them): ", absl::StrJoin(items, ", "), ". Give ",
                                   one ? "it" : "them", " too (or --sysroot) to check symbols ",
                                   one ? "it defines." : "they define.")});
  }

 private:
  const absl::flat_hash_set<const Object*>& own_;
  std::vector<MissingDependency> list_;
  absl::flat_hash_map<absl::string_view, size_t> index_;
  size_t met_;
};

// docs/loader-model.md E12: each object the load rests on that may not be the file the install
// would load, said once; the pins not given make the verdict unknown.
void NoteNotTheInstalls(LoadFindings* report) {
  for (const Object* o : report->not_the_installs) {
    const std::string name = o->names.empty() ? Basename(o->path) : o->names.front();
    report->warnings.push_back(
        {o->path, absl::StrCat(name, " was found at ", o->path, ", ", o->not_the_installs,
                               "; whether it loads cannot be told (give them with --find-links "
                               "DIR)")});
    for (const std::string& pin : o->world_not_given) {
      if (std::find(report->unknown_because.begin(), report->unknown_because.end(), pin) ==
          report->unknown_because.end())
        report->unknown_because.push_back(pin);
    }
  }
}

// The problem of a new object's failed dependency load (docs/loader-model.md §C2, §D).
LoadFailure MapProblem(const MapFailure& f) {
  LoadFailure p;
  p.kind = f.kind;
  p.object = f.requester->path;
  p.library = f.name;
  p.message = f.message;
  if (!f.skipped_file.empty()) {
    p.hint = absl::StrCat("the only ", f.name, " found is ", f.skipped_file,
                          ", built for another machine: the "
                          "loader skips it");
  }
  if (f.kind == FailureKind::kNotLoadable) p.hint = RefusalHint(f.message);
  if (f.stand_in != nullptr) {
    p.stand_in = f.stand_in->path;
    p.hint = absl::StrCat("symbols were checked against ", f.stand_in->path,
                          " (same stem) in its place: what else would break is listed below");
  }
  return p;
}

// Failed dependency loads. A provider's own dependency that cannot be found here was loaded
// wherever the provider was: not the module's problem, but the check is partial there, and the
// report says so. Each (requester, name) once: BFS walks a provider's DT_NEEDED again.
std::vector<LoadFailure> MapProblems(const World& w, const std::vector<MapFailure>& failures,
                                     const std::string& module_path, const Object* set_aside,
                                     LoadFindings* report) {
  std::vector<LoadFailure> problems;
  MissingDependencies unknown(w, set_aside);
  absl::flat_hash_set<std::pair<const Object*, std::string>> seen;
  for (const MapFailure& f : failures) {
    if (w.seen_failures.contains({f.requester, f.name}) ||
        !seen.insert({f.requester, f.name}).second)
      continue;
    unknown.Met(f);
    if (!f.requester->preexisting) problems.push_back(MapProblem(f));
  }
  unknown.Warn(module_path, report);
  return problems;
}

// match_symbol of one verneed entry against its provider's version definitions (B4, B6).
void MatchVersions(const Object* o, const Object* provider, const VersionNeed& need,
                   std::vector<LoadFailure>* problems, LoadFindings* report) {
  for (const VersionNeedAux& aux : need.aux) {
    bool found = false, refused = false;
    for (const VersionDef& d : provider->syms->version_defs()) {
      if (d.version != 1) {  // read before the comparison, record by record (B6)
        AddRefusal(problems, FailureKind::kNotLoadable, provider->path,
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
      report->warnings.push_back(
          {o->path, absl::StrCat(provider->path, ": weak version `", aux.name,
                                 "' not found (required by ", o->path, ")")});
      continue;
    }
    LoadFailure p;
    p.kind = FailureKind::kVersionNotFound;
    p.object = o->path;
    p.version = std::string(aux.name);
    p.library = provider->path;
    p.message = absl::StrCat(provider->path, ": version `", aux.name, "' not found (required by ",
                             o->path, ")");
    problems->push_back(std::move(p));
  }
}

// B4-B6: the verneed check of every newly loaded object, in search-list order
// (_dl_check_map_versions).
// `only`: the objects to check, loaded before or not (a given library's own load, E2a); nullptr:
// the new objects of `searchlist`.
std::vector<LoadFailure> VersionProblems(Loader& loader,
                                         const std::vector<const Object*>& searchlist,
                                         const std::vector<MapFailure>& failures,
                                         LoadFindings* report,
                                         const std::vector<const Object*>* only = nullptr) {
  std::vector<LoadFailure> problems;
  for (const Object* o : only != nullptr ? *only : searchlist) {
    if (only == nullptr && o->preexisting) continue;
    for (const VersionNeed& need : o->syms->version_needs()) {
      // Only the first record's vn_version is looked at (B6).
      if (&need == &o->syms->version_needs().front() && need.version != 1) {
        AddRefusal(
            &problems, FailureKind::kNotLoadable, o->path,
            absl::StrFormat("%s: unsupported version %u of Verneed record", o->path, need.version));
        break;
      }
      bool in_every_process = false;
      const Object* provider =
          loader.FindNeeded(const_cast<Object*>(o), need.file, &in_every_process);
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
        AddRefusal(&problems, FailureKind::kLoaderAssertion, o->path,
                   "Inconsistency detected by ld.so: dl-version.c: 204: _dl_check_map_versions: "
                   "Assertion `needed != NULL' failed!");
        problems.back().library = std::string(need.file);
        continue;
      }
      if (provider->elf->DynamicValue(elf::DT_VERDEF) == std::nullopt) {
        // match_symbol: passes; ld.so says so only in verbose (ldd) mode.
        report->warnings.push_back(
            {o->path,
             absl::StrCat(provider->path, ": no version information available (required by ",
                          o->path, ")")});
        continue;
      }
      MatchVersions(o, provider, need, &problems, report);
    }
  }
  return problems;
}

// A13: _dl_open_check's x86 ISA level check of the new objects, dependencies first, before any
// relocation: an object marked as needing a level this CPU lacks.
std::vector<LoadFailure> IsaProblems(const Loader& loader, const Object* module,
                                     const std::vector<const Object*>& searchlist,
                                     const std::string& module_path) {
  std::vector<LoadFailure> problems;
  for (const Object* o : RelocationOrder(searchlist, loader.options())) {
    if (o->preexisting || o->elf->machine() != elf::EM_X86_64) continue;
    const uint32_t need = o->elf->x86_isa_needed(), have = loader.cpu().x86_isa_supported;
    if (need == 0 || have == 0 || (need & ~have) == 0) continue;
    LoadFailure p;
    p.kind = FailureKind::kNotLoadable;
    p.object = o->path;
    p.message =
        absl::StrCat(o == module ? module_path : o->path, ": CPU ISA level is lower than required");
    p.hint = absl::StrCat("it is built for ", X86IsaLevelName(need), "; this CPU is ",
                          loader.cpu().x86_isa_name);
    problems.push_back(std::move(p));
  }
  return problems;
}

// Relocation's scope: [global, searchlist]. Without the interpreter given, the program's own
// libc and dynamic linker still sit in the global scope of every process: a module that does not
// name libc binds to it anyway (docs/loader-model.md C3). Searched last here, they change no
// binding the scope already makes — only what it could not.
std::vector<const Object*> RelocationScope(World& w, const std::vector<const Object*>& searchlist,
                                           Object* module, const LoadOptions& options) {
  std::vector<const Object*> scope = w.global;
  for (const Object* o : searchlist) {
    if (std::find(scope.begin(), scope.end(), o) == scope.end()) scope.push_back(o);
  }
  if (!w.has_python && options.use_host &&
      std::none_of(scope.begin(), scope.end(),
                   [](const Object* o) { return NameMatches(*o, "libc.so.6"); })) {
    for (const Object* o : w.loader->ProcessBase(module)) {
      if (std::find(scope.begin(), scope.end(), o) == scope.end()) scope.push_back(o);
    }
  }
  return scope;
}

// dlopen of an object already loaded (as a dependency of what was loaded before) returns it:
// _dl_map_object finds it by file identity (docs/loader-model.md C2).
LoadFindings AlreadyLoaded(const std::string& module_path, const Object* module) {
  LoadFindings already;
  already.module = module_path;
  already.loads = true;
  already.libraries.push_back({module->names.front(), module->path, module->found_by, false});
  const std::string by =
      module->loader != nullptr && !module->loader->names.empty()
          ? absl::StrCat(" (", module->loader->names.front(), ", loaded before it, needs it)")
          : " (a dependency of what was loaded before it)";
  already.warnings.push_back(
      {module_path,
       absl::StrCat("already loaded", by, ": dlopen returns it as it is, nothing more to check")});
  return already;
}

// _dl_map_object_from_fd's refusals of the module itself (docs/loader-model.md A9, A10, A12).
std::optional<LoadFindings> RefusedModule(const Object* module, const std::string& module_path,
                                          const LoadOptions& options, LoadFindings& report) {
  MapRefusalResult refusal = MapRefusal(*module->elf, GlibcRelease(options));
  if (!refusal) return std::nullopt;
  if (refusal.assertion) {
    LoadFindings r = ModuleRefused(std::move(report), refusal.message, "");
    r.problems.back().kind = FailureKind::kLoaderAssertion;
    return r;
  }
  const std::string message = absl::StrCat(module_path, ": ", refusal.message);
  return ModuleRefused(std::move(report), message, RefusalHint(message));
}

}  // namespace

absl::StatusOr<ModuleLoad> LoadModule(World& w, const InputFile& module_input,
                                      const std::vector<InputFile>& providers,
                                      ModuleAlreadyLoaded if_loaded, const Object* set_aside) {
  const std::string& module_path = module_input.name;
  Loader& loader = *w.loader;
  const LoadOptions& options = loader.options();
  ModuleLoad load;
  LoadFindings& report = load.findings;
  report.module = module_path;
  for (const std::string& n : options.notes) report.warnings.push_back({module_path, n});
  ABICHECK_RETURN_IF_ERROR(OtherMachineProviders(w, providers, module_path, set_aside, &report));

  ABICHECK_ASSIGN_OR_RETURN(Object * module,
                            loader.OpenGiven(module_input, HowFound::kModule, false));
  if (module->preexisting) {
    // Given itself as a provider is a usage error; loaded as a provider's dependency (check
    // libcublas.so.13 against CUDA's lib64, where libcusolver needs it), dlopen returns it.
    if (if_loaded == ModuleAlreadyLoaded::kIsAnError && module->found_by == HowFound::kProvider) {
      return absl::InvalidArgumentError(absl::StrCat(module_path, ": is also given as a provider"));
    }
    load.findings = AlreadyLoaded(module_path, module);
    return load;
  }
  if (std::optional<LoadFindings> refused = RefusedModule(module, module_path, options, report)) {
    load.findings = std::move(*refused);
    return load;
  }

  std::vector<MapFailure> failures;  // this load's own (the world's are in w.failures)
  ABICHECK_ASSIGN_OR_RETURN(std::vector<const Object*> searchlist,
                            loader.MapDeps(module, false, &failures));
  for (const Object* o : searchlist) {
    report.libraries.push_back(
        {o->names.empty() ? o->path : o->names.front(), o->path, o->found_by, !o->preexisting});
    if (!o->not_the_installs.empty()) report.not_the_installs.push_back(o);
  }
  WarnSecondCopies(w, searchlist, module, set_aside, &report);
  std::vector<LoadFailure> map_problems = MapProblems(w, failures, module_path, set_aside, &report);
  std::vector<LoadFailure> version_problems =
      VersionProblems(loader, searchlist, failures, &report);
  std::vector<LoadFailure> isa_problems = IsaProblems(loader, module, searchlist, module_path);
  load.scope = RelocationScope(w, searchlist, module, options);
  ABICHECK_ASSIGN_OR_RETURN(std::vector<LoadFailure> symbol_problems,
                            Relocate(loader, load.scope, searchlist, options, &report));
  for (auto* group : {&map_problems, &version_problems, &isa_problems, &symbol_problems}) {
    for (LoadFailure& p : *group) report.problems.push_back(std::move(p));
  }
  if (!report.problems.empty()) report.problems.front().first = true;
  report.assumed_loaded = loader.assumed_used();
  NoteNotTheInstalls(&report);
  load.module = module;
  return load;
}

absl::Status JudgeModule(const World& w, const InputFile& module_input, ModuleLoad* load) {
  LoadFindings& report = load->findings;
  // Unknown is a verdict (C2c): what only an absent library could define was not read.
  // E12: nor what rests on a library another file may stand in front of once pip installs the
  // wheels the world lacks.
  report.loads = report.problems.empty() && report.unverified_references == 0 &&
                 report.not_the_installs.empty();
  if (w.device.any()) {
    ABICHECK_RETURN_IF_ERROR(
        CheckDeviceCode(w.device, *load->module->elf, *module_input.blob, &report,
                        /*verdict_only=*/false, module_input.device_code.get()));
    CheckCudaRuntime(w.device, &report);
  }
  report.torch_abi = report.torch_cxx_references > 0    ? TorchUse::kUnstable
                     : report.torch_shim_references > 0 ? TorchUse::kStable
                                                        : TorchUse::kNoTorch;
  return absl::OkStatus();
}

absl::Status IndexedTablesStatus(const World& w, const Loader::Mark& since,
                                 const Object* set_aside) {
  // An index decodes its name blocks on demand: a malformed one found on the way fails the check.
  for (const Object* o : w.indexed) {
    if (o != set_aside) ABICHECK_RETURN_IF_ERROR(o->syms->status());
  }
  for (const Object* o : w.loader->loaded_since(since)) ABICHECK_RETURN_IF_ERROR(o->syms->status());
  return absl::OkStatus();
}

absl::StatusOr<std::vector<LoadFindings>> GivenOwnLoads(World& w) {
  Loader& loader = *w.loader;
  const LoadOptions& options = loader.options();
  std::vector<Object*> roots;
  for (const Object* o : w.global) {
    if (o->found_by == HowFound::kPreload) roots.push_back(const_cast<Object*>(o));
  }
  for (Object* o : w.given) {
    if (o != nullptr) roots.push_back(o);
  }
  const absl::flat_hash_set<const Object*> given(roots.begin(), roots.end());
  // Each load as the first to bring the world's objects: they are new to it, so what they need
  // and is not among the files (C2a) is what this load depends on (Loader::MapObject).
  struct Fresh {
    std::vector<Object*> made_new;
    ~Fresh() {
      for (Object* o : made_new) o->preexisting = true;
    }
  } fresh;
  for (const Object* o : loader.loaded()) {
    if (!o->preexisting) continue;
    fresh.made_new.push_back(const_cast<Object*>(o));
    fresh.made_new.back()->preexisting = false;
  }
  absl::flat_hash_set<const Object*> relocated;
  std::vector<LoadFindings> out;
  for (Object* root : roots) {
    if (relocated.contains(root)) continue;  // dlopen of a loaded object returns it
    // What the load names or assumes is undone after it (it maps nothing new).
    struct Undo {
      Loader& loader;
      Loader::Mark mark;
      ~Undo() { loader.Rollback(mark); }
    } undo{loader, loader.Checkpoint()};
    std::vector<MapFailure> failures;
    ABICHECK_ASSIGN_OR_RETURN(std::vector<const Object*> searchlist,
                              loader.MapDeps(root, false, &failures));
    // What this dlopen loads of the given objects, each relocated once (C1's order); the host's
    // libraries they need are taken to load.
    std::vector<const Object*> objects;
    // An index keeps what a library exports, not its relocations: its own load is not read.
    for (const Object* o : RelocationOrder(searchlist, options)) {
      if (given.contains(o) && relocated.insert(o).second && !o->syms->external())
        objects.push_back(o);
    }
    LoadFindings f;
    f.module = root->path;
    std::vector<LoadFailure> problems = VersionProblems(loader, searchlist, failures, &f, &objects);
    const std::vector<const Object*> scope = RelocationScope(w, searchlist, root, options);
    ABICHECK_ASSIGN_OR_RETURN(std::vector<LoadFailure> symbols,
                              RelocateObjects(loader, scope, searchlist, objects, options, &f));
    for (LoadFailure& p : symbols) problems.push_back(std::move(p));
    if (problems.empty()) continue;
    f.problems = std::move(problems);
    f.problems.front().first = true;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace abicheck
