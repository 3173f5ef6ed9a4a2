// ByteReader, the one chokepoint for untrusted bytes: no read wraps or overruns.

#include "lib/io/byte_reader.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/elf_tables.h"

namespace abicheck {
namespace {

using namespace ::abicheck::testing;  // NOLINT: the shared test images

TEST(ByteReaderTest, BoundsNeverOverflow) {
  std::vector<uint8_t> d = {1, 2, 3, 4};
  ByteReader r(d, false);
  EXPECT_TRUE(r.Contains(0, 4));
  EXPECT_TRUE(r.Contains(4, 0));
  EXPECT_FALSE(r.Contains(3, 2));
  EXPECT_FALSE(r.Contains(UINT64_MAX, 2));
  EXPECT_FALSE(r.Contains(2, UINT64_MAX));
  EXPECT_EQ(r.ReadAt<uint32_t>(0), 0x04030201u);
  EXPECT_EQ(ByteReader(d, true).ReadAt<uint32_t>(0), 0x01020304u);
  EXPECT_FALSE(r.ReadAt<uint32_t>(1).has_value());
  EXPECT_FALSE(r.CString(0).has_value()) << "no NUL before the end";
  std::vector<uint8_t> s = {'a', 'b', 0, 'c'};
  EXPECT_EQ(ByteReader(s, false).CString(0), "ab");
  EXPECT_EQ(ByteReader(s, false).CString(2), "");
  EXPECT_FALSE(ByteReader(s, false).CString(4).has_value());
}

}  // namespace
}  // namespace abicheck
