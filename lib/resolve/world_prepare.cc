// PrepareWorld: the libraries already loaded when a module is imported (the build's, the
// global scope's, the module's own package's), opened and mapped once for every module checked
// in that world.

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lib/resolve/device_check.h"
#include "lib/resolve/loader.h"
#include "lib/resolve/world_internal.h"
#include "lib/util/status_macros.h"

namespace abicheck {

namespace {

// Global scope: the interpreter and preloaded objects with their dependencies
// (docs/loader-model.md §C3).
absl::Status AddGlobal(World& w, const InputFile& in, HowFound how) {
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
                                                size_t own_package, size_t from = 0) {
  Loader& loader = *w.loader;
  std::vector<bool> opened_new(providers.size(), false);
  for (size_t i = from; i < providers.size(); ++i) {
    const size_t before = loader.object_count();
    ABICHECK_ASSIGN_OR_RETURN(
        Object * o, loader.OpenGiven(providers[i], HowFound::kProvider, /*preexisting=*/true));
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
absl::StatusOr<std::vector<bool>> MapProviders(World& w, size_t count, size_t from = 0) {
  Loader& loader = *w.loader;
  std::vector<bool> mapped_new(count, false);
  for (size_t i = from; i < count; ++i) {
    // Those of another class or machine are not loaded with the module: nothing to map.
    if (std::find(w.other_machine.begin(), w.other_machine.end(), i) != w.other_machine.end())
      continue;
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
        f.kind == FailureKind::kMissingLibrary && !w.own_package.contains(f.requester))
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
                                   const LoadOptions& options, ParseCache* parses,
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
  if (python != nullptr) ABICHECK_RETURN_IF_ERROR(AddGlobal(w, *python, HowFound::kInterpreter));
  for (const InputFile& p : preload) ABICHECK_RETURN_IF_ERROR(AddGlobal(w, p, HowFound::kPreload));
  ABICHECK_ASSIGN_OR_RETURN(w.opened_new, OpenProviders(w, providers, own_package));
  w.given_end = w.loader->object_count();
  ABICHECK_ASSIGN_OR_RETURN(w.mapped_new, MapProviders(w, providers.size()));
  RecordWorldFailures(w);
  for (const Object* p : w.providers) {
    if (std::string stem = SonameStem(LibraryName(*p)); !stem.empty()) w.by_stem[stem].push_back(p);
  }
  for (const Object* o : w.loader->loaded()) {
    if (o->syms->external()) w.indexed.push_back(o);
  }
  MarkSetAside(w, w.opened_new, w.mapped_new);
  return w;
}

namespace {

// Loader::SameStemProvider's test: `name` (a soname or file name) starts with `stem`, whole.
bool HasStem(absl::string_view name, absl::string_view stem) {
  return name.size() >= stem.size() && name.substr(0, stem.size()) == stem &&
         (name.size() == stem.size() || name[stem.size()] == '.');
}

// Whether `x`, opened in `w` before its dependencies were mapped, would have changed what
// mapping them did: `w` has it already, or one of its names is one `w`'s objects have or asked
// for and missed, or it could stand in for a library they miss.
bool WouldChangeWorld(const World& w, const InputFile& x, const ParsedObject& parsed) {
  const Loader& loader = *w.loader;
  if (x.external != nullptr || !parsed.elf || !parsed.syms || loader.HasFile(x)) return true;
  const absl::string_view soname = parsed.elf->soname();
  const std::string file = Basename(x.path);
  for (absl::string_view n : {absl::string_view(x.path), absl::string_view(x.name), soname}) {
    if (!n.empty() && loader.HasName(n)) return true;
  }
  for (const MapFailure& f : w.failures) {
    if (f.name == x.path || f.name == x.name || (!soname.empty() && f.name == soname)) return true;
    if (!loader.options().same_stem_stand_ins || f.stand_in != nullptr) continue;
    const std::string stem = SonameStem(f.name);
    if (!stem.empty() && (HasStem(soname, stem) || HasStem(file, stem))) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<bool> ExtendWorld(World& w, const std::vector<InputFile>& providers, size_t from,
                                 size_t own_package, ParseCache* parses) {
  if (from > providers.size() || from != w.given.size()) return false;
  for (size_t i = from; i < providers.size(); ++i) {
    for (size_t j = from; j < i; ++j) {  // two new ones that are one file or share a name
      if (providers[j].blob == providers[i].blob || providers[j].path == providers[i].path)
        return false;
    }
    if (WouldChangeWorld(w, providers[i], parses->Given(providers[i]))) return false;
  }
  for (size_t i = from; i < providers.size(); ++i) {
    for (size_t j = from; j < i; ++j) {
      const ParsedObject& a = parses->Given(providers[i]);
      const ParsedObject& b = parses->Given(providers[j]);
      if (!a.elf->soname().empty() && a.elf->soname() == b.elf->soname()) return false;
    }
  }
  Loader& loader = *w.loader;
  const size_t opened_at = loader.object_count(), providers_before = w.providers.size();
  ABICHECK_ASSIGN_OR_RETURN(std::vector<bool> opened_new,
                            OpenProviders(w, providers, own_package, from));
  // A new world opens every given object before it maps any dependency.
  loader.MoveObjects(opened_at, w.given_end);
  w.given_end += loader.object_count() - opened_at;
  const absl::flat_hash_set<std::string> assumed = loader.TakeAssumed();
  absl::StatusOr<std::vector<bool>> mapped_new = MapProviders(w, providers.size(), from);
  loader.PutBackAssumed(assumed);
  if (!mapped_new.ok()) return mapped_new.status();
  for (size_t i = from; i < providers.size(); ++i) {
    w.opened_new.push_back(opened_new[i]);
    w.mapped_new.push_back((*mapped_new)[i]);
  }
  // The rest as PrepareWorld ends: each step over what it had, and the new ones after.
  RecordWorldFailures(w);
  for (size_t k = providers_before; k < w.providers.size(); ++k) {
    const Object* p = w.providers[k];
    if (std::string stem = SonameStem(LibraryName(*p)); !stem.empty()) w.by_stem[stem].push_back(p);
  }
  w.indexed.clear();
  for (const Object* o : loader.loaded()) {
    if (o->syms->external()) w.indexed.push_back(o);
  }
  MarkSetAside(w, w.opened_new, w.mapped_new);
  return true;
}

}  // namespace abicheck
