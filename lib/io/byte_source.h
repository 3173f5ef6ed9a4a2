// Where an archive's bytes come from: a file on disk, or a URL read with HTTP range requests
// (issue 33: a published build read from the package index without downloading it). The zip
// reader reads through this interface; nothing above the io stage knows which one it reads.
#ifndef ABICHECK_LIB_IO_BYTE_SOURCE_H_
#define ABICHECK_LIB_IO_BYTE_SOURCE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace abicheck {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // The path or URL, as errors name it.
  virtual const std::string& name() const = 0;
  virtual uint64_t size() const = 0;
  // Fills `out` with the bytes at `offset` (fewer only past the end). Not thread-safe: one reader
  // at a time; Clone() makes another.
  virtual absl::StatusOr<size_t> ReadAt(uint64_t offset, absl::Span<uint8_t> out) = 0;
  // Another reader of the same bytes (its own connection), sharing what was fetched.
  virtual absl::StatusOr<std::unique_ptr<ByteSource>> Clone() const = 0;
  // Bytes fetched from where the source lives so far, by this reader and its clones.
  virtual uint64_t fetched() const = 0;
  // What the reader had to do that a user should know, once each ("the server ignores range
  // requests: the archive is read whole").
  virtual std::vector<std::string> notes() const { return {}; }
  // The reads that follow must end by `deadline` (one archive member's: lib/io/deadlines.h);
  // a read past it fails. A file's reads have none.
  virtual void SetDeadline(std::chrono::steady_clock::time_point deadline) { (void)deadline; }
  // What names this version of the bytes where they live (a URL's ETag); "" for a file.
  virtual std::string identity() const { return ""; }
};

// "http://..." or "https://...": read by range requests.
bool IsUrl(absl::string_view path);

// The last path component of a URL without its query ("torch-2.10.0-...whl"), as messages name
// the file.
std::string UrlFileName(absl::string_view url);

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_BYTE_SOURCE_H_
