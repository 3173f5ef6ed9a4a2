// Index files: what one or several builds export, kept as the libraries' own dynamic tables
// (docs/index-format.md) so that a check against an index is the same check, byte for byte, as
// against the build — and loads in milliseconds, memory-mapped.
#ifndef ABICHECK_LIB_INDEX_INDEX_FILE_H_
#define ABICHECK_LIB_INDEX_INDEX_FILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/io/blob.h"

namespace abicheck {

inline constexpr char kIndexMagic[8] = {'A', 'B', 'I', 'C', 'H', 'K', 'I', 'X'};
inline constexpr uint32_t kIndexFormatVersion = 1;

struct IndexedBuild {
  std::string name;               // "torch-2.6.0+cuda-sid"
  std::vector<InputFile> objects; // its libraries (providers only: never modules)
};

struct IndexStats {
  uint64_t file_bytes = 0;
  uint64_t table_bytes = 0;    // tables written (after deduplication)
  uint64_t deduplicated = 0;   // table bytes shared with an earlier range
  uint64_t libraries = 0;
};

// Writes `builds` to `path` (replacing it atomically).
absl::StatusOr<IndexStats> WriteIndex(const std::vector<IndexedBuild>& builds, const std::string& path);
// Maps an index. Every error — truncation, another format version, a checksum mismatch, tables
// that do not cover what they must — is kDataLoss (or kFailedPrecondition for the version)
// naming the file.
absl::StatusOr<std::vector<IndexedBuild>> ReadIndex(const std::string& path);
bool HasIndexMagic(absl::Span<const uint8_t> head);

}  // namespace abicheck

#endif  // ABICHECK_LIB_INDEX_INDEX_FILE_H_
