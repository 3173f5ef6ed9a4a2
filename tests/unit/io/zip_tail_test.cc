// ZipArchive::Inflate with --fast (no CRC): which of a member's wanted ranges are decoded from the
// end of its deflate stream and which are streamed to from its start (zip_archive.cc
// FromTheEnd, CloserToTheEnd).
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/io/zip_archive.h"
#include "tests/unit/test_inputs.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using namespace ::abicheck::testing;  // NOLINT: the shared test inputs

// Bytes deflate shrinks as it does code: letters of a small alphabet.
std::vector<uint8_t> Letters(size_t n) {
  std::vector<uint8_t> out(n);
  std::minstd_rand random(42);
  for (uint8_t& b : out) b = static_cast<uint8_t>('a' + random() % 23);
  return out;
}

// libcusparseLt.so.0's layout: its symbols and relocations in its first MiBs, 26 MB of .dynstr
// just before .dynamic at its end (patchelf put them there), 400 MB between. The tables PT_DYNAMIC
// names near the end are decoded from the end with it; those at the start are streamed to; the
// middle is never inflated. (Before, every table not in the first decode was streamed to: the
// whole member inflated, over HTTP all of its 287 MB fetched.)
TEST(ZipTailTest, TablesJustBeforeTheDynamicSectionComeFromTheEnd) {
  TempDir d;
  const uint64_t size = uint64_t{40} << 20;
  const std::vector<uint8_t> original = Letters(size);
  const std::string path = WriteZip(d, "late.whl", {{"lib/liblate.so", original, true}});
  absl::StatusOr<std::shared_ptr<ZipArchive>> zip = ZipArchive::Open(path, ReadLimits{});
  ASSERT_TRUE(zip.ok()) << zip.status();
  ASSERT_EQ((*zip)->members().size(), 1u);
  const uint64_t dynamic = size - (uint64_t{64} << 10);
  const uint64_t early_lo = uint64_t{256} << 10, early_hi = uint64_t{512} << 10;
  const uint64_t late_lo = size - (uint64_t{3} << 20), late_hi = size - (uint64_t{5} << 19);
  RetainPlan plan;
  plan.prefix = uint64_t{64} << 10;
  plan.verify_crc = false;
  plan.dynamic_range = [&](absl::Span<const uint8_t>) {
    return std::optional<std::pair<uint64_t, uint64_t>>({dynamic, 512});
  };
  plan.on_dynamic = [&](const SparseImage&, uint64_t) {
    RangeSet named;
    named.Add(early_lo, early_hi);
    named.Add(late_lo, late_hi);
    return named;
  };
  uint64_t inflated = 0;  // what the stream from the start made
  plan.on_bytes = [&](uint64_t n) { inflated += n; };
  absl::StatusOr<std::unique_ptr<SparseImage>> img = (*zip)->Inflate((*zip)->members()[0], plan);
  ASSERT_TRUE(img.ok()) << img.status();
  ASSERT_NE((*img)->retained(), nullptr);
  for (const auto& [lo, hi] : {std::pair{uint64_t{0}, plan.prefix}, std::pair{early_lo, early_hi},
                               std::pair{late_lo, late_hi}, std::pair{dynamic, dynamic + 512}}) {
    EXPECT_TRUE((*img)->retained()->Covers(lo, hi)) << lo;
    EXPECT_EQ(std::memcmp((*img)->bytes().data() + lo, original.data() + lo, hi - lo), 0) << lo;
  }
  EXPECT_LT(inflated, uint64_t{4} << 20) << "streamed through the middle to the late table";
}

constexpr uint64_t kMB = 1000 * 1000;

