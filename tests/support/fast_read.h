// The differential test of `--fast` wheel reads (lib/io/deflate_tail.h) on real wheels: every
// shared object read as --fast reads it, and every byte it keeps compared with the member
// inflated whole, from its start, CRC-32 checked. Members under 40 MiB are read from the start by
// --fast too (its prefix of 32 MiB, and a gap of 8 MiB before the end is decoded apart), so the
// comparison inflates the larger ones: where the end is decoded on its own.
#ifndef ABICHECK_TESTS_SUPPORT_FAST_READ_H_
#define ABICHECK_TESTS_SUPPORT_FAST_READ_H_

#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "abicheck/abicheck.h"
#include "gtest/gtest.h"
#include "lib/inputs/inputs.h"
#include "lib/io/zip_archive.h"
#include "lib/util/read_trace.h"

namespace abicheck::testing {

struct FastReadCount {
  uint64_t compared = 0;      // members inflated whole and compared
  uint64_t from_the_end = 0;  // members whose last bytes --fast decoded from the end
};

inline FastReadCount ExpectFastReadExact(const std::string& wheel) {
  FastReadCount count;
  ReadLimits fast;
  fast.verify_crc = false;
  const uint64_t before = GlobalReadTrace().tail_decodes.load();
  absl::StatusOr<ExpandedInput> in = ExpandInput(wheel, fast);
  EXPECT_TRUE(in.ok()) << in.status();
  if (!in.ok()) return count;
  count.from_the_end = GlobalReadTrace().tail_decodes.load() - before;
  absl::StatusOr<std::shared_ptr<ZipArchive>> zip = ZipArchive::Open(wheel, ReadLimits{});
  EXPECT_TRUE(zip.ok()) << zip.status();
  if (!zip.ok()) return count;
  for (const InputFile& f : in->objects) {
    const std::string member = f.name.substr(f.name.find('!') + 1);
    const ZipMember* m = nullptr;
    for (const ZipMember& z : (*zip)->members()) {
      if (z.name == member) m = &z;
    }
    EXPECT_NE(m, nullptr) << f.name;
    if (m == nullptr || m->size < (uint64_t{40} << 20)) continue;
    RetainPlan whole;
    whole.everything = true;
    absl::StatusOr<std::unique_ptr<SparseImage>> full = (*zip)->Inflate(*m, whole);
    EXPECT_TRUE(full.ok()) << full.status();
    if (!full.ok()) continue;
    ++count.compared;
    EXPECT_EQ(f.blob->bytes().size(), (*full)->bytes().size()) << f.name;
    for (const auto& [lo, hi] : f.blob->retained()->ranges()) {
      EXPECT_EQ(std::memcmp(f.blob->bytes().data() + lo, (*full)->bytes().data() + lo, hi - lo), 0)
          << f.name << ": bytes [" << lo << ", " << hi << ") differ from the whole inflate";
    }
  }
  return count;
}

// ExpectFastReadExact over every wheel of `dir`, the counts summed and printed.
inline FastReadCount ExpectFastReadsExactIn(const std::string& dir) {
  FastReadCount all;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".whl") continue;
    const FastReadCount c = ExpectFastReadExact(e.path().string());
    all.compared += c.compared;
    all.from_the_end += c.from_the_end;
  }
  std::cout << all.compared << " members of over 40 MiB compared, " << all.from_the_end
            << " read from the end\n";
  return all;
}

}  // namespace abicheck::testing

#endif  // ABICHECK_TESTS_SUPPORT_FAST_READ_H_
