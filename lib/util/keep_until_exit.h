// Objects left for the process's exit to release (CheckOptions::release_at_exit). A command-line
// run that ends right after its check need not unmap its inputs and free its tables one piece at
// a time — the kernel drops the whole address space at exit in one pass; lld and mold leave
// their link's data the same way. The objects stay reachable from a global that is never
// destroyed, so a leak checker does not count them.
#ifndef ABICHECK_LIB_UTIL_KEEP_UNTIL_EXIT_H_
#define ABICHECK_LIB_UTIL_KEEP_UNTIL_EXIT_H_

#include <memory>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/synchronization/mutex.h"

namespace abicheck {

template <class T>
void KeepUntilExit(std::unique_ptr<T> object) {
  ABSL_CONST_INIT static absl::Mutex mu(absl::kConstInit);
  // Never deleted: its destructor would do at exit the work this saves.
  static auto* kept = new std::vector<std::shared_ptr<void>>();
  absl::MutexLock lock(&mu);
  kept->push_back(std::shared_ptr<T>(std::move(object)));
}

}  // namespace abicheck

#endif  // ABICHECK_LIB_UTIL_KEEP_UNTIL_EXIT_H_
