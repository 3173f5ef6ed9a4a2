// Random byte flips in real libraries: never a crash, a hang, or an answer without an error
// when the bytes were unreadable. A fixed seed on the headline fixture by default; point it at
// large libraries for longer runs:
//   ABICHECK_FLIP_FILES=a.so:b.so ABICHECK_FLIP_ITERATIONS=100000 ABICHECK_FLIP_SEED=7 unit_test
//   --gtest_filter=ByteFlip*
#include <cstdlib>
#include <random>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "lib/api/check_internal.h"
#include "lib/io/blob.h"
#include "lib/io/mapped_file.h"
#include "lib/report/render.h"
#include "tests/support/fixtures.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::VectorBlob;

std::vector<uint8_t> Load(const std::string& path) {
  absl::StatusOr<MappedFile> f = MappedFile::Open(path);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return {};
  return std::vector<uint8_t>(f->bytes().begin(), f->bytes().end());
}

TEST(ByteFlipTest, NeverCrashesOrHangs) {
  std::vector<std::pair<std::string, std::string>> pairs;  // (module, provider)
  if (const char* files = std::getenv("ABICHECK_FLIP_FILES")) {
    for (absl::string_view f : absl::StrSplit(files, ':'))
      pairs.push_back({std::string(f), std::string(f)});
  } else {
    testing::Scenario sc;
    ASSERT_TRUE(testing::BuildScenario("headline_signature_change", ABICHECK_FLIP_OUT, &sc))
        << sc.log;
    pairs.push_back({sc.module, sc.providers[0]});
  }
  const int iterations = std::getenv("ABICHECK_FLIP_ITERATIONS")
                             ? std::atoi(std::getenv("ABICHECK_FLIP_ITERATIONS"))
                             : 3000;
  std::mt19937_64 rng(std::getenv("ABICHECK_FLIP_SEED")
                          ? std::strtoull(std::getenv("ABICHECK_FLIP_SEED"), nullptr, 10)
                          : 20261130);
  CheckOptions options;
  options.use_host = false;
  int ok = 0, rejected = 0;
  for (const auto& [mod_path, prov_path] : pairs) {
    const std::vector<uint8_t> mod = Load(mod_path), prov = Load(prov_path);
    ASSERT_FALSE(mod.empty());
    for (int i = 0; i < iterations; ++i) {
      std::vector<uint8_t> m = mod, p = prov;
      std::vector<uint8_t>& target = (i % 2 == 0) ? m : p;
      // Bias flips toward the headers and dynamic tables, where they matter.
      const uint64_t span = std::min<uint64_t>(target.size(), (i % 3 == 0) ? target.size() : 16384);
      for (int k = 1 + static_cast<int>(rng() % 8); k > 0; --k)
        target[rng() % span] ^= static_cast<uint8_t>(1 + rng() % 255);
      InputFile mi{"mod.so", "/nonexistent/mod.so", std::make_shared<VectorBlob>(std::move(m)),
                   nullptr};
      InputFile pi{"libp.so", "/nonexistent/libp.so", std::make_shared<VectorBlob>(std::move(p)),
                   nullptr};
      absl::StatusOr<Report> r = CheckObjects(mi, {pi}, {}, nullptr, options);
      if (r.ok()) {
        ++ok;
        (void)RenderText(*r, false);
        (void)RenderJson(*r);
      } else {
        ++rejected;
        EXPECT_FALSE(r.status().message().empty());
      }
    }
  }
  std::printf("byte flips: %d checks completed, %d inputs rejected with an error\n", ok, rejected);
  EXPECT_GT(ok + rejected, 0);
}

}  // namespace
}  // namespace abicheck
