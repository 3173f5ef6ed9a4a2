// /etc/ld.so.cache as glibc's _dl_load_cache_lookup reads it (new "glibc-ld.so.cache1.1" format).
#ifndef ABICHECK_LIB_RESOLVE_LD_CACHE_H_
#define ABICHECK_LIB_RESOLVE_LD_CACHE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace abicheck {

class LdCache {
 public:
  // Out of line: inlined into CheckObjects, destroying the map makes GCC 12 warn
  // -Wfree-nonheap-object about abseil's empty-table sentinel (a known false positive).
  LdCache();
  ~LdCache();
  LdCache(const LdCache&);
  LdCache(LdCache&&) noexcept;
  LdCache& operator=(const LdCache&);
  LdCache& operator=(LdCache&&) noexcept;

  // Parses cache bytes. `name` is used in messages.
  static absl::StatusOr<LdCache> Parse(absl::string_view name, absl::Span<const uint8_t> bytes);
  // Reads `path`; a missing file is an empty cache (as for ld.so).
  static absl::StatusOr<LdCache> Read(const std::string& path);

  // The path the cache gives for `soname` on `e_machine`, or nullopt.
  std::optional<std::string> Lookup(absl::string_view soname, uint16_t e_machine) const;
  size_t size() const { return entries_.size(); }

 private:
  // A copy of the cache's bytes (about 100 KB) that the map's views point into: no string per
  // entry is built, which made reading the cache a sixth of a whole check.
  std::shared_ptr<const std::string> bytes_;
  // (soname, required flags) -> path; the first entry in file order wins.
  absl::flat_hash_map<std::pair<absl::string_view, int32_t>, absl::string_view> entries_;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_LD_CACHE_H_
