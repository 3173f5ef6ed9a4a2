// The loader stage's own records (findings.h): the one thing they do beyond holding data.

#include "lib/resolve/findings.h"

#include <cstddef>
#include <iterator>

namespace abicheck {

const char* HowFoundName(HowFound how) {
  // In HowFound's order; the words of the reports' "found_by" (docs/json-schema.md).
  static constexpr const char* kNames[] = {
      "module", "provider",     "preload", "interpreter", "path",
      "rpath",  "library_path", "runpath", "ld.so.cache", "system",
  };
  const size_t i = static_cast<size_t>(how);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

}  // namespace abicheck
