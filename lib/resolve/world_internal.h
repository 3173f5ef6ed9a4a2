// What the phases of one module's dlopen share between world.cc, world_prepare.cc and
// relocation.cc; not for other stages.
#ifndef ABICHECK_LIB_RESOLVE_WORLD_INTERNAL_H_
#define ABICHECK_LIB_RESOLVE_WORLD_INTERNAL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/resolve/findings.h"
#include "lib/resolve/loader.h"
#include "lib/resolve/world.h"

namespace abicheck {

// A problem of `kind` for `object` with ld.so's `message`, appended to `group`.
void AddRefusal(std::vector<LoadFailure>* group, FailureKind kind, const std::string& object,
                std::string message);

// The order in which dl_open_worker relocates new objects: dependencies before dependents
// (docs/loader-model.md C1: l_initfini of the search list, `searchlist` from MapDeps with the
// module first, sorted as _dl_sort_maps_dfs sorts it, last entry first).
std::vector<const Object*> RelocationOrder(const std::vector<const Object*>& searchlist,
                                           const LoadOptions& options);
// Whether the legacy sort orders l_initfini (_dl_sort_maps_original): glibc before 2.35, or
// GLIBC_TUNABLES=glibc.rtld.dynamic_sort=1 in abicheck's environment (docs/loader-model.md C1).
bool LegacySort(const LoadOptions& options);
// _dl_sort_maps_original's l_initfini of `searchlist` (the module first, kept first).
std::vector<const Object*> LegacyInitFini(const std::vector<const Object*>& searchlist);

// Relocation: every reference of every new object of `searchlist` (the module first), in
// RelocationOrder, looked up in `scope` as elf_machine_rela's RESOLVE_MAP does
// (docs/loader-model.md §A, B7, C1); the problems, in ld.so's order, and the counters in `report`.
absl::StatusOr<std::vector<LoadFailure>> Relocate(const Loader& loader,
                                                  const std::vector<const Object*>& scope,
                                                  const std::vector<const Object*>& searchlist,
                                                  const LoadOptions& options, LoadFindings* report);

// Relocate for `objects` of `searchlist` alone, in that order, whether loaded before or not: a
// given library's own load (docs/loader-model.md E2a).
absl::StatusOr<std::vector<LoadFailure>> RelocateObjects(
    const Loader& loader, const std::vector<const Object*>& scope,
    const std::vector<const Object*>& searchlist, const std::vector<const Object*>& objects,
    const LoadOptions& options, LoadFindings* report);

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_WORLD_INTERNAL_H_
