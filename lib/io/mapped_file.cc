// mmap with errors that name the file; abicheck never loads or executes what it maps.
#include "lib/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace abicheck {
namespace {

absl::Status ErrnoStatus(const std::string& path, int err) {
  std::string msg = absl::StrCat(path, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(msg);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(msg);
    case EISDIR:
      return absl::FailedPreconditionError(absl::StrCat(path, ": is a directory"));
    default:
      return absl::UnavailableError(msg);
  }
}

}  // namespace

absl::StatusOr<FileId> StatFileId(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(path, errno);
  return FileId{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer; what is not a regular
  // file is refused below, before any read.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return ErrnoStatus(path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus(path, err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return ErrnoStatus(path, EISDIR);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(absl::StrCat(path, ": not a regular file (",
                                                      S_ISFIFO(st.st_mode)   ? "a FIFO"
                                                      : S_ISCHR(st.st_mode)  ? "a character device"
                                                      : S_ISBLK(st.st_mode)  ? "a block device"
                                                      : S_ISSOCK(st.st_mode) ? "a socket"
                                                                             : "not a file",
                                                      ")"));
  }
  MappedFile file;
  file.path_ = path;
  file.id_ = FileId{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  file.size_ = static_cast<size_t>(st.st_size);
  if (file.size_ > 0) {
    void* p = ::mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus(path, err);
    }
    file.data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    id_ = other.id_;
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace abicheck
