// Wheels and other zip archives, read in place (a file, or a URL through HTTP range requests:
// lib/io/http_source.h): the central directory through libzip, member bytes streamed raw
// (ZIP_FL_COMPRESSED) through Intel ISA-L's inflate into a SparseImage that keeps only the ranges
// asked for. Nothing is written to disk; member names are never paths.
#ifndef ABICHECK_LIB_IO_ZIP_ARCHIVE_H_
#define ABICHECK_LIB_IO_ZIP_ARCHIVE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/io/blob.h"
#include "lib/io/byte_source.h"
#include "lib/io/deflate_tail.h"
#include "lib/io/mapped_file.h"
#include "lib/io/read_limits.h"

struct zip_file;  // libzip's (zip.h): an open member

namespace abicheck {

struct ZipMember {
  uint64_t index = 0;
  std::string name;
  uint64_t size = 0;  // declared uncompressed size
  uint64_t comp_size = 0;
  uint16_t method = 0;  // 0 stored, 8 deflated
  bool has_crc = false;
  uint32_t crc = 0;  // the central directory's CRC-32 of the uncompressed bytes
};

// Which bytes of a member to keep.
struct RetainPlan {
  uint64_t prefix = uint64_t{32} << 20;  // the first bytes: headers and, in every real library, the
                                         // dynamic tables (libtorch_cpu's end at 16.2 MB)
  // and PT_DYNAMIC's file range (offset, size), which this finds in the member's first bytes as
  // they stream by (the ELF stage's DynamicSegmentRange: this stage knows no ELF); null: none.
  std::function<std::optional<std::pair<uint64_t, uint64_t>>(absl::Span<const uint8_t> head)>
      dynamic_range;
  // Where the first bytes to keep end, read from them as they stream by (the ELF stage's
  // FirstSegmentEnd); kept up to kMaxHead. With a small `prefix`, what a URL's member is read
  // with: the tables where they are, not the first 32 MiB. Null: `prefix` alone.
  std::function<std::optional<uint64_t>(absl::Span<const uint8_t> head)> head_end;
  static constexpr uint64_t kMaxHead = uint64_t{32} << 20;
  RangeSet extra;  // and these
  bool everything = false;
  std::function<void(uint64_t)> on_bytes;  // bytes inflated since the last call
  // Once PT_DYNAMIC has streamed by: more ranges to keep, read from the image so far (the tables
  // a dynamic section names, which patchelf may have moved past it, to the end of the file).
  std::function<RangeSet(const SparseImage& so_far, uint64_t produced)> on_dynamic;
  // From the first bytes, as dynamic_range: more ranges to keep (the ELF stage's section headers,
  // for a device-code walk). Null: none.
  std::function<RangeSet(absl::Span<const uint8_t> head)> head_ranges;
  // Sees every byte as it is inflated, in order, before any is dropped (the ELF stage's walk of
  // .nv_fatbin); inflation goes on at least to `scan_to` though nothing there is kept.
  std::function<void(uint64_t at, absl::Span<const uint8_t> bytes)> watch;
  uint64_t scan_to = 0;
  // Inflate to the end and check the member's CRC-32 (a mismatch is kDataLoss, as Python's
  // zipfile refuses it). Off: stop once everything wanted is in, the CRC unchecked.
  bool verify_crc = true;
};

// --fast: which of a member's wanted bytes are decoded from the end of its deflate stream
// (lib/io/deflate_tail.h) and which are inflated on to from where the stream is (ZipArchive::
// Inflate; here for the tests).
namespace tail_rules {
// Whether [from, size) is decoded from the end first, the stream having made `produced` bytes
// and `compressed_left` compressed bytes left to read; `url`: every byte read is a byte fetched.
bool FromTheEndFirst(bool url, uint64_t size, uint64_t from, uint64_t produced,
                     uint64_t compressed_left);
// Of the `missing` ranges (sorted, past `produced`; the end decoded from `from` on), those to
// decode from the end as well rather than inflate on to: the split that costs least, counting the
// bytes inflated from `produced` to the last range left to inflating, and `factor` times those
// decoded from the end before `from` (6 from a file, a decode's passes; 1 over HTTP, the bytes
// fetched either way).
RangeSet CloserToTheEnd(const RangeSet& missing, uint64_t produced, uint64_t from, uint64_t factor);
}  // namespace tail_rules

class ZipArchive {
 public:
  // Opens `path` and reads its central directory; each reader opens its own handle.
  static absl::StatusOr<std::shared_ptr<ZipArchive>> Open(const std::string& path,
                                                          const ReadLimits& limits);
  ~ZipArchive();

  const std::string& path() const { return path_; }
  // A URL's archive (read by HTTP range requests): its bytes fetched so far, its size, and what
  // its reader had to do (a server ignoring ranges). A file's: 0, 0, none.
  bool remote() const { return source_ != nullptr; }
  uint64_t fetched() const { return source_ ? source_->fetched() : 0; }
  uint64_t size() const { return source_ ? source_->size() : 0; }
  std::string identity() const { return source_ ? source_->identity() : ""; }
  std::vector<std::string> source_notes() const {
    return source_ ? source_->notes() : std::vector<std::string>{};
  }
  const std::vector<ZipMember>& members() const { return members_; }
  // What the archive holds that pip resolves one way: a name given to several entries (the last
  // is the one pip installs, and the one kept here).
  const std::vector<std::string>& notes() const { return notes_; }

  // The first `n` bytes of a member (fewer if it is shorter).
  absl::StatusOr<std::string> Head(const ZipMember& m, size_t n) const;
  // Inflates a member, keeping what `plan` asks for. Thread-safe: each call uses its own handle.
  absl::StatusOr<std::unique_ptr<SparseImage>> Inflate(const ZipMember& m,
                                                       const RetainPlan& plan) const;

 private:
  ZipArchive() = default;
  struct Handle;
  // `check`: ZIP_CHECKCONS, every local header against its central-directory entry (the first
  // handle only: the archive does not change between them).
  absl::StatusOr<std::unique_ptr<Handle>> OpenHandle(bool check = false) const;
  // A handle for one reader at a time: opening one reads the whole central directory, so each is
  // reused (one per thread at most) — one open per member made archives quadratic.
  absl::StatusOr<std::unique_ptr<Handle>> Borrow() const;
  void Return(std::unique_ptr<Handle> h) const;
  // --fast: the wanted ranges far past the inflated bytes, from the member's end (zip_archive.cc).
  absl::StatusOr<bool> FromTheEnd(::zip_file* zf, const ZipMember& m, const RangeSet& ahead,
                                  uint64_t produced, uint64_t dynamic_end, const RetainPlan& plan,
                                  SparseImage* img, RangeSet* want, RangeSet* before) const;

  // FromTheEnd's decode of `need` from the member's last compressed bytes, read into `end` as
  // far back as it takes (zip_archive.cc).
  std::optional<DeflateTail> DecodeTail(::zip_file* zf, const ZipMember& m, uint64_t left,
                                        const RangeSet& need, std::vector<uint8_t>* end) const;

  std::string path_;
  std::unique_ptr<ByteSource> source_;  // a URL's (each handle reads through a clone); else null
  ReadLimits limits_;
  std::vector<ZipMember> members_;
  std::vector<std::string> notes_;
  mutable std::mutex pool_mutex_;
  mutable std::vector<std::unique_ptr<Handle>> pool_;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_ZIP_ARCHIVE_H_
