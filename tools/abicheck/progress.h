// A progress bar on stderr for work that takes more than a second, only when stderr is a terminal.
#ifndef ABICHECK_TOOLS_ABICHECK_PROGRESS_H_
#define ABICHECK_TOOLS_ABICHECK_PROGRESS_H_

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>

namespace abicheck::cli {

class ProgressBar {
 public:
  ProgressBar()
      : enabled_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}
  ~ProgressBar() { Finish(); }

  std::function<void(uint64_t, uint64_t)> Callback() {
    if (!enabled_) return nullptr;
    return [this](uint64_t done, uint64_t total) { Update(done, total); };
  }
  void Finish() {
    std::lock_guard<std::mutex> lock(mu_);
    if (drawn_) std::fprintf(stderr, "\r\x1b[2K");
    drawn_ = false;
  }

 private:
  void Update(uint64_t done, uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || total == 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const int width = 30,
              filled =
                  static_cast<int>(width * std::min<double>(1.0, double(done) / double(total)));
    std::fprintf(stderr, "\r  reading archives [%.*s%*s] %5.1f%%  %llu / %llu MB", filled,
                 "##############################", width - filled, "",
                 100.0 * double(done) / double(total), static_cast<unsigned long long>(done >> 20),
                 static_cast<unsigned long long>(total >> 20));
    drawn_ = true;
  }

  const bool enabled_;
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_{};
  std::mutex mu_;
  bool drawn_ = false;
};

}  // namespace abicheck::cli

#endif  // ABICHECK_TOOLS_ABICHECK_PROGRESS_H_
