// A file written whole or not at all: bytes go to a temporary file unique to this writer
// (mkstemp, in the target's directory), renamed over the target only when every write and the
// close succeeded, removed on any error, on destruction and on SIGINT/SIGTERM. A symlink is
// followed to its target; what is not a regular file (a device such as /dev/null, a FIFO) is
// written in place, never replaced; a directory is an error.
#ifndef ABICHECK_LIB_IO_OUTPUT_FILE_H_
#define ABICHECK_LIB_IO_OUTPUT_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace abicheck {

class OutputFile {
 public:
  static absl::StatusOr<OutputFile> Create(const std::string& path);
  // A file private to the user (0600), for abicheck's own cache: nothing at `path` is followed or
  // written in place — a symlink, a FIFO or any other non-directory there is replaced whole by
  // the rename, so that nothing outside the file's directory is ever written.
  static absl::StatusOr<OutputFile> CreatePrivate(const std::string& path);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  ~OutputFile();  // not committed: the temporary file is removed

  absl::Status Write(absl::string_view bytes);
  // Closes and renames into place; after it, the object is spent.
  absl::Status Commit();

 private:
  OutputFile() = default;
  // The temporary file beside path_, registered for removal on a signal.
  absl::Status OpenTemporary(const std::string& path);
  std::string path_;  // the target (a symlink resolved)
  std::string tmp_;   // "" when writing in place
  int fd_ = -1;
  bool failed_ = false;
};

// Create + Write + Commit.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view bytes);
// CreatePrivate + Write + Commit.
absl::Status WritePrivateFileAtomically(const std::string& path, absl::string_view bytes);

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_OUTPUT_FILE_H_
