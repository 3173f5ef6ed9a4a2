// SparseImage's ranges.

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "lib/io/zip_archive.h"
#include "tests/unit/test_inputs.h"

namespace abicheck {
namespace {

using namespace ::abicheck::testing;  // NOLINT: the shared test inputs

TEST(SparseImageTest, RangeSetMerges) {
  RangeSet r;
  r.Add(10, 20);
  r.Add(30, 40);
  r.Add(15, 35);
  EXPECT_EQ(r.ranges().size(), 1u);
  EXPECT_TRUE(r.Covers(10, 40));
  EXPECT_FALSE(r.Covers(5, 12));
  r.Add(50, 60);
  EXPECT_FALSE(r.Covers(39, 51));
  EXPECT_EQ(r.TotalBytes(), 40u);
}

}  // namespace
}  // namespace abicheck
