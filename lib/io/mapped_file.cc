// mmap with errors that name the file; abicheck never loads or executes what it maps.
#include "lib/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace abicheck {
namespace {

absl::Status ErrnoStatus(const std::string& path, int err) {
  // An empty argument is named as such, not as ": No such file".
  const std::string name = path.empty() ? "'' (an empty path)" : path;
  std::string msg = absl::StrCat(name, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(msg);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(msg);
    case EISDIR:
      return absl::FailedPreconditionError(absl::StrCat(name, ": is a directory"));
    default:
      return absl::UnavailableError(msg);
  }
}

}  // namespace

namespace {

// Mapped inputs, for the SIGBUS handler: fixed slots, written with atomics, read lock-free.
struct Slot {
  std::atomic<const uint8_t*> begin{nullptr};
  std::atomic<size_t> size{0};
  std::atomic<const char*> path{nullptr};
};
constexpr size_t kSlots = 1 << 14;
Slot g_slots[kSlots];
std::atomic<size_t> g_next{0};
std::atomic<int> g_mapped{0};  // inputs mapped now (MappedFile::kMapBudget)
const char* g_prog = "abicheck";

int Register(const uint8_t* data, size_t size, const std::string& path) {
  char* copy = new char[path.size() + 1];
  std::memcpy(copy, path.c_str(), path.size() + 1);
  for (size_t tries = 0; tries < kSlots; ++tries) {
    const size_t i = g_next.fetch_add(1) % kSlots;
    Slot& s = g_slots[i];
    const uint8_t* expected = nullptr;
    if (s.begin.compare_exchange_strong(expected, data)) {
      s.size.store(size);
      s.path.store(copy);
      return static_cast<int>(i);
    }
  }
  delete[] copy;  // full: this mapping goes unnamed (a SIGBUS in it keeps its default)
  return -1;
}

void Unregister(int slot) {
  if (slot < 0) return;
  Slot& s = g_slots[slot];
  const char* p = s.path.exchange(nullptr);
  s.size.store(0);
  s.begin.store(nullptr);
  delete[] p;
}

void OnSigbus(int sig, siginfo_t* info, void*) {
  const char* path = MappedFileContaining(info->si_addr);
  if (path == nullptr) {
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  // One line, from the first thread that faults: a listing reads on every core, and two threads
  // reading the shrunk file fault together. The others wait for its _exit.
  static std::atomic<bool> reporting{false};
  if (reporting.exchange(true)) {
    for (;;) ::pause();
  }
  char line[8192];
  size_t n = 0;
  auto put = [&](const char* s, size_t len) {
    len = std::min(len, sizeof line - n);
    std::memcpy(line + n, s, len);
    n += len;
  };
  put(g_prog, std::strlen(g_prog));
  put(": ", 2);
  // The name, its control bytes escaped as everywhere else.
  for (const char* c = path; *c != '\0' && n < sizeof line - 128; ++c) {
    const unsigned char u = static_cast<unsigned char>(*c);
    if (u < 0x20 || u == 0x7f) {
      const char esc[4] = {'\\', 'x', "0123456789abcdef"[u >> 4], "0123456789abcdef"[u & 15]};
      put(esc, 4);
    } else {
      put(c, 1);
    }
  }
  static constexpr char kWhat[] =
      ": changed while being read (the file shrank: it is being written or replaced)\n";
  put(kWhat, sizeof kWhat - 1);
  (void)!::write(2, line, n);
  ::_exit(3);
}

}  // namespace

absl::StatusOr<FileId> StatFileId(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(path, errno);
  return FileId{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path, Absent absent) {
  // O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer; what is not a regular
  // file is refused below, before any read.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (absent == Absent::kQuiet && (err == ENOENT || err == ENOTDIR))
      return absl::NotFoundError("");
    return ErrnoStatus(path, err);
  }
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
  // Files under a page are read, not mapped, and so are small files once many are mapped, to
  // keep the mappings under the kernel's limit (see kAlwaysReadBelow).
  const bool read =
      file.size_ <= kAlwaysReadBelow ||
      (file.size_ <= kReadBelow && g_mapped.load(std::memory_order_relaxed) >= kMapBudget);
  if (file.size_ > 0 && read) {
    // Not zeroed first (make_unique would): every byte is read into it below, or the open fails.
    file.owned_ = std::unique_ptr<uint8_t[]>(new uint8_t[file.size_]);
    size_t got = 0;
    while (got < file.size_) {
      const ssize_t n =
          ::pread(fd, file.owned_.get() + got, file.size_ - got, static_cast<off_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int err = n < 0 ? errno : 0;
        ::close(fd);
        if (err != 0) return ErrnoStatus(path, err);
        return absl::DataLossError(
            absl::StrCat(path,
                         ": changed while being read (the file shrank: it is being "
                         "written or replaced)"));
      }
      got += static_cast<size_t>(n);
    }
    file.data_ = file.owned_.get();
  } else if (file.size_ > 0) {
    void* p = ::mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus(path, err);
    }
    file.data_ = static_cast<const uint8_t*>(p);
    file.slot_ = Register(file.data_, file.size_, path);
    g_mapped.fetch_add(1, std::memory_order_relaxed);
  }
  ::close(fd);
  return file;
}

const char* MappedFileContaining(const void* addr) {
  const uint8_t* a = static_cast<const uint8_t*>(addr);
  for (const Slot& s : g_slots) {
    const uint8_t* b = s.begin.load();
    if (b != nullptr && a >= b && a < b + s.size.load()) return s.path.load();
  }
  return nullptr;
}

void ExitOnShrunkenInput(const char* prog) {
  g_prog = prog;
  struct sigaction sa = {};
  sa.sa_sigaction = OnSigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, nullptr);
}

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr && !owned_) {
      Unregister(slot_);
      ::munmap(const_cast<uint8_t*>(data_), size_);
      g_mapped.fetch_sub(1, std::memory_order_relaxed);
    }
    owned_ = std::move(other.owned_);
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    slot_ = std::exchange(other.slot_, -1);
    size_ = std::exchange(other.size_, 0);
    id_ = other.id_;
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr && !owned_) {
    Unregister(slot_);
    ::munmap(const_cast<uint8_t*>(data_), size_);
    g_mapped.fetch_sub(1, std::memory_order_relaxed);
  }
}

std::optional<std::string> ReadWholeFile(const std::string& path, uint64_t max, bool follow_links) {
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow_links ? 0 : O_NOFOLLOW));
  if (fd < 0) return std::nullopt;
  std::optional<std::string> out;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) <= max) {
    std::string s(static_cast<size_t>(st.st_size), '\0');
    size_t got = 0;
    while (got < s.size()) {
      const ssize_t n = ::read(fd, s.data() + got, s.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    if (got == s.size()) out = std::move(s);
  }
  ::close(fd);
  return out;
}

}  // namespace abicheck
