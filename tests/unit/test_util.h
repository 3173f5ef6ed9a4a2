// Shared helpers for unit tests: status matchers (Debian's abseil ships none) and temp files.
#ifndef ABICHECK_TESTS_UNIT_TEST_UTIL_H_
#define ABICHECK_TESTS_UNIT_TEST_UTIL_H_

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "lib/io/blob.h"

namespace abicheck::testing {

MATCHER_P2(StatusIs, code, substr,
           absl::StrCat("has code ", absl::StatusCodeToString(code), " and a message containing \"",
                        substr, "\"")) {
  absl::Status s = arg.status();
  if (s.code() != code || std::string(s.message()).find(substr) == std::string::npos) {
    *result_listener << "status is " << s;
    return false;
  }
  return true;
}

// A file under a per-process temporary folder, removed with it.
class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("abicheck_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return p;
  }
  std::string Write(const std::string& name, const std::string& text) const {
    return Write(name, std::vector<uint8_t>(text.begin(), text.end()));
  }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

// Bytes held in memory as a Blob (an input that is neither a mapped file nor a zip member).
class VectorBlob final : public Blob {
 public:
  explicit VectorBlob(std::vector<uint8_t> b) : bytes_(std::move(b)) {}
  absl::Span<const uint8_t> bytes() const override { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace abicheck::testing

#endif  // ABICHECK_TESTS_UNIT_TEST_UTIL_H_
