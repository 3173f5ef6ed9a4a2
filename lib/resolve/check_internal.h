// The check over objects already expanded from inputs: what Check() and CheckMatrix() call, and
// what the whole-pipeline fuzzer drives without touching the file system.
#ifndef ABICHECK_LIB_RESOLVE_CHECK_INTERNAL_H_
#define ABICHECK_LIB_RESOLVE_CHECK_INTERNAL_H_

#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/elf/elf_file.h"
#include "lib/io/blob.h"
#include "lib/resolve/device_check.h"
#include "lib/resolve/loader.h"
#include "lib/resolve/parse_cache.h"

namespace abicheck {

// What a module that is already among the loaded objects means: a mistake in the input (the
// user named it as a provider too), or, as dlopen sees it, an object that loads at once.
enum class ModuleAlreadyLoaded { kIsAnError, kLoads };

absl::StatusOr<Report> CheckObjects(const InputFile& module,
                                    const std::vector<InputFile>& providers,
                                    const std::vector<InputFile>& preload, const InputFile* python,
                                    const CheckOptions& options,
                                    ModuleAlreadyLoaded if_loaded = ModuleAlreadyLoaded::kIsAnError,
                                    ParseCache* parses = nullptr, size_t own_package = 0);
// `own_package`: the first that many providers are the module's own package's objects (E7), which
// count as loaded but are checked themselves — unlike the build's libraries, their dependencies
// that cannot be found are not assumed loaded (C2a).

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
};

// The module's own ELF header, which picks the loader; nullopt with `refused` filled where
// open_verify refuses it (docs/loader-model.md A11).
absl::StatusOr<std::optional<ElfFile>> ProbeModule(const InputFile& module, Report* refused);
absl::StatusOr<World> PrepareWorld(const ElfFile& probe, const std::vector<InputFile>& providers,
                                   const std::vector<InputFile>& preload, const InputFile* python,
                                   const CheckOptions& options, ParseCache* parses,
                                   size_t own_package);
// One module's dlopen in `w` (`providers`: the inputs the world was made of). What it loads is
// undone afterwards. `set_aside`: one of the world's objects that this check does not see — the
// module itself among its package's objects (only where w.set_aside_ok says so).
absl::StatusOr<Report> CheckInWorld(World& w, const InputFile& module,
                                    const std::vector<InputFile>& providers,
                                    const CheckOptions& options, ModuleAlreadyLoaded if_loaded,
                                    const Object* set_aside);

// Fills m->recommendation from the cells (two or more builds): the build with the fewest failing
// modules, the newest among equals. A build marked in `unusable` (import torch itself fails with
// it) fails every module.
void Recommend(Matrix* m, const std::vector<bool>& unusable = {});

// "torch-2.10.0-3-cp312-..." -> {2, 10, 0}: the first dotted number of a build's file name (else
// of its whole name); empty when there is none. Newer compares greater.
std::vector<int> BuildVersion(absl::string_view build);

// Fills ModuleInfo::torch_abi from the cells and, for stable-ABI objects with several builds,
// ModuleInfo::stable_since (docs/loader-model.md E8).
void MarkTorchAbi(Matrix* m);
bool IsTorchShimName(absl::string_view name);

// How a recommendation names a build: "torch-2.10.0-3-cp312-..." for a wheel, "torch-2.10.0/torch"
// for a directory (the shortest tail of its path that names a version).
std::string BuildLabel(absl::string_view build);

// libtorch_global_deps: loaded RTLD_GLOBAL by import torch (docs/loader-model.md E1).
bool IsGlobalDeps(const InputFile& f);
// `path` as one file (a directory, archive or index is an error naming `role`).
absl::StatusOr<InputFile> SingleFile(const std::string& path, const char* role);

// How a module row is shown (ModuleInfo::label).
struct ExpandedInput;
// Per object of an expanded module input, its package: one for a wheel, a file or a package's
// own directory; one per top-level entry of a directory of installed packages (E7, E9).
std::vector<std::string> PackagesOf(const ExpandedInput& ex);

std::string ModuleLabel(const ExpandedInput& in, const InputFile& f);

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_CHECK_INTERNAL_H_
