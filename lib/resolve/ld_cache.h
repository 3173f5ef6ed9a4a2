// /etc/ld.so.cache as glibc's _dl_load_cache_lookup reads it (new "glibc-ld.so.cache1.1" format):
// searched in place, by the binary search glibc does (docs/loader-model.md C2).
#ifndef ABICHECK_LIB_RESOLVE_LD_CACHE_H_
#define ABICHECK_LIB_RESOLVE_LD_CACHE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

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

  // Checks the header of cache bytes (the entries are read when looked up). `name` is used in
  // messages.
  static absl::StatusOr<LdCache> Parse(absl::string_view name, absl::Span<const uint8_t> bytes);
  // Reads `path`; a missing file is an empty cache (as for ld.so).
  static absl::StatusOr<LdCache> Read(const std::string& path);

  // The path the cache gives for `soname` on `e_machine`, or nullopt: glibc's SEARCH_CACHE, a
  // binary search by _dl_cache_libcmp (names compared with their digit runs as numbers), back to
  // the first entry of the name, then forward to the first with the machine's flags. An entry
  // whose strings lie outside the file ends the search as glibc's check does; glibc-hwcaps
  // entries are passed over (ARCHITECTURE.md).
  std::optional<std::string> Lookup(absl::string_view soname, uint16_t e_machine) const;
  uint32_t size() const { return nlibs_; }

 private:
  // The entry's string at `offset` (from the new-format header), or nullopt when it is outside
  // the file or not NUL-terminated in it.
  std::optional<absl::string_view> String(uint32_t offset) const;

  // The header checked and the cache's bytes kept by `owner` (a copy, or the MappedFile read).
  static absl::StatusOr<LdCache> ParseKept(absl::string_view name,
                                           std::shared_ptr<const void> owner,
                                           absl::Span<const uint8_t> bytes);

  // The cache's bytes (about 50 KB), read whole by MappedFile or copied by Parse: the cache file
  // may change while a check runs.
  std::shared_ptr<const void> owner_;
  absl::Span<const uint8_t> bytes_;
  uint64_t base_ = 0;  // the new-format header
  uint32_t nlibs_ = 0;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_LD_CACHE_H_
