// ld.so.cache (docs/loader-model.md C1): the new format parsed, the host's cache read.
#include "lib/resolve/ld_cache.h"

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/strings/ascii.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/fixtures.h"
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

// The cache is searched as glibc searches it (a binary search in _dl_cache_libcmp's descending
// order, as ldconfig writes it): every name `ldconfig -p` lists for x86-64 is found at the path
// of its first such line, and names between them are not found.
TEST(LdCacheTest, FindsWhatLdconfigListsForEveryName) {
  std::string listing;
  if (!std::filesystem::exists("/etc/ld.so.cache") ||
      ::abicheck::testing::RunShellStdout("ldconfig -p 2>/dev/null || /sbin/ldconfig -p",
                                          &listing) != 0)
    GTEST_SKIP() << "no /etc/ld.so.cache or no ldconfig";
  absl::StatusOr<LdCache> c = LdCache::Read("/etc/ld.so.cache");
  ASSERT_TRUE(c.ok()) << c.status();
  std::map<std::string, std::string> first;
  std::istringstream in(listing);
  for (std::string line; std::getline(in, line);) {
    const size_t arrow = line.find(" => "), flags = line.find(" (libc6,x86-64");
    if (arrow == std::string::npos || flags == std::string::npos) continue;
    if (line.find("hwcap") != std::string::npos) continue;
    const std::string name(absl::StripAsciiWhitespace(line.substr(0, flags)));
    first.try_emplace(name, line.substr(arrow + 4));
  }
  ASSERT_GT(first.size(), 10u);
  for (const auto& [name, path] : first) {
    EXPECT_EQ(c->Lookup(name, 62).value_or("(not found)"), path) << name;
    EXPECT_FALSE(c->Lookup(name + "x", 62).has_value()) << name;
  }
}

// _dl_cache_libcmp's order: digit runs compare as numbers, so "libfoo.so.10" sorts above
// "libfoo.so.9"; a cache in that order finds both, and one out of it misses as glibc misses.
TEST(LdCacheTest, SearchedInTheLibcmpOrder) {
  const std::vector<std::string> names = {"libfoo.so.10", "libfoo.so.9", "libfoo.so.2", "libfoo.so",
                                          "libbar.so.1"};
  auto build = [&](const std::vector<std::string>& order) {
    std::vector<uint8_t> b(48 + order.size() * 24, 0);
    const std::string magic = "glibc-ld.so.cache1.1";
    std::copy(magic.begin(), magic.end(), b.begin());
    auto put32 = [&](size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); };
    put32(20, static_cast<uint32_t>(order.size()));
    for (size_t i = 0; i < order.size(); ++i) {
      const uint32_t key = static_cast<uint32_t>(b.size());
      b.insert(b.end(), order[i].begin(), order[i].end());
      b.push_back(0);
      const uint32_t value = static_cast<uint32_t>(b.size());
      const std::string path = "/lib/" + order[i];
      b.insert(b.end(), path.begin(), path.end());
      b.push_back(0);
      put32(48 + i * 24, 0x0303);
      put32(52 + i * 24, key);
      put32(56 + i * 24, value);
    }
    return b;
  };
  absl::StatusOr<LdCache> sorted = LdCache::Parse("cache", build(names));
  ASSERT_TRUE(sorted.ok()) << sorted.status();
  for (const std::string& n : names) EXPECT_EQ(sorted->Lookup(n, 62), "/lib/" + n) << n;
  EXPECT_FALSE(sorted->Lookup("libfoo.so.3", 62).has_value());
  // In plain byte order "libfoo.so.9" sorts above "libfoo.so.10", and "libfoo.so.2" too: from
  // "libfoo.so.2" in the middle the search goes up, away from "libfoo.so.10".
  absl::StatusOr<LdCache> bytewise = LdCache::Parse(
      "cache", build({"libfoo.so.9", "libfoo.so.10", "libfoo.so.2", "libfoo.so", "libbar.so.1"}));
  ASSERT_TRUE(bytewise.ok());
  EXPECT_FALSE(bytewise->Lookup("libfoo.so.10", 62).has_value());
}

}  // namespace
}  // namespace abicheck
