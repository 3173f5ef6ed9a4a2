// DecodeDeflateTail against the whole stream: zlib's deflate (libzip writes the member, as
// Python's zipfile does for wheels), the end decoded alone, every byte it calls known compared
// with the original.
#include "lib/io/deflate_tail.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/test_inputs.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using namespace ::abicheck::testing;  // NOLINT: the shared test inputs

// Like code and data: bytes of a small alphabet (Huffman codes them in 4-5 bits) and now and
// then a copy of something a few KiB back (a short-lived match). `repeats`: also the same string
// every few hundred bytes, each copy deflate makes of the one before: bytes that go on depending
// on the window before any start, however early (as the paper's markers can).
std::vector<uint8_t> Content(size_t n, bool repeats) {
  std::vector<uint8_t> out;
  out.reserve(n);
  uint64_t x = 0x9e3779b97f4a7c15u;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  while (out.size() < n) {
    const uint64_t r = next();
    if (repeats && r % 256 == 0) {
      for (char c : std::string("_ZN2at4_ops4callERKNS_6TensorE"))
        out.push_back(static_cast<uint8_t>(c));
    } else if (r % 64 == 0 && out.size() > 4096) {
      const size_t from = out.size() - 64 - (next() % 4000);
      for (int i = 0; i < 40; ++i) out.push_back(out[from + i]);
    } else {
      out.push_back(static_cast<uint8_t>('a' + next() % 23));
    }
  }
  out.resize(n);
  return out;
}

// The raw deflate data of the only member of a zip libzip wrote (its local header at 0).
std::vector<uint8_t> MemberData(const std::vector<uint8_t>& zip, uint64_t comp_size) {
  uint16_t name_len, extra_len;
  std::memcpy(&name_len, &zip[26], 2);
  std::memcpy(&extra_len, &zip[28], 2);
  const size_t at = 30u + name_len + extra_len;
  return {zip.begin() + at, zip.begin() + at + comp_size};
}

class DeflateTailTest : public ::testing::Test {
 protected:
  void Make(bool repeats, size_t size = size_t{24} << 20) {
    Deflate(Content(size, repeats));
    ASSERT_LT(stream_.size(), original_.size());
  }
  // `original` as the member of a zip: stream_ its deflate data.
  void Deflate(std::vector<uint8_t> original) {
    original_ = std::move(original);
    const std::string path = WriteZip(d_, "m.zip", {{"lib/libbig.so", original_, true}});
    const std::vector<uint8_t> zip = Read(path);
    uint32_t comp_size;
    std::memcpy(&comp_size, &zip[18], 4);
    stream_ = MemberData(zip, comp_size);
  }
  // Incompressible bytes (deflate stores them as they are, in stored blocks).
  static std::vector<uint8_t> Noise(size_t n) {
    std::vector<uint8_t> noise(n);
    uint64_t x = 0x243f6a8885a308d3u;
    for (uint8_t& b : noise) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      b = static_cast<uint8_t>(x);
    }
    return noise;
  }
  // The known bytes of a decode of the stream's last 4 MiB (as Inflate gives it the last 16),
  // each compared with the original: how many.
  size_t KnownBytesMatch(const DeflateTail& tail) {
    size_t known = 0, k = 0;
    for (const auto& [lo, hi] : tail.held.ranges()) {
      for (uint64_t at = lo; at < hi; ++at, ++k) {
        if (!tail.known[k]) continue;
        ++known;
        EXPECT_EQ(tail.bytes[k], original_[at]) << "byte " << at;
      }
    }
    return known;
  }
  absl::Span<const uint8_t> End() {
    return absl::MakeConstSpan(stream_).last(std::min(stream_.size(), size_t{4} << 20));
  }
  TempDir d_;
  std::vector<uint8_t> original_, stream_;
};

