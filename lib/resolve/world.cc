// The phases of dl_open_worker for one module — map the dependency closure, check the versions
// every new object needs, relocate — collecting every failure where ld.so stops at the first
// one, and marking that first one (docs/loader-model.md §C1). Each phase is one function here.
#include "lib/resolve/world.h"

#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "lib/demangle/demangle.h"
#include "lib/elf/elf_constants.h"
#include "lib/resolve/device_check.h"
#include "lib/resolve/host_cpu.h"
#include "lib/resolve/loader.h"
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

bool IsGpuDriverLibrary(absl::string_view soname) { return soname == "libcuda.so.1"; }

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

namespace {

// Global scope: the interpreter and preloaded objects with their dependencies
// (docs/loader-model.md §C3).
absl::Status AddGlobal(World& w, const InputFile& in, FoundBy how) {
  ABICHECK_ASSIGN_OR_RETURN(Object * o, w.loader->OpenGiven(in, how, /*preexisting=*/true));
  ABICHECK_ASSIGN_OR_RETURN(std::vector<const Object*> list,
                            w.loader->MapDeps(o, true, &w.failures));
  for (const Object* l : list) {
    if (std::find(w.global.begin(), w.global.end(), l) == w.global.end()) w.global.push_back(l);
  }
  return absl::OkStatus();
}

// Providers: loaded before, RTLD_LOCAL (docs/loader-model.md §E) — visible only through
// DT_NEEDED. Those of another class or machine are not loaded with the module (LoadModule says
// so). Returns, per provider, whether opening it made a new object.
absl::StatusOr<std::vector<bool>> OpenProviders(World& w, const std::vector<InputFile>& providers,
                                                size_t own_package) {
  Loader& loader = *w.loader;
  std::vector<bool> opened_new(providers.size(), false);
  for (size_t i = 0; i < providers.size(); ++i) {
    const size_t before = loader.object_count();
    ABICHECK_ASSIGN_OR_RETURN(
        Object * o, loader.OpenGiven(providers[i], FoundBy::kProvider, /*preexisting=*/true));
    opened_new[i] = loader.object_count() > before;
    w.given.push_back(o);
    if (o->elf->machine() != w.machine || o->elf->is_64() != w.is_64) {
      w.other_machine.push_back(i);
      continue;
    }
    w.providers.push_back(o);
    if (i < own_package) w.own_package.insert(o);
  }
  return opened_new;
}

// Maps each provider's dependencies, in order. Returns, per provider, whether its walk changed
// the world: it loaded an object, matched a file by identity, or walked another object's
// dependencies first (whose failures then come earlier in the world's order than in the world
// without it).
absl::StatusOr<std::vector<bool>> MapProviders(World& w, size_t count) {
  Loader& loader = *w.loader;
  std::vector<bool> mapped_new(count, false);
  for (size_t i = 0, k = 0; i < count; ++i) {
    if (k >= w.providers.size() || w.given[i] != w.providers[k]) continue;
    ++k;
    const size_t objects = loader.object_count(), matches = loader.identity_matches(),
                 walks = loader.fresh_walks();
    ABICHECK_RETURN_IF_ERROR(loader.MapProviderDeps(w.given[i], &w.failures));
    const size_t own_walk = w.given[i]->elf->dependencies().empty() ? 0 : 1;
    mapped_new[i] = loader.object_count() > objects || loader.identity_matches() > matches ||
                    loader.fresh_walks() - walks > own_walk;
  }
  return mapped_new;
}

// What the providers needed and could not be found was loaded with them (C2a). Every failure of
// the world is a preexisting object's: what LoadModule reports of them, each (requester, name)
// once, grouped by name in the order met.
void RecordWorldFailures(World& w) {
  for (const MapFailure& f : w.failures) {
    if (f.requester != nullptr && f.requester->preexisting &&
        f.kind == ProblemKind::kMissingLibrary && !w.own_package.contains(f.requester))
      w.loader->AssumeLoaded(f.name);
  }
  for (const MapFailure& f : w.failures) {
    if (!w.seen_failures.insert({f.requester, f.name}).second) continue;
    auto [it, added] = w.missing_index.try_emplace(f.name, w.missing.size());
    if (added) w.missing.push_back({f.name, {}, {}});
    w.missing[it->second].needed_by.push_back(f.requester);
    w.missing[it->second].met_at.push_back(w.seen_failures.size() - 1);
  }
}

// docs/loader-model.md E7: a module of the package is checked in this world with its own object
// set aside only where the world without it is this one less that object — nothing else loaded
// needs it, its walk brought nothing in and walked no other object first, it is not two inputs
// at once.
void MarkSetAside(World& w, const std::vector<bool>& opened_new,
                  const std::vector<bool>& mapped_new) {
  absl::flat_hash_set<const Object*> needed, twice, once;
  for (const Object* o : w.loader->loaded()) {
    for (const Object* d : o->deps) {
      if (d != nullptr && d != o) needed.insert(d);
    }
  }
  for (const Object* g : w.given) {
    if (!once.insert(g).second) twice.insert(g);
  }
  w.set_aside_ok.resize(w.given.size());
  for (size_t i = 0; i < w.given.size(); ++i) {
    const Object* o = w.given[i];
    w.set_aside_ok[i] = opened_new[i] && !mapped_new[i] && !needed.contains(o) &&
                        !twice.contains(o) && w.own_package.contains(o) &&
                        std::find(w.global.begin(), w.global.end(), o) == w.global.end();
  }
}

}  // namespace

