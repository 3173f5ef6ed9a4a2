// CacheDirectory, ListCache, ClearCache: abicheck's cache (lib/inputs/wheel_cache.h).
#include "abicheck/abicheck.h"
#include "lib/inputs/wheel_cache.h"
#include "lib/util/status_macros.h"

namespace abicheck {

std::string CacheDirectory() { return CacheRoot(); }

std::vector<CacheItem> ListCache() {
  std::vector<CacheItem> out;
  for (CachedItem& c : ListCachedItems()) {
    out.push_back({std::move(c.kind), std::move(c.name), std::move(c.detail), std::move(c.path),
                   c.bytes, c.written});
  }
  return out;
}

absl::StatusOr<std::pair<uint64_t, uint64_t>> ClearCache() {
  uint64_t files = 0, bytes = 0;
  ABICHECK_RETURN_IF_ERROR(ClearCachedItems(&files, &bytes));
  return std::make_pair(files, bytes);
}

}  // namespace abicheck