TEST_F(DeflateTailTest, EveryKnownByteIsTheMembersOwn) {
  Make(/*repeats=*/false);
  const uint64_t size = original_.size();
  RangeSet need;
  need.Add(size - 300000, size - 299280);  // where a library's PT_DYNAMIC would be
  need.Add(size - 16, size);
  std::optional<DeflateTail> tail = DecodeDeflateTail(End(), size, need);
  ASSERT_TRUE(tail.has_value());
  EXPECT_LE(tail->begin, size - 300000);
  ASSERT_EQ(tail->bytes.size(), size - tail->begin);  // all of it: within the last 32 MiB
  for (const auto& [lo, hi] : need.ranges()) {
    std::vector<uint8_t> got(hi - lo);
    ASSERT_TRUE(tail->CopyKnown(lo, hi, got.data())) << lo;
    EXPECT_TRUE(std::equal(got.begin(), got.end(), original_.begin() + lo));
  }
  EXPECT_GT(KnownBytesMatch(*tail), 290000u);
}

// libtorch_cuda.so's PT_DYNAMIC lies 90 MB before its end (the symbol tables follow): decoded
// from the end all the same, keeping only what is needed and the last 32 MiB, not all between.
TEST_F(DeflateTailTest, ARangeFarFromTheEndIsDecodedKeepingOnlyWhatIsHeld) {
  Make(/*repeats=*/false, size_t{72} << 20);
  const uint64_t size = original_.size();
  RangeSet need;
  need.Add(size - (uint64_t{60} << 20), size - (uint64_t{60} << 20) + 720);
  std::optional<DeflateTail> tail = DecodeDeflateTail(stream_, size, need);
  ASSERT_TRUE(tail.has_value());
  EXPECT_EQ(tail->bytes.size(), 720u + (uint64_t{32} << 20));
  const auto& [lo, hi] = need.ranges().front();
  std::vector<uint8_t> got(hi - lo);
  ASSERT_TRUE(tail->CopyKnown(lo, hi, got.data()));
  EXPECT_TRUE(std::equal(got.begin(), got.end(), original_.begin() + lo));
  EXPECT_FALSE(tail->CopyKnown(size - (uint64_t{40} << 20), size - (uint64_t{40} << 20) + 8,
                               got.data()));  // not held
  EXPECT_GT(KnownBytesMatch(*tail), (uint64_t{32} << 20) - 1000);
}

// Incompressible bytes (a fatbin: deflate's stored blocks) before a short compressible end, and a
// need just inside them: the search must end (when stored blocks were no starts, it went back and
// forth between the start that fell short and the stored blocks, and took turns forever before
// the steps were bounded), and what it finds is right.
TEST_F(DeflateTailTest, NoStartInStoredBlocksEnds) {
  std::vector<uint8_t> original = Noise(size_t{4} << 20);
  const std::vector<uint8_t> tail = Content(size_t{600} << 10, /*repeats=*/false);
  original.insert(original.end(), tail.begin(), tail.end());
  Deflate(std::move(original));
  const uint64_t size = original_.size();
  RangeSet need;
  need.Add(size - (uint64_t{700} << 10), size - (uint64_t{700} << 10) + 512);
  uint64_t further = 0;
  std::optional<DeflateTail> got = DecodeDeflateTail(stream_, size, need, &further);
  if (got.has_value()) {  // found after all: then every byte it calls known is right
    EXPECT_EQ(KnownBytesMatch(*got), got->bytes.size());
  }
}

// A need inside incompressible bytes (a table of random numbers, as libcurand.so.10's 21 MB of
// .data after its PT_DYNAMIC; deflate's stored blocks): a stored block's header is a start, and
// the bytes are found. (Only dynamic blocks were starts before: nothing found here, and libcurand's
// dynamic section was inflated from the member's start.)
TEST_F(DeflateTailTest, AStartInStoredBlocks) {
  const std::vector<uint8_t> noise = Noise(size_t{6} << 20);
  const std::vector<uint8_t> end = Content(size_t{200} << 10, /*repeats=*/false);
  std::vector<uint8_t> original = Content(size_t{2} << 20, /*repeats=*/false);
  original.insert(original.end(), noise.begin(), noise.end());
  original.insert(original.end(), end.begin(), end.end());
  Deflate(std::move(original));
  const uint64_t size = original_.size();
  RangeSet need;
  need.Add(size - (uint64_t{3} << 20), size - (uint64_t{3} << 20) + 640);
  std::optional<DeflateTail> got = DecodeDeflateTail(stream_, size, need);
  ASSERT_TRUE(got.has_value());
  std::vector<uint8_t> bytes(640);
  ASSERT_TRUE(
      got->CopyKnown(size - (uint64_t{3} << 20), size - (uint64_t{3} << 20) + 640, bytes.data()));
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), original_.end() - (3 << 20)));
  EXPECT_EQ(KnownBytesMatch(*got), got->bytes.size());  // every byte it calls known is right
  EXPECT_GE(got->begin, uint64_t{2} << 20);  // from within the stored blocks, not the start
}

