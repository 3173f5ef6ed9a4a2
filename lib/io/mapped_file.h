// A read-only memory map of one file: the only owner of input bytes in the pipeline
// (ARCHITECTURE.md).
#ifndef ABICHECK_LIB_IO_MAPPED_FILE_H_
#define ABICHECK_LIB_IO_MAPPED_FILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace abicheck {

// Identity of a file on disk, as glibc's _dl_file_id_match_p compares it (st_dev, st_ino).
struct FileId {
  uint64_t dev = 0;
  uint64_t ino = 0;
  bool operator==(const FileId&) const = default;
};

// A regular file of at most `max` bytes, read whole (not mapped: a file another process truncates
// cannot fault the reader); nullopt when absent, not regular, larger, or not read to its end.
std::optional<std::string> ReadWholeFile(const std::string& path, uint64_t max,
                                         bool follow_links = true);

class MappedFile {
 public:
  // Maps `path` read-only. Errors: kNotFound (no such file), kFailedPrecondition (a directory or
  // not a regular file), kPermissionDenied, kUnavailable (other I/O). An empty file maps to an
  // empty span. With kQuiet, a path that does not exist is a kNotFound without a message: a
  // search that tries directory after directory (ParseCache::Found) never shows it, and strerror's
  // message lookup is most of a failed try's cost.
  enum class Absent { kDescribe, kQuiet };
  static absl::StatusOr<MappedFile> Open(const std::string& path,
                                         Absent absent = Absent::kDescribe);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  absl::Span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }
  FileId id() const { return id_; }

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int slot_ = -1;  // in the table MappedFileContaining reads
  // Files of at most kAlwaysReadBelow bytes (less than a page) are read into this buffer instead
  // of mapped, and so are files of at most kReadBelow bytes once kMapBudget inputs are mapped: a
  // directory of 70,000 libraries would otherwise pass the kernel's vm.max_map_count (65,530).
  // Below that budget a larger file is mapped, so that only the pages a check touches are read: a
  // read copies the whole file and faults in a buffer as large, one fault per page, where a
  // mapping's first fault maps the file's cached pages around it (ld.so.cache and the host's
  // small stub libraries, 4-64 KB, are read by every check).
  static constexpr size_t kAlwaysReadBelow = size_t{4} << 10;
  static constexpr size_t kReadBelow = size_t{1} << 20;
  static constexpr int kMapBudget = 16384;
  std::unique_ptr<uint8_t[]> owned_;
  FileId id_;
};

// The path of the mapped input holding `addr`, or nullptr: for a SIGBUS handler (async-signal-
// safe: it reads a fixed table) to name the file that shrank while it was being read.
const char* MappedFileContaining(const void* addr);
// Installs, once, a SIGBUS handler that turns a fault inside a mapped input (the file was
// truncated or rewritten while being read) into "PROG: PATH: changed while being read" on stderr
// and exit(3); any other SIGBUS keeps its default. For programs (the CLI), not for a library's
// host process.
void ExitOnShrunkenInput(const char* prog);

// Stats `path` without mapping it; nullopt when it does not exist.
absl::StatusOr<FileId> StatFileId(const std::string& path);

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_MAPPED_FILE_H_
