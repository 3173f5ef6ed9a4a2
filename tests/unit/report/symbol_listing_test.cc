// `abicheck symbols`: the listing streams in whole lines, and its rows are its lines.

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/text_util.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_inputs.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::TempDir;
using ::testing::HasSubstr;
using namespace ::abicheck::testing;  // NOLINT: the shared test inputs

// `abicheck symbols` streams: a listing of several megabytes arrives in chunks of whole lines
// whose concatenation is the one-piece listing.
TEST(SymbolListingTest, StreamsInChunksOfWholeLines) {
  ElfBuilder b;
  b.soname = "libbig.so";
  for (int i = 0; i < 40000; ++i)
    b.syms.push_back(
        {absl::StrCat("_ZN5torch8autograd9generated", i, "some_long_function_nameEv")});
  TempDir d;
  const std::string lib = d.Write("libbig.so", b.Build());
  std::vector<std::string> chunks;
  ASSERT_TRUE(ListSymbolsTo(lib, SymbolListOptions{}, [&](absl::string_view c) {
                chunks.emplace_back(c);
              }).ok());
  EXPECT_GT(chunks.size(), 1u);
  std::string joined;
  for (const std::string& c : chunks) {
    EXPECT_EQ(c.back(), '\n');
    joined += c;
  }
  EXPECT_THAT(joined,
              ::testing::HasSubstr("_ZN5torch8autograd9generated39999some_long_function_nameEv\n"));
  // The rows ListSymbols returns are the listing's lines, in order.
  SymbolListOptions demangled;
  demangled.demangle = true;
  absl::StatusOr<std::vector<SymbolRow>> rows = ListSymbols(lib, demangled);
  ASSERT_TRUE(rows.ok()) << rows.status();
  const std::vector<std::string> lines = absl::StrSplit(joined, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), rows->size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const SymbolRow& r = (*rows)[i];
    EXPECT_TRUE(absl::EndsWith(lines[i], absl::StrCat(" ", std::string(1, r.type), " ", r.name)))
        << lines[i];
    EXPECT_EQ(r.defined, lines[i][0] != ' ') << lines[i];
  }
  EXPECT_EQ(rows->back().name, "_ZN5torch8autograd9generated39999some_long_function_nameEv");
  EXPECT_FALSE(rows->back().demangled.empty());  // asked for (not a C++ name: itself)
}

// The word-at-a-time test agrees with the byte-by-byte one for every byte value at every position
// of a word and of the tail, next to every other byte value.
TEST(SymbolListingTest, ControlBytesFoundWordAtATime) {
  auto slow = [](absl::string_view s) {
    for (unsigned char c : s) {
      if (c < 0x20 || c == 0x7f) return true;
    }
    return false;
  };
  for (int len : {1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 35}) {
    for (int at = 0; at < len; ++at) {
      for (int v = 0; v < 256; ++v) {
        for (int fill : {0x61, 0x20, 0x7e, 0x80, 0xff, 0x00}) {
          std::string s(len, static_cast<char>(fill));
          s[at] = static_cast<char>(v);
          ASSERT_EQ(HasControlByte(s), slow(s)) << len << " " << at << " " << v << " " << fill;
        }
      }
    }
  }
}

}  // namespace
}  // namespace abicheck
