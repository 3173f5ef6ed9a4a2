// The ELF reader on valid and malformed bytes: every error names the file and the structure, and
// has the right code (kInvalidArgument: not ELF, kDataLoss: corrupt).
#include "lib/elf/elf_file.h"

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/symbols/symbol_table.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/elf_tables.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::Layout;
using ::abicheck::testing::StatusIs;
using ::testing::ElementsAre;
using namespace ::abicheck::testing;  // NOLINT: the shared test images

class ElfClassesTest : public ::testing::TestWithParam<std::pair<bool, bool>> {};

TEST_P(ElfClassesTest, ReadsEveryClassAndByteOrder) {
  ElfBuilder b = Basic();
  b.is64 = GetParam().first;
  b.big_endian = GetParam().second;
  std::vector<uint8_t> bytes = b.Build();
  std::unique_ptr<ElfFile> elf;
  absl::StatusOr<SymbolTable> t = ReadTable(bytes, &elf);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(elf->is_64(), b.is64);
  EXPECT_EQ(elf->big_endian(), b.big_endian);
  EXPECT_EQ(elf->soname(), "libfoo.so");
  EXPECT_THAT(elf->needed(), ElementsAre("libc.so.6", "libbar.so.1"));
  ASSERT_EQ(t->size(), 4u);
  EXPECT_EQ(t->Get(1)->name, "foo");
  EXPECT_TRUE(t->Get(1)->defined());
  EXPECT_FALSE(t->Get(2)->defined());
  EXPECT_EQ(t->Get(3)->type(), 1);
  int found = -1;
  t->ForEachNamed(HashedName("data"), [&](uint32_t i) {
    found = static_cast<int>(i);
    return true;
  });
  EXPECT_EQ(found, 3);
  absl::StatusOr<std::vector<Reference>> refs = t->References();
  ASSERT_TRUE(refs.ok()) << refs.status();
  ASSERT_EQ(refs->size(), 1u);
  EXPECT_EQ((*refs)[0].symbol, 2u);
}

INSTANTIATE_TEST_SUITE_P(All, ElfClassesTest,
                         ::testing::Values(std::pair{true, false}, std::pair{false, false},
                                           std::pair{true, true}, std::pair{false, true}));

TEST(ElfReaderTest, TextIsNotElf) {
  std::string text = "# a linker script\nGROUP ( libc.so.6 )\n";
  absl::StatusOr<ElfFile> f =
      ElfFile::Parse("libc.so", {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  EXPECT_THAT(f, StatusIs(absl::StatusCode::kInvalidArgument, "libc.so: not an ELF file"));
  EXPECT_TRUE(IsNotElf(f.status()));
  // The classification is the status's payload, not its words: a file named "not an ELF file"
  // that is corrupt is still corrupt.
  EXPECT_FALSE(IsNotElf(absl::InvalidArgumentError("x: not an ELF file")));
  EXPECT_FALSE(IsNotElf(absl::DataLossError("not an ELF file")));
}

TEST(ElfReaderTest, EmptyIsNotElf) {
  EXPECT_THAT(ElfFile::Parse("empty.so", {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "empty.so: not an ELF file"));
}

TEST(ElfReaderTest, TruncatedHeader) {
  std::vector<uint8_t> b = Basic().Build();
  b.resize(40);
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss,
                       "libx.so: ELF header truncated: file is 40 bytes, header needs 64"));
}

TEST(ElfReaderTest, InvalidClass) {
  std::vector<uint8_t> b = Basic().Build();
  b[4] = 3;
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss, "libx.so: ELF header: invalid EI_CLASS 3"));
}

TEST(ElfReaderTest, InvalidByteOrder) {
  std::vector<uint8_t> b = Basic().Build();
  b[5] = 0;
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss, "invalid EI_DATA 0"));
}

TEST(ElfReaderTest, ProgramHeadersPastEnd) {
  std::vector<uint8_t> b = Basic().Build();
  Patch64(b, 32, b.size() - 8);
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss, "libx.so: program headers (2 x 56 bytes at"));
}

TEST(ElfReaderTest, HugeProgramHeaderOffsetDoesNotWrap) {
  std::vector<uint8_t> b = Basic().Build();
  Patch64(b, 32, UINT64_MAX - 10);
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss, "run past the end of the file"));
}