absl::StatusOr<World> PrepareWorld(const ElfFile& probe, const std::vector<InputFile>& providers,
                                   const std::vector<InputFile>& preload, const InputFile* python,
                                   const CheckOptions& options, ParseCache* parses,
                                   size_t own_package) {
  World w;
  w.machine = probe.machine();
  w.is_64 = probe.is_64();
  w.big_endian = probe.big_endian();
  w.has_python = python != nullptr;
  std::shared_ptr<const LdCache> cache = std::make_shared<const LdCache>();
  if (options.use_host) {
    std::string sysroot = options.sysroot == "/" ? "" : options.sysroot;
    const std::string path = absl::StrCat(sysroot, "/etc/ld.so.cache");
    if (parses != nullptr) {
      ABICHECK_ASSIGN_OR_RETURN(cache, parses->HostCache(path));
    } else {
      ABICHECK_ASSIGN_OR_RETURN(LdCache read, LdCache::Read(path));
      cache = std::make_shared<const LdCache>(std::move(read));
    }
  }
  if (!options.gpu.empty() || !options.cuda_driver.empty()) {
    ABICHECK_ASSIGN_OR_RETURN(w.device, ResolveDeviceTarget(options, *cache, w.machine));
  }
  w.loader = std::make_unique<Loader>(options, w.machine, w.is_64, std::move(cache), parses);
  w.loader->SetBigEndian(w.big_endian);
  if (python != nullptr) ABICHECK_RETURN_IF_ERROR(AddGlobal(w, *python, FoundBy::kInterpreter));
  for (const InputFile& p : preload) ABICHECK_RETURN_IF_ERROR(AddGlobal(w, p, FoundBy::kPreload));
  ABICHECK_ASSIGN_OR_RETURN(std::vector<bool> opened_new, OpenProviders(w, providers, own_package));
  ABICHECK_ASSIGN_OR_RETURN(std::vector<bool> mapped_new, MapProviders(w, providers.size()));
  RecordWorldFailures(w);
  for (const Object* p : w.providers) {
    if (std::string stem = SonameStem(LibraryName(*p)); !stem.empty()) w.by_stem[stem].push_back(p);
  }
  for (const Object* o : w.loader->loaded()) {
    if (o->syms->external()) w.indexed.push_back(o);
  }
  MarkSetAside(w, opened_new, mapped_new);
  return w;
}

