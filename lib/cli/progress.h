// A progress bar on the error stream for work that takes more than a second, only when it is a
// terminal.
#ifndef ABICHECK_LIB_CLI_PROGRESS_H_
#define ABICHECK_LIB_CLI_PROGRESS_H_

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>

namespace abicheck::cli {

class ProgressBar {
 public:
  // On a terminal, a bar redrawn in place; otherwise (a CI log) a line every few seconds, unless
  // `quiet` (-q). Either starts only once reading has taken a second.
  // `show` false: never (abicheck_run's host).
  ProgressBar(FILE* err, bool show, bool quiet)
      : err_(err),
        terminal_(::isatty(::fileno(err)) == 1),
        enabled_(show && (terminal_ || !quiet)),
        start_(std::chrono::steady_clock::now()),
        after_(DelayFromEnvironment()) {}
  ~ProgressBar() { Finish(); }

  std::function<void(uint64_t, uint64_t)> Callback() {
    if (!enabled_) return nullptr;
    return [this](uint64_t done, uint64_t total) { Update(done, total); };
  }
  void Finish() {
    std::lock_guard<std::mutex> lock(mu_);
    if (drawn_) std::fprintf(err_, "\r\x1b[2K");
    drawn_ = false;
  }

 private:
  void Update(uint64_t done, uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < after_ || total == 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (!terminal_) {
      if (now - last_ < std::chrono::seconds(5)) return;
      last_ = now;
      std::fprintf(err_, "abicheck: reading archives: %.0f%% (%llu / %llu MB)\n",
                   100.0 * double(done) / double(total),
                   static_cast<unsigned long long>(done >> 20),
                   static_cast<unsigned long long>(total >> 20));
      return;
    }
    if (now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const int width = 30,
              filled =
                  static_cast<int>(width * std::min<double>(1.0, double(done) / double(total)));
    std::fprintf(err_, "\r  reading archives [%.*s%*s] %5.1f%%  %llu / %llu MB", filled,
                 "##############################", width - filled, "",
                 100.0 * double(done) / double(total), static_cast<unsigned long long>(done >> 20),
                 static_cast<unsigned long long>(total >> 20));
    drawn_ = true;
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
  const std::chrono::steady_clock::time_point start_;
  const std::chrono::milliseconds after_;
  std::chrono::steady_clock::time_point last_{};
  std::mutex mu_;
  bool drawn_ = false;
};

}  // namespace abicheck::cli

#endif  // ABICHECK_LIB_CLI_PROGRESS_H_
