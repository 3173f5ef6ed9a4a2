// abicheck's cache of what was read from published wheels (issue 33; docs/cache.md): a wheel
// given as a URL whose sha256 the index gave (pip's report) is read by range requests once; what
// its expansion kept — each shared object's loader tables at their offsets, its METADATA and
// torch's version files, the notes — is written under $XDG_CACHE_HOME/abicheck/wheels (default
// ~/.cache/abicheck), keyed by that sha256, and later runs expand it from there without the
// network. The same bytes go through the same parse: a verdict from the cache is the verdict
// from the wheel. An entry is written whole (a temporary file renamed into place) and checked
// whole (its CRC-32C) when read; a damaged one is a miss, read again and rewritten.
#ifndef ABICHECK_LIB_INPUTS_WHEEL_CACHE_H_
#define ABICHECK_LIB_INPUTS_WHEEL_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "lib/inputs/inputs.h"
#include "lib/io/read_limits.h"

namespace abicheck {

// $XDG_CACHE_HOME/abicheck (an absolute XDG_CACHE_HOME), else $HOME/.cache/abicheck; "" when
// neither is set or ABICHECK_NO_CACHE is set (non-empty): then nothing is read or written.
std::string CacheRoot();

// Makes `dir`, a folder of the cache (and its parent, the cache's root), private to the user:
// 0700. A path that is a symlink or a file is not used: nothing outside the cache is written.
// False when it cannot be had (then nothing is written there).
bool PrivateDirectory(const std::string& dir);

// The sha256 an index gave for the archive at `url` (pip's report), remembered for the rest of
// the process; "" when none was given. Thread-safe.
void RememberDigest(const std::string& url, const std::string& sha256);
std::string DigestOf(const std::string& url);

// The expansion of the wheel at `url` as a run with these limits read it before; nullopt when
// there is no such entry (no digest known, none written, another read mode, limits it exceeds,
// or damaged). `whole_members` expansions are never cached.
std::optional<ExpandedInput> LoadCachedWheel(const std::string& url, const ReadLimits& limits);
// Why LoadCachedWheel found nothing for `url`, for --offline's error: "not in abicheck's cache
// (ROOT)", or, when an entry is there but unusable, that it is damaged (docs/cache.md).
std::string CacheMissReason(const std::string& url, const ReadLimits& limits);
// The text members of that entry only (METADATA, torch/version.py): a world's requirements.
std::optional<std::vector<std::pair<std::string, std::string>>> CachedWheelTexts(
    const std::string& url, const ReadLimits& limits);
// Writes `in` (the expansion of the wheel at `url`, read with `limits`) when its digest is known;
// a cache not written is not an error.
void StoreCachedWheel(const std::string& url, const ExpandedInput& in, const ReadLimits& limits);

// `url` was read by range requests by this process (and stored): an entry read back for it says
// its bytes were fetched now (fetched_bytes, the notes as read), not from_cache — a remote build's
// worlds are read into the cache first and gathered from it (PrefetchBuildWorlds).
void RememberFetchedNow(const std::string& url);

// `abicheck cache list|clear`: what the cache holds.
struct CachedItem {
  std::string kind;    // "wheel" (what was read of one) or "pip" (a resolution)
  std::string name;    // the wheel's file name, or the requirement
  std::string detail;  // "sha256 ..., 12.3 % read", or the wheel it resolved to
  std::string path;
  uint64_t bytes = 0;
  int64_t written = 0;  // seconds since the epoch
};
std::vector<CachedItem> ListCachedItems();
// Removes every entry (and temporary files left by interrupted writes); the count and bytes.
absl::Status ClearCachedItems(uint64_t* files, uint64_t* bytes);

}  // namespace abicheck

#endif  // ABICHECK_LIB_INPUTS_WHEEL_CACHE_H_
