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
// (the reverse of l_initfini, a depth-first post-order from the module).
std::vector<const Object*> RelocationOrder(const Object* module);

// Relocation: every reference of every new object, dependencies first, looked up in `scope` as
// elf_machine_rela's RESOLVE_MAP does (docs/loader-model.md §A, B7); the problems, in ld.so's
// order, and the counters in `report`.
absl::StatusOr<std::vector<LoadFailure>> Relocate(const Loader& loader,
                                                  const std::vector<const Object*>& scope,
                                                  const Object* module, const LoadOptions& options,
                                                  LoadFindings* report);

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_WORLD_INTERNAL_H_
