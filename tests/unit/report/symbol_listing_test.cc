// `abicheck symbols`: the listing streams in whole lines, and its rows are its lines.

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/text_util.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/elf_tables.h"
#include "tests/unit/test_inputs.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::Layout;
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

// The listings are made by both cores in chunks of entries (ParallelForInOrder): the lines are
// the rows' in table order, and each demangled name is the text the one-name demangler gives,
// local names, closures and operators among them (so the rewriting into binutils' text runs on
// every thread).
TEST(SymbolListingTest, ListedInParallelInTableOrder) {
  ElfBuilder b;
  b.soname = "libbig.so";
  for (int i = 0; i < 20000; ++i) {
    const std::string id = absl::StrCat("fn", i);
    const std::string source = absl::StrCat(id.size(), id);
    switch (i % 4) {
      case 0:
        b.syms.push_back({absl::StrCat("_ZN5torch", source, "Ev")});
        break;
      case 1:
        b.syms.push_back({absl::StrCat("_ZZN2at", source, "IiEEvPT_iENKUlvE_clEv")});
        break;
      case 2:
        b.syms.push_back({absl::StrCat("_ZN1A", source, "ltIiEEbii")});
        break;
      default:
        b.syms.push_back({absl::StrCat("c_function_", i)});
        break;
    }
  }
  TempDir d;
  const std::string lib = d.Write("libbig.so", b.Build());
  for (bool demangle : {false, true}) {
    SymbolListOptions options;
    options.demangle = demangle;
    std::string listing;
    size_t pieces = 0;
    ASSERT_TRUE(ListSymbolsTo(lib, options, [&](absl::string_view c) {
                  listing.append(c.data(), c.size());
                  ++pieces;
                }).ok());
    EXPECT_GT(pieces, 2u);
    absl::StatusOr<std::vector<SymbolRow>> rows = ListSymbols(lib, options);
    ASSERT_TRUE(rows.ok()) << rows.status();
    const std::vector<std::string> lines = absl::StrSplit(listing, '\n', absl::SkipEmpty());
    ASSERT_EQ(lines.size(), 20000u);
    ASSERT_EQ(rows->size(), lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      const SymbolRow& r = (*rows)[i];
      ASSERT_TRUE(absl::EndsWith(lines[i], absl::StrCat(" ", demangle ? r.demangled : r.name)))
          << i << ": " << lines[i];
    }
    if (demangle) {
      EXPECT_THAT(lines[1],
                  HasSubstr(" at::fn1<int>(int*, int)::{lambda()#1}::operator()() const"));
      EXPECT_THAT(lines[2], HasSubstr(" bool A::fn2::operator< <int>(int, int)"));
    }
  }
}

// A table with a name outside .dynstr is refused before anything is written (the listing is made
// in parallel only once every name is known to be readable).
TEST(SymbolListingTest, UnreadableNameWritesNothing) {
  ElfBuilder b;
  b.soname = "libbad.so";
  for (int i = 0; i < 9000; ++i) b.syms.push_back({absl::StrCat("_ZN5torch2fnEi", i)});
  Layout L;
  std::vector<uint8_t> bytes = b.Build(&L);
  Patch32(bytes, L.dynsym + uint64_t{24} * 8000, 0x7fffffff);  // entry 8000's st_name
  TempDir d;
  const std::string lib = d.Write("libbad.so", bytes);
  for (bool demangle : {false, true}) {
    SymbolListOptions options;
    options.demangle = demangle;
    size_t written = 0;
    const absl::Status st =
        ListSymbolsTo(lib, options, [&](absl::string_view c) { written += c.size(); });
    EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss) << st;
    EXPECT_THAT(std::string(st.message()), HasSubstr(".dynsym entry 8000: name offset"));
    EXPECT_EQ(written, 0u);
  }
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
