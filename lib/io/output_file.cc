// Whole-or-nothing output files (see output_file.h).
#include "lib/io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "absl/strings/str_cat.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

absl::Status ErrnoError(const std::string& path, int err) {
  return absl::UnavailableError(absl::StrCat(path, ": ", std::strerror(err)));
}

// Temporary files to remove if SIGINT or SIGTERM ends the process while they exist. The handler
// only reads a fixed array of C strings (unlink is async-signal-safe).
constexpr int kMaxPending = 16;
std::atomic<char*> g_pending[kMaxPending];
std::once_flag g_handlers;

void RemovePendingAndDie(int sig) {
  for (auto& p : g_pending) {
    if (char* name = p.load()) ::unlink(name);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void InstallHandlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old;
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL)
      std::signal(sig, RemovePendingAndDie);
  }
}

void AddPending(char* name) {
  std::call_once(g_handlers, InstallHandlers);
  for (auto& p : g_pending) {
    char* expected = nullptr;
    if (p.compare_exchange_strong(expected, name)) return;
  }
}

void RemovePending(const char* name) {
  for (auto& p : g_pending) {
    char* n = p.load();
    if (n != nullptr && std::strcmp(n, name) == 0 && p.compare_exchange_strong(n, nullptr)) {
      delete[] n;
      return;
    }
  }
}

}  // namespace

absl::StatusOr<OutputFile> OutputFile::Create(const std::string& path) {
  OutputFile f;
  f.path_ = path;
  std::error_code ec;
  if (std::filesystem::is_symlink(path, ec)) {  // write the file the link names, keep the link
    std::filesystem::path target = std::filesystem::read_symlink(path, ec);
    if (!ec && target.is_relative()) target = std::filesystem::path(path).parent_path() / target;
    if (!ec) f.path_ = target.string();
  }
  struct stat st;
  const bool exists = ::stat(f.path_.c_str(), &st) == 0;
  if (exists) {
    if (S_ISDIR(st.st_mode)) return ErrnoError(path, EISDIR);
    if (!S_ISREG(st.st_mode)) {  // /dev/null, a FIFO, a terminal: written where it is
      f.fd_ = ::open(f.path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (f.fd_ < 0) return ErrnoError(path, errno);
      return f;
    }
  }
  ABICHECK_RETURN_IF_ERROR(f.OpenTemporary(path));
  // mkstemp makes 0600: a replaced file keeps its mode, a new one gets what open(2) would give.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(f.fd_, exists ? st.st_mode & 07777 : 0666 & ~mask);
  return f;
}

absl::StatusOr<OutputFile> OutputFile::CreatePrivate(const std::string& path) {
  OutputFile f;
  f.path_ = path;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return ErrnoError(path, EISDIR);
  ABICHECK_RETURN_IF_ERROR(f.OpenTemporary(path));  // mkstemp's 0600, kept
  return f;
}

absl::Status OutputFile::OpenTemporary(const std::string& path) {
  const std::filesystem::path p(path_);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  std::string tmpl = absl::StrCat(dir, "/.", p.filename().string(), ".XXXXXX");
  fd_ = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd_ < 0) return ErrnoError(path, errno);
  tmp_ = tmpl;
  char* pending = new char[tmpl.size() + 1];
  std::memcpy(pending, tmpl.c_str(), tmpl.size() + 1);
  AddPending(pending);
  return absl::OkStatus();
}

OutputFile::OutputFile(OutputFile&& o) noexcept
    : path_(std::move(o.path_)), tmp_(std::move(o.tmp_)), fd_(o.fd_), failed_(o.failed_) {
  o.fd_ = -1;
  o.tmp_.clear();
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) {
    ::unlink(tmp_.c_str());
    RemovePending(tmp_.c_str());
  }
}

absl::Status OutputFile::Write(absl::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failed_ = true;
      return ErrnoError(path_, n < 0 ? errno : EIO);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status OutputFile::Commit() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return ErrnoError(path_, errno);
  if (tmp_.empty()) return absl::OkStatus();
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) return ErrnoError(path_, errno);
  RemovePending(tmp_.c_str());
  tmp_.clear();
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view bytes) {
  ABICHECK_ASSIGN_OR_RETURN(OutputFile f, OutputFile::Create(path));
  ABICHECK_RETURN_IF_ERROR(f.Write(bytes));
  return f.Commit();
}

absl::Status WritePrivateFileAtomically(const std::string& path, absl::string_view bytes) {
  ABICHECK_ASSIGN_OR_RETURN(OutputFile f, OutputFile::CreatePrivate(path));
  ABICHECK_RETURN_IF_ERROR(f.Write(bytes));
  return f.Commit();
}

}  // namespace abicheck