TEST(ElfReaderTest, WrongProgramHeaderEntrySize) {
  std::vector<uint8_t> b = Basic().Build();
  Patch16(b, 54, 40);
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss, "e_phentsize is 40, expected 56"));
}

TEST(ElfReaderTest, LoadSegmentPastEnd) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch64(b, L.phoff + 32, L.size + 4096);  // PT_LOAD p_filesz
  EXPECT_THAT(
      ElfFile::Parse("libx.so", b),
      StatusIs(absl::StatusCode::kDataLoss, "program header 0 (PT_LOAD): file range 0x0+0x"));
}

TEST(ElfReaderTest, DynamicSegmentPastEnd) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch64(b, L.phoff + 56 + 8, L.size - 4);  // PT_DYNAMIC p_offset
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss, "PT_DYNAMIC: file range"));
}

TEST(ElfReaderTest, StringTableOutsideSegments) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch64(b, L.dyn_entry["DT_STRTAB"], 0x7fff0000);
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss, ".dynstr (DT_STRTAB 0x7fff0000, DT_STRSZ"));
}

TEST(ElfReaderTest, StringTableSizePastSegment) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch64(b, L.dyn_entry["DT_STRSZ"], L.size);
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss, "is not inside a loaded segment"));
}

TEST(ElfReaderTest, NeededNameOutsideStringTable) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch64(b, L.dyn_entry["DT_NEEDED"], 0x100000);
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss,
                       "PT_DYNAMIC: DT_NEEDED string offset 0x100000 is outside .dynstr"));
}

TEST(ElfReaderTest, SonameNotNulTerminated) {
  Layout L;
  ElfBuilder builder = Basic();
  std::vector<uint8_t> b = builder.Build(&L);
  // Make .dynstr end right inside "libfoo.so".
  const std::string strtab(reinterpret_cast<const char*>(&b[L.dynstr]), 64);
  const uint64_t at = strtab.find("libfoo.so");
  Patch64(b, L.dyn_entry["DT_STRSZ"], at + 3);
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss, "DT_SONAME string offset"));
}

// Truncating a valid file at every structure boundary: never a crash, and every failure is a
// kDataLoss error that names the file.
class TruncationTest : public ::testing::TestWithParam<const char*> {};

TEST_P(TruncationTest, AtStructureBoundary) {
  Layout L;
  ElfBuilder b = Versioned();
  b.relocs = {1};
  std::vector<uint8_t> full = b.Build(&L);
  const std::map<std::string, uint64_t> at = {{"ehdr", 40},
                                              {"phdrs", L.phoff + 8},
                                              {"dynstr", L.dynstr + 3},
                                              {"dynsym", L.dynsym + 10},
                                              {"hash", L.hash + 6},
                                              {"versym", L.versym + 1},
                                              {"verdef", L.verdef + 12},
                                              {"verneed", L.verneed + 5},
                                              {"rela", L.rela + 7},
                                              {"dynamic", L.dynamic + 9}};
  std::vector<uint8_t> cut(full.begin(), full.begin() + at.at(GetParam()));
  absl::StatusOr<ElfFile> elf = ElfFile::Parse("libcut.so", cut);
  absl::Status st = elf.status();
  if (elf.ok()) {
    absl::StatusOr<SymbolTable> t = SymbolTable::Read(*elf);
    st = t.ok() ? t->References().status() : t.status();
  }
  ASSERT_FALSE(st.ok()) << "truncated at " << GetParam();
  EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss) << st;
  EXPECT_THAT(std::string(st.message()), ::testing::StartsWith("libcut.so: ")) << st;
}

INSTANTIATE_TEST_SUITE_P(Boundaries, TruncationTest,
                         ::testing::Values("ehdr", "phdrs", "dynstr", "dynsym", "hash", "versym",
                                           "verdef", "verneed", "rela", "dynamic"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           return std::string(p.param);
                         });

TEST(ElfReaderTest, PhnumXnumWithoutSectionHeader) {
  std::vector<uint8_t> b = Basic().Build();
  Patch16(b, 56, 0xffff);
  Patch64(b, 40, b.size() + 100);  // e_shoff past the end
  EXPECT_THAT(ElfFile::Parse("libx.so", b),
              StatusIs(absl::StatusCode::kDataLoss,
                       "e_phnum is PN_XNUM but section header 0 is unreadable"));
}

}  // namespace
}  // namespace abicheck
