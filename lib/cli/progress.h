// A progress bar on the error stream for work that takes more than a second, only when it is a
// terminal.
#ifndef ABICHECK_LIB_CLI_PROGRESS_H_
#define ABICHECK_LIB_CLI_PROGRESS_H_

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "abicheck/abicheck.h"

namespace abicheck::cli {

class ProgressBar {
 public:
  // On a terminal, a bar redrawn in place; otherwise (a CI log) a line every few seconds, unless
  // `quiet` (-q). Either starts only once reading has taken a second.
  // `show` false: never (abicheck_run's host).
  ProgressBar(FILE* err, bool show, bool quiet)
      : ProgressBar(err, show, quiet, ::isatty(::fileno(err)) == 1) {}
  // `terminal` as if `err` were one (or not): what a test draws on a file.
  ProgressBar(FILE* err, bool show, bool quiet, bool terminal)
      : err_(err),
        terminal_(terminal),
        enabled_(show && (terminal_ || !quiet)),
        start_(std::chrono::steady_clock::now()),
        after_(DelayFromEnvironment()) {}
  ~ProgressBar() { Finish(); }

  // For InputLimits::progress: bytes of the archive being read.
  std::function<void(uint64_t, uint64_t)> Callback() {
    if (!enabled_) return nullptr;
    return [this](uint64_t done, uint64_t total) { Update(done, total); };
  }
  // For InputLimits::input_progress: which of several builds (or modules) is being read; the
  // line then says `N of M builds, X MB read` (issue 33).
  std::function<void(const InputProgress&)> InputCallback() {
    if (!enabled_) return nullptr;
    return [this](const InputProgress& p) { Begin(p); };
  }
  void Finish() {
    std::lock_guard<std::mutex> lock(mu_);
    if (drawn_) std::fprintf(err_, "\r\x1b[2K");
    drawn_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;

  void Begin(const InputProgress& p) {
    std::lock_guard<std::mutex> lock(mu_);
    input_ = p;
    if (p.total < 2 || Clock::now() - start_ < after_) return;
    if (!terminal_) {  // a line for each, whatever the time since the last
      std::fprintf(err_, "abicheck: reading %s: %d of %d (%s), %llu MB read so far\n",
                   p.what.c_str(), p.begun, p.total, p.name.c_str(), Mb(read_));
      return;
    }
    Draw(0, 0);  // this one has read nothing yet
  }

  void Update(uint64_t done, uint64_t total) {
    const auto now = Clock::now();
    if (total == 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    // Each archive counts from 0 (its total names it; a build's wheels are read at once, and
    // worker threads may report out of order): what is read is each archive's furthest count.
    uint64_t& furthest = archives_[total];
    if (done > furthest) {
      read_ += done - furthest;
      furthest = done;
    }
    if (now - start_ < after_) return;
    if (!terminal_) {
      if (now - last_ < std::chrono::seconds(5)) return;
      last_ = now;
      std::fprintf(err_, "abicheck: reading archives: %.0f%% (%llu / %llu MB)%s\n",
                   100.0 * double(done) / double(total), Mb(done), Mb(total), Counted().c_str());
      return;
    }
    if (now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    Draw(done, total);
  }

  // The bar, redrawn in place (called under mu_).
  void Draw(uint64_t done, uint64_t total) {
    const double share = total == 0 ? 0.0 : std::min<double>(1.0, double(done) / double(total));
    const int width = 30, filled = static_cast<int>(width * share);
    if (input_.total >= 2) {
      std::fprintf(err_, "\r\x1b[2K  %d of %d %s, %llu MB read [%.*s%*s] %5.1f%%  %.40s",
                   input_.begun, input_.total, input_.what.c_str(), Mb(read_), filled,
                   "##############################", width - filled, "", 100.0 * share,
                   input_.name.c_str());
    } else {
      std::fprintf(err_, "\r  reading archives [%.*s%*s] %5.1f%%  %llu / %llu MB", filled,
                   "##############################", width - filled, "", 100.0 * share, Mb(done),
                   Mb(total));
    }
    drawn_ = true;
  }

  // "; 3 of 8 builds (NAME), 412 MB read in all" when several are read one after another.
  std::string Counted() const {
    if (input_.total < 2) return "";
    char buf[256];
    std::snprintf(buf, sizeof buf, "; %d of %d %s (%.60s), %llu MB read in all", input_.begun,
                  input_.total, input_.what.c_str(), input_.name.c_str(), Mb(read_));
    return buf;
  }

  static unsigned long long Mb(uint64_t bytes) {          // NOLINT(runtime/int)
    return static_cast<unsigned long long>(bytes >> 20);  // NOLINT(runtime/int)
  }

  // ABICHECK_PROGRESS_AFTER_MS (docs/abicheck.1): how long a read runs before progress shows;
  // 1000 by default.
  static std::chrono::milliseconds DelayFromEnvironment() {
    const char* v = std::getenv("ABICHECK_PROGRESS_AFTER_MS");
    char* end = nullptr;
    const long ms = v != nullptr ? std::strtol(v, &end, 10) : -1;  // NOLINT(runtime/int)
    return std::chrono::milliseconds(v != nullptr && *end == '\0' && ms >= 0 ? ms : 1000);
  }

  FILE* const err_;
  const bool terminal_;
  const bool enabled_;
  const Clock::time_point start_;
  const std::chrono::milliseconds after_;
  Clock::time_point last_{};
  std::mutex mu_;
  bool drawn_ = false;
  InputProgress input_;                    // the input being read, when several are
  std::map<uint64_t, uint64_t> archives_;  // each archive's total: its furthest count
  uint64_t read_ = 0;                      // their sum
};

}  // namespace abicheck::cli

#endif  // ABICHECK_LIB_CLI_PROGRESS_H_
