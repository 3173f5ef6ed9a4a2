// The dlopen of one module, phase by phase (docs/loader-model.md §C1): the process before it (a
// World: the interpreter, the preloaded objects, the providers), then the module's map, version
// and relocation phases, each returning its findings (findings.h: the loader's own records, which
// api/ turns into the public Report). What these findings mean across builds is diagnose/'s;
// which modules and builds are checked, api/'s.
#ifndef ABICHECK_LIB_RESOLVE_WORLD_H_
#define ABICHECK_LIB_RESOLVE_WORLD_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/elf/elf_file.h"
#include "lib/io/blob.h"
#include "lib/resolve/device_check.h"
#include "lib/resolve/findings.h"
#include "lib/resolve/loader.h"
#include "lib/resolve/parse_cache.h"

namespace abicheck {

// What a module that is already among the loaded objects means: a mistake in the input (the
// user named it as a provider too), or, as dlopen sees it, an object that loads at once.
enum class ModuleAlreadyLoaded { kIsAnError, kLoads };

// The process before the dlopen being predicted (docs/loader-model.md §C3, §E): the interpreter
// and the preloaded objects in the global scope, the providers loaded RTLD_LOCAL, each with its
// dependencies. CheckObjects makes one per check; CheckMatrix one per package and build, in which
// each of the package's modules is checked with its own object set aside (E7).
struct World {
  std::unique_ptr<Loader> loader;
  uint16_t machine = 0;  // the loader's: that of the module that made the world
  bool is_64 = false, big_endian = false, has_python = false;
  DeviceTarget device;
  std::vector<const Object*> global;
  std::vector<Object*> given;         // per provider input, its object
  std::vector<size_t> other_machine;  // the inputs of another class or machine: not loaded
  std::vector<Object*> providers;     // the others, in order
  absl::flat_hash_set<const Object*> own_package;
  std::vector<MapFailure> failures;  // the providers' failed loads, as met
  // Those failures, each (requester, name) once, by name in the order met.
  struct MissingName {
    std::string name;
    std::vector<const Object*> needed_by;
    std::vector<size_t> met_at;  // each one's place among the distinct failures
  };
  std::vector<MissingName> missing;
  absl::flat_hash_map<std::string, size_t> missing_index;
  absl::flat_hash_set<std::pair<const Object*, std::string>> seen_failures;
  // The providers by soname stem ("libc10.so"), in order: the second-copy test.
  absl::flat_hash_map<std::string, std::vector<const Object*>> by_stem;
  std::vector<const Object*> indexed;  // objects read from an index: their status can change
  // Per provider input: a module that is this input may be checked here with it set aside —
  // the world without it is this one less that object (nothing else needs it, its dependencies
  // brought nothing new and it was not the first to walk another object's, it is one input
  // only).
  std::vector<bool> set_aside_ok;
  // Per provider input, whether opening it made a new object, and whether mapping its
  // dependencies changed the world (MarkSetAside); and how many objects the world had once its
  // given objects were opened, before any dependency (where ExtendWorld puts new ones).
  std::vector<bool> opened_new, mapped_new;
  size_t given_end = 0;
};

// The module's own ELF header, which picks the loader; nullopt with `refused` filled where
// open_verify refuses it (docs/loader-model.md A11).
absl::StatusOr<std::optional<ElfFile>> ProbeModule(const InputFile& module, LoadFindings* refused);
// `own_package`: the first that many providers are the module's own package's objects (E7),
// which count as loaded but are checked themselves — unlike the build's libraries, their
// dependencies that cannot be found are not assumed loaded (C2a).
absl::StatusOr<World> PrepareWorld(const ElfFile& probe, const std::vector<InputFile>& providers,
                                   const std::vector<InputFile>& preload, const InputFile* python,
                                   const LoadOptions& options, ParseCache* parses,
                                   size_t own_package);

// The world PrepareWorld would make of `providers`, made from `w`, which it made of their first
// `from`: the new ones opened where it would have opened them and their dependencies mapped after
// the others', with nothing assumed loaded meanwhile. False, and `w` as it was, where the new
// world could differ otherwise: a new object one of `w`'s already is, or one that answers to a
// name `w`'s objects have or asked for, or that could stand in for one they miss
// (docs/loader-model.md E7). Between checks only; `w` is to be dropped after an error.
absl::StatusOr<bool> ExtendWorld(World& w, const std::vector<InputFile>& providers, size_t from,
                                 size_t own_package, ParseCache* parses);

// One module's dlopen in a world, up to the end of relocation.
struct ModuleLoad {
  LoadFindings findings;
  // nullptr where the findings are already whole: the loader refused the module before mapping its
  // dependencies, or it was loaded already.
  const Object* module = nullptr;
  std::vector<const Object*> scope;  // the relocation scope: global, then the search list
};
// Runs between the world's Loader::Checkpoint() and Rollback() (the caller's), with `set_aside`
// (the module's own object among its package's, or nullptr) set aside in the loader.
// `providers`: the inputs the world was made of; the options are the world's (Loader::options()).
absl::StatusOr<ModuleLoad> LoadModule(World& w, const InputFile& module,
                                      const std::vector<InputFile>& providers,
                                      ModuleAlreadyLoaded if_loaded, const Object* set_aside);
// After the load: sets LoadFindings::loads, checks the module's device code and CUDA runtime
// against --gpu/--cuda-driver and says how it uses torch (E8).
absl::Status JudgeModule(const World& w, const InputFile& module, ModuleLoad* load);
// After the explanations (which read more of the tables): a malformed index block met on the way
// since `since` (the checkpoint the module was loaded after) fails the check.
absl::Status IndexedTablesStatus(const World& w, const Loader::Mark& since,
                                 const Object* set_aside);

// E2a: what dlopen of each given library, in the order given (the global scope's first), would
// meet, as the process that loaded them before the module did: each given object relocated once,
// by the first of those loads that brings it, in that load's scope; the host's libraries they
// need are taken to load. One LoadFindings per load that fails (`module`: the library opened),
// its problems in ld.so's order. What rests on a library that is not among the files (C2a) fails
// nothing. Between checks only; the world is as it was after.
absl::StatusOr<std::vector<LoadFindings>> GivenOwnLoads(World& w);

// E8: a name of torch's stable C shim (aoti_torch_*, torch_*), or of its C++ API.
bool IsTorchShimName(absl::string_view name);
bool IsTorchCxxName(absl::string_view name);

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_WORLD_H_
