// Bytes of one input object and who owns them: a mapped file, or a zip member inflated into a
// sparse anonymous mapping of which only some ranges were written (ARCHITECTURE.md, "Wheels").
#ifndef ABICHECK_LIB_IO_BLOB_H_
#define ABICHECK_LIB_IO_BLOB_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "lib/io/mapped_file.h"

namespace abicheck {

// A sorted set of disjoint [begin, end) byte ranges.
class RangeSet {
 public:
  void Add(uint64_t begin, uint64_t end);
  bool Covers(uint64_t begin, uint64_t end) const;
  uint64_t TotalBytes() const;
  const std::vector<std::pair<uint64_t, uint64_t>>& ranges() const { return ranges_; }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
};

class Blob {
 public:
  virtual ~Blob() = default;
  virtual absl::Span<const uint8_t> bytes() const = 0;
  // Where the bytes are real; nullptr when all of them are.
  virtual const RangeSet* retained() const { return nullptr; }
  virtual std::optional<FileId> file_id() const { return std::nullopt; }
};

class MappedBlob final : public Blob {
 public:
  explicit MappedBlob(MappedFile file) : file_(std::move(file)) {}
  absl::Span<const uint8_t> bytes() const override { return file_.bytes(); }
  std::optional<FileId> file_id() const override { return file_.id(); }

 private:
  MappedFile file_;
};

// An anonymous MAP_NORESERVE mapping the size of an inflated member: pages never written cost
// nothing, so a 1.2 GB library whose tables fill 14 MB costs about 14 MB.
class SparseImage final : public Blob {
 public:
  static std::unique_ptr<SparseImage> Create(uint64_t size);
  ~SparseImage() override;
  absl::Span<const uint8_t> bytes() const override { return {data_, size_}; }
  const RangeSet* retained() const override { return &retained_; }
  uint8_t* mutable_data() { return data_; }
  RangeSet& mutable_retained() { return retained_; }
  // Bytes [offset, offset + length) of the open file `fd` at [at, at + length) of the image,
  // which must lie within its pages: mapped read-only from the page cache (MAP_FIXED over the
  // reservation, pages populated) when `at` and `offset` are multiples of the system's page size
  // (and the map is not refused), else read into it. False when the file has fewer bytes or the map
  // or read fails. The file must not shrink while the image lives (a mapped page past its end would
  // be SIGBUS).
  bool FillFrom(int fd, uint64_t offset, uint64_t at, uint64_t length);

 private:
  SparseImage() = default;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  RangeSet retained_;
};

// One ELF object given as input, from a file, a directory or an archive.
struct ExternalLibrary;     // lib/symbols: a library whose symbols an index holds
struct StreamedDeviceCode;  // lib/elf: device code walked as an archive member inflated

struct InputFile {
  std::string name;  // for messages and reports: a path, or "dist/x.whl!torch/lib/libc10.so"
  std::string path;  // as opened, for $ORIGIN; for archive members, archive path + "/" + member
  std::shared_ptr<const Blob> blob;
  // From an index: `blob` holds the headers and version tables only, the symbols are here.
  std::shared_ptr<const ExternalLibrary> external;
  // An archive member whose device code was asked for and that was too large to keep whole: its
  // .nv_fatbin walked as it inflated (`blob` holds its loader tables and section headers only).
  std::shared_ptr<const StreamedDeviceCode> device_code = nullptr;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_BLOB_H_