namespace {

void AddRefusal(std::vector<Problem>* group, ProblemKind kind, const std::string& object,
                std::string message) {
  Problem p;
  p.kind = kind;
  p.object = object;
  p.message = std::move(message);
  group->push_back(std::move(p));
}

// Providers of another class or machine: named one by one, a mistake in the input; inside a
// directory or archive, skipped with a note.
absl::Status OtherMachineProviders(const World& w, const std::vector<InputFile>& providers,
                                   const std::string& module_path, const Object* set_aside,
                                   Report* report) {
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
                      const Object* module, const Object* set_aside, Report* report) {
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
                        o->path, " (", FoundByName(o->found_by), ") beside the given ", pname, " (",
                        p->path, "); the process then holds two builds of it, and ",
                        o->names.front(),
                        "'s users bind to this copy. Rebuild against the given build."),
           WarningKind::kSecondCopy});
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
  void Warn(const std::string& module_path, Report* report) {
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

// The problem of a new object's failed dependency load (docs/loader-model.md §C2, §D).
Problem MapProblem(const MapFailure& f) {
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
  return p;
}

// Failed dependency loads. A provider's own dependency that cannot be found here was loaded
// wherever the provider was: not the module's problem, but the check is partial there, and the
// report says so. Each (requester, name) once: BFS walks a provider's DT_NEEDED again.
std::vector<Problem> MapProblems(const World& w, const std::vector<MapFailure>& failures,
                                 const std::string& module_path, const Object* set_aside,
                                 Report* report) {
  std::vector<Problem> problems;
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
                   std::vector<Problem>* problems, Report* report) {
  for (const VersionNeedAux& aux : need.aux) {
    bool found = false, refused = false;
    for (const VersionDef& d : provider->syms->version_defs()) {
      if (d.version != 1) {  // read before the comparison, record by record (B6)
        AddRefusal(problems, ProblemKind::kNotLoadable, provider->path,
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
    Problem p;
    p.kind = ProblemKind::kVersionNotFound;
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
std::vector<Problem> VersionProblems(Loader& loader, const std::vector<const Object*>& searchlist,
                                     const std::vector<MapFailure>& failures, Report* report) {
  std::vector<Problem> problems;
  for (const Object* o : searchlist) {
    if (o->preexisting) continue;
    for (const VersionNeed& need : o->syms->version_needs()) {
      // Only the first record's vn_version is looked at (B6).
      if (&need == &o->syms->version_needs().front() && need.version != 1) {
        AddRefusal(
            &problems, ProblemKind::kNotLoadable, o->path,
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
        AddRefusal(&problems, ProblemKind::kLoaderAssertion, o->path,
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
std::vector<Problem> IsaProblems(const Loader& loader, const Object* module,
                                 const std::string& module_path) {
  std::vector<Problem> problems;
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
    problems.push_back(std::move(p));
  }
  return problems;
}

// Relocation's scope: [global, searchlist]. Without the interpreter given, the program's own
// libc and dynamic linker still sit in the global scope of every process: a module that does not
// name libc binds to it anyway (docs/loader-model.md C3). Searched last here, they change no
// binding the scope already makes — only what it could not.
std::vector<const Object*> RelocationScope(World& w, const std::vector<const Object*>& searchlist,
                                           Object* module, const CheckOptions& options) {
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

// Relocation: every reference of every new object, dependencies first, looked up in the scope as
// elf_machine_rela's RESOLVE_MAP does (docs/loader-model.md §A, B7).
class Relocation {
 public:
  Relocation(const Loader& loader, const std::vector<const Object*>& scope, const Object* module,
             const CheckOptions& options, Report* report)
      : loader_(loader), scope_(scope), module_(module), options_(options), report_(*report) {}

  absl::StatusOr<std::vector<Problem>> Run() {
    for (const Object* o : RelocationOrder(module_)) {
      if (o->preexisting) continue;
      const std::shared_ptr<const References> refs = ReferencesOf(*o->syms);
      if (!refs->ok()) return refs->status();
      for (const Reference& ref : **refs) {
        if (ref.symbol != 0) {  // (0: a relocation that names no symbol, where ld.so stops)
          ABICHECK_RETURN_IF_ERROR(CheckReference(o, ref));
        }
        if (ref.stop == Reference::Stop::kNone) continue;
        // A relocation ld.so cannot apply (B7): nothing after it is relocated.
        const bool assertion = ref.stop == Reference::Stop::kRelativeAssertion;
        AddRefusal(&problems_,
                   assertion ? ProblemKind::kLoaderAssertion : ProblemKind::kNotLoadable, o->path,
                   assertion ? RelocationStopMessage(ref)
                             : absl::StrCat(o->path, ": ", RelocationStopMessage(ref)));
        return std::move(problems_);
      }
    }
    return std::move(problems_);
  }

 private:
  // E8: how the module itself uses torch.
  void CountTorchUse(const Symbol& sym) {
    if (IsTorchShimName(sym.name)) {
      ++report_.torch_shim_references;
    } else if (IsTorchCxxName(sym.name)) {
      if (report_.torch_cxx_references++ < 3)
        report_.torch_cxx_examples.push_back(Demangle(sym.name));
    }
  }

  // An object's references, decoded and validated once per call when the checks share parses.
  using References = absl::StatusOr<std::vector<Reference>>;
  std::shared_ptr<const References> ReferencesOf(const SymbolTable& t) const {
    ParseCache* shared = loader_.shared_parses();
    if (shared == nullptr) return std::make_shared<const References>(t.References());
    std::shared_ptr<const void>& slot = shared->Memo(&t, ParseCache::MemoKind::kReferences);
    if (slot == nullptr) slot = std::make_shared<const References>(t.References());
    return std::static_pointer_cast<const References>(slot);
  }

  absl::Status CheckReference(const Object* o, const Reference& ref) {
    Symbol sym = o->syms->GetOrEmpty(ref.symbol);
    if (o == module_ && sym.shndx == elf::SHN_UNDEF && !sym.name.empty()) CountTorchUse(sym);
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
    ++report_.references_checked;
    std::optional<WantedVersion> want = WantedVersionOf(*o->syms, ref.symbol);
    HashedName name(sym.name);
    bool asserts = false;
    std::optional<Binding> b =
        loader_.Lookup(scope_, name, want ? &*want : nullptr, ref.plt_class, &asserts);
    if (asserts) {
      AddRefusal(&problems_, ProblemKind::kLoaderAssertion, o->path,
                 "Inconsistency detected by ld.so: dl-lookup.c: 107: check_match: Assertion "
                 "`version->filename == NULL || ! _dl_name_match_p (version->filename, map)' "
                 "failed!");
      problems_.back().symbol = std::string(sym.name);
      problems_.back().demangled = Demangle(sym.name);
      if (want) problems_.back().version = std::string(want->name);
      return absl::OkStatus();
    }
    if (b) return CheckBinding(o, sym, *b);
    Unresolved(o, sym, want);
    return absl::OkStatus();
  }

  absl::Status CheckBinding(const Object* o, const Symbol& sym, const Binding& b) {
    if (!b.object->syms->external())  // an index keeps no addresses
      ABICHECK_RETURN_IF_ERROR(CheckDefinitionAddress(*b.object->elf, b.symbol));
    const bool ref_tls = sym.type() == elf::STT_TLS, def_tls = b.symbol.type() == elf::STT_TLS;
    if (sym.type() != elf::STT_NOTYPE && ref_tls != def_tls) {
      report_.warnings.push_back(
          {o->path, absl::StrCat("symbol ", sym.name, ": ", ref_tls ? "TLS" : "non-TLS",
                                 " reference bound to a ", def_tls ? "TLS" : "non-TLS",
                                 " definition in ", b.object->path)});
    }
    return absl::OkStatus();
  }

  // Which library loaded with the providers but not among the files (C2a) a reference nothing
  // defines may be left to: the first such that is not the GPU driver, whose reference then
  // makes the verdict unknown (C2c); else, for a C name, the driver's libcuda.so.1, which
  // exports its C API alone (cu*, cudbg*) and so never a C++ name (C2b); nullptr when none may
  // define it — the reference fails, as it will on the machine that has every library.
  const std::string* AssumedDefiner(absl::string_view name) const {
    const std::string* driver = nullptr;
    for (const std::string& a : loader_.assumed_used()) {
      if (!IsGpuDriverLibrary(a)) return &a;
      if (!absl::StartsWith(name, "_Z")) driver = &a;
    }
    return driver;
  }

  // A reference no object of the scope defines.
  void Unresolved(const Object* o, const Symbol& sym, const std::optional<WantedVersion>& want) {
    if (sym.bind() == elf::STB_WEAK) {
      ++report_.weak_unresolved;
      return;
    }
    if (options_.python.empty() && IsInterpreterSymbol(sym.name)) {
      ++report_.interpreter_symbols;
      return;
    }
    if (const std::string* definer = AssumedDefiner(sym.name)) {
      if (IsGpuDriverLibrary(*definer)) {
        ++report_.driver_references;  // (C2b)
        return;
      }
      ++report_.unverified_references;  // (C2a, C2c): any of them may define it
      for (const std::string& a : loader_.assumed_used()) {
        if (!IsGpuDriverLibrary(a) &&
            std::find(report_.unknown_because.begin(), report_.unknown_because.end(), a) ==
                report_.unknown_because.end())
          report_.unknown_because.push_back(a);
      }
      return;
    }
    Problem p;
    p.kind = ProblemKind::kUndefinedSymbol;
    p.object = o->path;
    p.symbol = std::string(sym.name);
    p.demangled = Demangle(sym.name);
    if (want) p.version = std::string(want->name);
    p.message = absl::StrCat(o->path, ": undefined symbol: ", sym.name,
                             want ? absl::StrCat(", version ", want->name) : "");
    problems_.push_back(std::move(p));
  }

  const Loader& loader_;
  const std::vector<const Object*>& scope_;
  const Object* module_;
  const CheckOptions& options_;
  Report& report_;
  std::vector<Problem> problems_;
};

// dlopen of an object already loaded (as a dependency of what was loaded before) returns it:
// _dl_map_object finds it by file identity (docs/loader-model.md C2).
Report AlreadyLoaded(const std::string& module_path, const Object* module) {
  Report already;
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
std::optional<Report> RefusedModule(const Object* module, const std::string& module_path,
                                    const CheckOptions& options, Report& report) {
  MapRefusalResult refusal = MapRefusal(*module->elf, GlibcRelease(options));
  if (!refusal) return std::nullopt;
  if (refusal.assertion) {
    Report r = ModuleRefused(std::move(report), refusal.message, "");
    r.problems.back().kind = ProblemKind::kLoaderAssertion;
    return r;
  }
  const std::string message = absl::StrCat(module_path, ": ", refusal.message);
  return ModuleRefused(std::move(report), message, RefusalHint(message));
}

}  // namespace

absl::StatusOr<ModuleLoad> LoadModule(World& w, const InputFile& module_input,
                                      const std::vector<InputFile>& providers,
                                      const CheckOptions& options, ModuleAlreadyLoaded if_loaded,
                                      const Object* set_aside) {
  const std::string& module_path = module_input.name;
  Loader& loader = *w.loader;
  ModuleLoad load;
  Report& report = load.report;
  report.module = module_path;
  for (const std::string& n : options.notes) report.warnings.push_back({module_path, n});
  ABICHECK_RETURN_IF_ERROR(OtherMachineProviders(w, providers, module_path, set_aside, &report));

  ABICHECK_ASSIGN_OR_RETURN(Object * module,
                            loader.OpenGiven(module_input, FoundBy::kModule, false));
  if (module->preexisting) {
    // Given itself as a provider is a usage error; loaded as a provider's dependency (check
    // libcublas.so.13 against CUDA's lib64, where libcusolver needs it), dlopen returns it.
    if (if_loaded == ModuleAlreadyLoaded::kIsAnError && module->found_by == FoundBy::kProvider) {
      return absl::InvalidArgumentError(absl::StrCat(module_path, ": is also given as a provider"));
    }
    load.report = AlreadyLoaded(module_path, module);
    return load;
  }
  if (std::optional<Report> refused = RefusedModule(module, module_path, options, report)) {
    load.report = std::move(*refused);
    return load;
  }

  std::vector<MapFailure> failures;  // this load's own (the world's are in w.failures)
  ABICHECK_ASSIGN_OR_RETURN(std::vector<const Object*> searchlist,
                            loader.MapDeps(module, false, &failures));
  for (const Object* o : searchlist) {
    report.libraries.push_back(
        {o->names.empty() ? o->path : o->names.front(), o->path, o->found_by, !o->preexisting});
  }
  WarnSecondCopies(w, searchlist, module, set_aside, &report);
  std::vector<Problem> map_problems = MapProblems(w, failures, module_path, set_aside, &report);
  std::vector<Problem> version_problems = VersionProblems(loader, searchlist, failures, &report);
  std::vector<Problem> isa_problems = IsaProblems(loader, module, module_path);
  load.scope = RelocationScope(w, searchlist, module, options);
  ABICHECK_ASSIGN_OR_RETURN(std::vector<Problem> symbol_problems,
                            Relocation(loader, load.scope, module, options, &report).Run());
  for (auto* group : {&map_problems, &version_problems, &isa_problems, &symbol_problems}) {
    for (Problem& p : *group) report.problems.push_back(std::move(p));
  }
  if (!report.problems.empty()) report.problems.front().first = true;
  report.assumed_loaded = loader.assumed_used();
  load.module = module;
  return load;
}

absl::Status FinishModule(const World& w, const Loader::Mark& since, const InputFile& module_input,
                          const Object* set_aside, ModuleLoad* load) {
  Report& report = load->report;
  // An index decodes its name blocks on demand: a malformed one found on the way fails the check.
  for (const Object* o : w.indexed) {
    if (o != set_aside) ABICHECK_RETURN_IF_ERROR(o->syms->status());
  }
  for (const Object* o : w.loader->loaded_since(since)) ABICHECK_RETURN_IF_ERROR(o->syms->status());
  // Unknown is a verdict (C2c): what only an absent library could define was not read.
  report.loads = report.problems.empty() && report.unverified_references == 0;
  if (w.device.any()) {
    ABICHECK_RETURN_IF_ERROR(
        CheckDeviceCode(w.device, *load->module->elf, *module_input.blob, &report,
                        /*verdict_only=*/false, module_input.device_code.get()));
    CheckCudaRuntime(w.device, &report);
  }
  report.torch_abi = report.torch_cxx_references > 0    ? TorchAbi::kUnstable
                     : report.torch_shim_references > 0 ? TorchAbi::kStable
                                                        : TorchAbi::kNoTorch;
  return absl::OkStatus();
}

}  // namespace abicheck