// Where bytes go on depending on the window before the start, they are not called known, and
// a range that needs them is not given (the caller inflates from the start).
TEST_F(DeflateTailTest, BytesOfTheUnknownWindowAreNotKnown) {
  Make(/*repeats=*/true);
  const uint64_t size = original_.size();
  RangeSet need;
  need.Add(size - 300000, size);
  std::optional<DeflateTail> tail = DecodeDeflateTail(End(), size, need);
  if (tail.has_value()) {
    EXPECT_EQ(KnownBytesMatch(*tail), tail->bytes.size());
  }
  // The string's copies: never known, so a range over one is refused.
  const std::string s = "_ZN2at4_ops4callERKNS_6TensorE";
  const auto at = std::search(original_.end() - 100000, original_.end(), s.begin(), s.end());
  ASSERT_NE(at, original_.end());
  need = RangeSet();
  need.Add(at - original_.begin(), at - original_.begin() + s.size());
  EXPECT_FALSE(DecodeDeflateTail(End(), size, need).has_value());
}

TEST_F(DeflateTailTest, AStreamThatDoesNotEndThereIsRefused) {
  Make(/*repeats=*/false);
  const uint64_t size = original_.size();
  RangeSet need;
  need.Add(size - 1000, size);
  std::vector<uint8_t> end(stream_.end() - (1 << 20), stream_.end());
  // One byte missing: no decode ends where the data ends.
  EXPECT_FALSE(DecodeDeflateTail(absl::MakeConstSpan(end).first(end.size() - 1), size, need));
  // One byte too many: nor here.
  end.push_back(0);
  EXPECT_FALSE(DecodeDeflateTail(end, size, need));
  // A declared size below what the stream makes: no decode fits in it.
  end.pop_back();
  EXPECT_TRUE(DecodeDeflateTail(end, size, need).has_value());
  EXPECT_FALSE(DecodeDeflateTail(end, 200000, need).has_value());
}

TEST(DeflateTailHeaderTest, OnlyDynamicBlockHeaders) {
  // A stored block (type 0) and a fixed one (type 1) are not dynamic ones (stored ones are
  // starts of their own: StoredBlockHeaders).
  const std::vector<uint8_t> stored = {0x00, 0x05, 0x00, 0xfa, 0xff};
  const std::vector<uint8_t> fixed = {0x02, 0x00};
  EXPECT_FALSE(PlausibleDynamicHeader(stored, 0));
  EXPECT_FALSE(PlausibleDynamicHeader(fixed, 0));
  // Past the end: no.
  EXPECT_FALSE(PlausibleDynamicHeader(fixed, 100));
}

TEST(DeflateTailHeaderTest, StoredBlockHeaders) {
  // BFINAL 0, type 0 in the byte's last three bits, LEN 5, NLEN its complement, five bytes.
  const std::vector<uint8_t> stored = {0x00, 0x05, 0x00, 0xfa, 0xff, 1, 2, 3, 4, 5};
  EXPECT_TRUE(PlausibleStoredHeader(stored, 5));
  EXPECT_FALSE(PlausibleStoredHeader(stored, 0));  // read from the sixth bit only
  EXPECT_FALSE(PlausibleStoredHeader(stored, 13));
  EXPECT_FALSE(PlausibleStoredHeader(absl::MakeConstSpan(stored).first(9), 5));  // LEN past the end
  std::vector<uint8_t> bad = stored;
  bad[3] = 0xfb;  // NLEN not LEN's complement
  EXPECT_FALSE(PlausibleStoredHeader(bad, 5));
  bad = stored;
  bad[0] = 0x40;  // type 1 (fixed Huffman)
  EXPECT_FALSE(PlausibleStoredHeader(bad, 5));
  bad[0] = 0x20;  // BFINAL 1, type 0: the last block, a start all the same
  EXPECT_TRUE(PlausibleStoredHeader(bad, 5));
  EXPECT_FALSE(PlausibleStoredHeader(stored, 100));
}

}  // namespace
}  // namespace abicheck
