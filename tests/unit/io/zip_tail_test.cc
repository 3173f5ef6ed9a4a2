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

}  // namespace
}  // namespace abicheck
