// Index files: what one or several builds export (docs/index-format.md): each library's headers
// and version tables verbatim, and the entries its hash table leads do_lookup_x to, name by name
// in chain order, in a front-coded, block-compressed name section shared by every library — so a
// check against an index binds exactly as against the build, and loads in milliseconds.
#ifndef ABICHECK_LIB_INDEX_INDEX_FILE_H_
#define ABICHECK_LIB_INDEX_INDEX_FILE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/io/blob.h"

namespace abicheck {

inline constexpr uint32_t kIndexFormatVersion = 4;

struct IndexedBuild {
  std::string name;                // "torch-2.6.0+cuda-sid"
  std::vector<InputFile> objects;  // its libraries (providers only: never modules)
  // Made from a wheel: its path or URL when indexed (the objects' paths lie under it), and its
  // small text members (METADATA, torch/version.py, torch/__init__.py) — what its world is laid
  // out from (E10, E12). Empty for other builds.
  std::string wheel;
  std::vector<std::pair<std::string, std::string>> texts;
};

struct IndexStats {
  uint64_t file_bytes = 0;
  uint64_t libraries = 0;
  uint64_t names = 0;  // distinct names in the name section
};

// Writes `builds` to `path` (replacing it atomically).
absl::StatusOr<IndexStats> WriteIndex(const std::vector<IndexedBuild>& builds,
                                      const std::string& path);
// Maps an index. Every error — truncation, another format version, a checksum mismatch, tables
// that do not cover what they must — is kDataLoss (or kFailedPrecondition for the version)
// naming the file.
absl::StatusOr<std::vector<IndexedBuild>> ReadIndex(const std::string& path);
bool HasIndexMagic(absl::Span<const uint8_t> head);

}  // namespace abicheck

#endif  // ABICHECK_LIB_INDEX_INDEX_FILE_H_
