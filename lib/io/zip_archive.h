// Wheels and other zip archives, read in place: the central directory through libzip, member
// bytes streamed raw (ZIP_FL_COMPRESSED) through Intel ISA-L's inflate into a SparseImage that
// keeps only the ranges asked for. Nothing is written to disk; member names are never paths.
#ifndef ABICHECK_LIB_IO_ZIP_ARCHIVE_H_
#define ABICHECK_LIB_IO_ZIP_ARCHIVE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/status/statusor.h"
#include "lib/io/blob.h"
#include "lib/io/mapped_file.h"

namespace abicheck {

struct ZipMember {
  uint64_t index = 0;
  std::string name;
  uint64_t size = 0;  // declared uncompressed size
  uint64_t comp_size = 0;
  uint16_t method = 0;  // 0 stored, 8 deflated
};

// Which bytes of a member to keep.
struct RetainPlan {
  uint64_t prefix = uint64_t{32} << 20;  // the first bytes: headers and, in every real library, the
                                         // dynamic tables (libtorch_cpu's end at 16.2 MB)
  bool dynamic_segment = true;           // and PT_DYNAMIC, found from the header as it streams by
  RangeSet extra;                        // and these
  bool everything = false;
  std::function<void(uint64_t)> on_bytes;  // bytes inflated since the last call
};

class ZipArchive {
 public:
  // Opens `path` and reads its central directory; each reader opens its own handle.
  static absl::StatusOr<std::shared_ptr<ZipArchive>> Open(const std::string& path,
                                                          const InputLimits& limits);
  ~ZipArchive();

  const std::string& path() const { return path_; }
  const std::vector<ZipMember>& members() const { return members_; }

  // The first `n` bytes of a member (fewer if it is shorter).
  absl::StatusOr<std::string> Head(const ZipMember& m, size_t n) const;
  // Inflates a member, keeping what `plan` asks for. Thread-safe: each call uses its own handle.
  absl::StatusOr<std::unique_ptr<SparseImage>> Inflate(const ZipMember& m,
                                                       const RetainPlan& plan) const;

 private:
  ZipArchive() = default;
  struct Handle;
  absl::StatusOr<std::unique_ptr<Handle>> OpenHandle() const;

  std::string path_;
  InputLimits limits_;
  std::vector<ZipMember> members_;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_ZIP_ARCHIVE_H_
