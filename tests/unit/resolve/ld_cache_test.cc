// ld.so.cache (docs/loader-model.md C1): the new format parsed, the host's cache read.
#include "lib/resolve/ld_cache.h"

#include <filesystem>

#include "abicheck/abicheck.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::StatusIs;

TEST(LdCacheTest, ParsesNewFormat) {
  // Header (48 bytes), two entries (24 bytes each), strings.
  std::vector<uint8_t> b(48 + 2 * 24, 0);
  std::string magic = "glibc-ld.so.cache1.1";
  std::copy(magic.begin(), magic.end(), b.begin());
  auto put32 = [&](size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); };
  put32(20, 2);
  std::string strings = std::string("libz.so.1") + '\0' + "/lib/x86_64-linux-gnu/libz.so.1" + '\0';
  const uint32_t s0 = static_cast<uint32_t>(b.size());
  b.insert(b.end(), strings.begin(), strings.end());
  put32(48, 0x0303);
  put32(52, s0);
  put32(56, s0 + 10);
  put32(72, 0x0003);  // an i386 entry for the same name
  put32(76, s0);
  put32(80, s0 + 10);
  absl::StatusOr<LdCache> c = LdCache::Parse("cache", b);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->Lookup("libz.so.1", 62), "/lib/x86_64-linux-gnu/libz.so.1");
  EXPECT_FALSE(c->Lookup("libz.so.2", 62).has_value());
  put32(20, 1000);
  EXPECT_THAT(LdCache::Parse("cache", b),
              StatusIs(absl::StatusCode::kDataLoss, "cache: 1000 entries run past the end"));
}

TEST(LdCacheTest, HostCacheFindsLibc) {
  if (!std::filesystem::exists("/etc/ld.so.cache")) GTEST_SKIP() << "no /etc/ld.so.cache";
  absl::StatusOr<LdCache> c = LdCache::Read("/etc/ld.so.cache");
  ASSERT_TRUE(c.ok()) << c.status();
  std::optional<std::string> libc = c->Lookup("libc.so.6", 62);
  ASSERT_TRUE(libc.has_value());
  EXPECT_TRUE(std::filesystem::exists(*libc)) << *libc;
}

}  // namespace
}  // namespace abicheck