// The real members' numbers (bench/deflate_floor.py measured the bytes each way costs).
TEST(ZipTailRulesTest, FromTheEndFirst) {
  // Over HTTP: libcublasLt.so.13, PT_DYNAMIC 393 MB into 508 (115 MB after it): from the end.
  EXPECT_TRUE(tail_rules::FromTheEndFirst(true, 508 * kMB, 393 * kMB, 64 << 10, 356 * kMB));
  // libtriton.so 3.9, 191 MB into 500, 300 MB of debug sections after it: 97 MB fetched from
  // the end, 59 MB inflating from the start — inflated on to.
  EXPECT_FALSE(tail_rules::FromTheEndFirst(true, 500 * kMB, 191 * kMB, 64 << 10, 142 * kMB));
  // Within 32 MiB of the end: always from there first over HTTP; too little left to read: never.
  EXPECT_TRUE(tail_rules::FromTheEndFirst(true, 60 * kMB, 40 * kMB, 64 << 10, 30 * kMB));
  EXPECT_FALSE(tail_rules::FromTheEndFirst(true, 200 * kMB, 100 * kMB, 64 << 10, 7 * kMB));
  // From a file, decoding costs about six passes over what lies past PT_DYNAMIC: libtorch_cuda's
  // 90 MB before the end of 1.18 GB from the end, libcublasLt's 115 MB of 508 not.
  EXPECT_TRUE(tail_rules::FromTheEndFirst(false, 1180 * kMB, 1090 * kMB, 32 << 20, 600 * kMB));
  EXPECT_FALSE(tail_rules::FromTheEndFirst(false, 508 * kMB, 393 * kMB, 32 << 20, 300 * kMB));
  // Near the end as well: libcurand.so.10's 21 MB after PT_DYNAMIC, 115 MB in, is inflated on to
  // from a file, decoded from the end over HTTP (where it costs 21 MB instead of 53).
  EXPECT_FALSE(tail_rules::FromTheEndFirst(false, 137 * kMB, 115 * kMB, 32 << 20, 50 * kMB));
  EXPECT_TRUE(tail_rules::FromTheEndFirst(true, 137 * kMB, 115 * kMB, 64 << 10, 63 * kMB));
}

TEST(ZipTailRulesTest, CloserToTheEnd) {
  // libcusparseLt.so.0 (452 MB, PT_DYNAMIC at its end): .dynsym at 0.5 MB, the version table and
  // relocations at 29-33 MB, .gnu.hash and the 26 MB .dynstr at 425-452 MB.
  RangeSet missing;
  missing.Add(uint64_t{555} << 10, 3 * kMB);
  missing.Add(29 * kMB, 33 * kMB);
  missing.Add(425 * kMB, 451 * kMB);
  const uint64_t produced = 64 << 10, from = 451 * kMB;
  RangeSet over_http = tail_rules::CloserToTheEnd(missing, produced, from, 1);
  ASSERT_EQ(over_http.ranges().size(), 1u);
  EXPECT_EQ(over_http.ranges()[0].first, 425 * kMB);
  // From a file too (26 MB decoded six times costs less than inflating 392 MB).
  EXPECT_EQ(tail_rules::CloserToTheEnd(missing, produced, from, 6).ranges().size(), 1u);
  // Tables all near the start: nothing from the end.
  RangeSet early;
  early.Add(1 * kMB, 2 * kMB);
  early.Add(3 * kMB, 4 * kMB);
  EXPECT_TRUE(tail_rules::CloserToTheEnd(early, produced, from, 1).ranges().empty());
  // A table in the middle: from the end only when that costs fewer bytes than inflating to it.
  RangeSet middle;
  middle.Add(200 * kMB, 201 * kMB);
  EXPECT_TRUE(tail_rules::CloserToTheEnd(middle, produced, from, 1).ranges().empty());
  EXPECT_EQ(tail_rules::CloserToTheEnd(middle, produced, 300 * kMB, 1).ranges().size(), 1u);
  EXPECT_TRUE(tail_rules::CloserToTheEnd(RangeSet(), produced, from, 1).ranges().empty());
}

}  // namespace
}  // namespace abicheck
