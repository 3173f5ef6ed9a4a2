// Symbol tables, version tables and relocations on valid and malformed bytes (docs/loader-model.md
// A, B, B7).

#include "lib/symbols/symbol_table.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/elf/elf_file.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/elf_tables.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::Layout;
using ::abicheck::testing::StatusIs;
using ::testing::HasSubstr;
using namespace ::abicheck::testing;  // NOLINT: the shared test images

TEST(SymbolTableTest, WrongSymbolEntrySize) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch64(b, L.dyn_entry["DT_SYMENT"], 16);
  std::unique_ptr<ElfFile> keep;
  EXPECT_THAT(ReadTable(b, &keep), StatusIs(absl::StatusCode::kDataLoss,
                                            "libx.so: .dynsym: DT_SYMENT is 16, expected 24"));
}

TEST(SymbolTableTest, HashChainCountPastSegment) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch32(b, L.hash + 4, 0x40000000);  // nchain
  std::unique_ptr<ElfFile> keep;
  EXPECT_THAT(ReadTable(b, &keep),
              StatusIs(absl::StatusCode::kDataLoss,
                       "libx.so: .hash: 1 buckets and 1073741824 chain entries run past"));
}

TEST(SymbolTableTest, HashBucketCountOf2To32) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch32(b, L.hash, 0xffffffffu);
  std::unique_ptr<ElfFile> keep;
  EXPECT_THAT(ReadTable(b, &keep),
              StatusIs(absl::StatusCode::kDataLoss, ".hash: 4294967295 buckets"));
}

TEST(SymbolTableTest, CyclicHashChainTerminates) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  // chain[1] = 3, chain[3] = 1: a cycle that never reaches 0.
  Patch32(b, L.hash + 12 + 4 * 1, 3);
  Patch32(b, L.hash + 12 + 4 * 3, 1);
  std::unique_ptr<ElfFile> keep;
  absl::StatusOr<SymbolTable> t = ReadTable(b, &keep);
  ASSERT_TRUE(t.ok());
  int visits = 0;
  t->ForEachNamed(HashedName("nothere"), [&](uint32_t) { return ++visits, false; });
  EXPECT_EQ(visits, 0);
}

TEST(SymbolTableTest, SymbolNameOutsideStringTable) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch32(b, L.dynsym + 24, 0x7fffffff);
  std::unique_ptr<ElfFile> keep;
  absl::StatusOr<SymbolTable> t = ReadTable(b, &keep);
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->Get(1).has_value());
  EXPECT_EQ(t->GetOrEmpty(1).name, "");
}

TEST(SymbolTableTest, RelocationSymbolIndexPastTable) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch64(b, L.rela + 8, (uint64_t{99} << 32) | 6);
  std::unique_ptr<ElfFile> keep;
  absl::StatusOr<SymbolTable> t = ReadTable(b, &keep);
  ASSERT_TRUE(t.ok());
  EXPECT_THAT(
      t->References(),
      StatusIs(
          absl::StatusCode::kDataLoss,
          ".rela.dyn (DT_RELA) entry 0: symbol index 99 is past the end of .dynsym (4 entries)"));
}

TEST(SymbolTableTest, UnknownRelocationTypeStopsAfterItsLookup) {
  for (auto [type, text] : {std::pair{uint32_t{0x99}, "unexpected reloc type 0x99"},
                            std::pair{uint32_t{0x1234}, "unexpected reloc type 0x00001234"}}) {
    Layout L;
    std::vector<uint8_t> b = Basic().Build(&L);
    Patch64(b, L.rela + 8, (uint64_t{2} << 32) | type);
    absl::StatusOr<std::vector<Reference>> refs = ReferencesOf(b);
    ASSERT_TRUE(refs.ok()) << refs.status();
    ASSERT_EQ(refs->size(), 1u);
    EXPECT_EQ((*refs)[0].symbol, 2u);  // looked up first, then refused
    EXPECT_EQ((*refs)[0].stop, Reference::Stop::kBadType);
    EXPECT_EQ(RelocationStopMessage((*refs)[0]), text);
  }
}

TEST(SymbolTableTest, RelativeCountCoversANonRelativeRelocation) {
  ElfBuilder e = Basic();
  e.relacount = 1;  // the GLOB_DAT is among the "relative" ones: ld.so asserts
  absl::StatusOr<std::vector<Reference>> refs = ReferencesOf(e.Build());
  ASSERT_TRUE(refs.ok()) << refs.status();
  ASSERT_EQ(refs->size(), 1u);
  EXPECT_EQ((*refs)[0].stop, Reference::Stop::kRelativeAssertion);
  EXPECT_THAT(RelocationStopMessage((*refs)[0]), HasSubstr("elf_machine_rela_relative"));
}

TEST(SymbolTableTest, RelocationsThatLookNothingUpOrWriteOutside) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch64(b, L.rela + 8, (uint64_t{2} << 32) | 8);  // R_X86_64_RELATIVE naming a symbol
  absl::StatusOr<std::vector<Reference>> refs = ReferencesOf(b);
  ASSERT_TRUE(refs.ok()) << refs.status();
  EXPECT_TRUE(refs->empty());
  Patch64(b, L.rela + 8, (uint64_t{2} << 32) | 6);
  Patch64(b, L.rela, 0x7000000);  // the GLOB_DAT now writes where nothing is mapped
  EXPECT_THAT(ReferencesOf(b), StatusIs(absl::StatusCode::kDataLoss,
                                        "it writes at 0x7000000, outside the object's writable "
                                        "segments"));
}

TEST(SymbolTableTest, RelocationSizeNotMultipleOfEntry) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch64(b, L.dyn_entry["DT_RELASZ"], 25);
  std::unique_ptr<ElfFile> keep;
  absl::StatusOr<SymbolTable> t = ReadTable(b, &keep);
  ASSERT_TRUE(t.ok());
  EXPECT_THAT(t->References(), StatusIs(absl::StatusCode::kDataLoss,
                                        "size 0x19 is not a multiple of the entry size 24"));
}

TEST(VersionsTest, SlotsFollowGlibcLVersions) {
  std::vector<uint8_t> b = Versioned().Build();
  std::unique_ptr<ElfFile> keep;
  absl::StatusOr<SymbolTable> t = ReadTable(b, &keep);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->version_defs().size(), 3u);
  EXPECT_EQ(t->Slot(1)->hash, 0u) << "the BASE verdef never enters l_versions";
  EXPECT_EQ(t->Slot(2)->name, "V1");
  EXPECT_EQ(t->Slot(0x8003)->name, "V2");
  EXPECT_EQ(t->Slot(4)->name, "GLIBC_2.2.5");
  EXPECT_EQ(t->Slot(4)->file, "libc.so.6");
  EXPECT_FALSE(t->Slot(4)->defined);
  EXPECT_EQ(t->Slot(9), nullptr);
  EXPECT_EQ(t->Versym(2), 0x8003);
}

TEST(VersionsTest, VerdefNextPastSection) {
  Layout L;
  std::vector<uint8_t> b = Versioned().Build(&L);
  Patch32(b, L.verdef + 16, 0x10000);
  std::unique_ptr<ElfFile> keep;
  EXPECT_THAT(
      ReadTable(b, &keep),
      StatusIs(absl::StatusCode::kDataLoss,
               "libx.so: .gnu.version_d entry 0: vd_next 0x10000 runs past the section end"));
}

TEST(VersionsTest, VerdefBadRevisionIsKeptForTheLoaderToRefuse) {
  // docs/loader-model.md B6: ld.so refuses a vd_version other than 1 when the verneed check reads
  // the record, so the table keeps it (fixture verdef_record_version).
  Layout L;
  std::vector<uint8_t> b = Versioned().Build(&L);
  Patch16(b, L.verdef + 28, 7);
  std::unique_ptr<ElfFile> keep;
  absl::StatusOr<SymbolTable> t = ReadTable(b, &keep);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->version_defs().size(), 3u);
  EXPECT_EQ(t->version_defs()[1].version, 7);
  EXPECT_EQ(t->version_defs()[0].version, 1);
}

TEST(VersionsTest, VerdefZeroNextEndsChain) {
  Layout L;
  std::vector<uint8_t> b = Versioned().Build(&L);
  Patch32(b, L.verdef + 16, 0);
  std::unique_ptr<ElfFile> keep;
  absl::StatusOr<SymbolTable> t = ReadTable(b, &keep);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->version_defs().size(), 1u);
}

TEST(VersionsTest, VerdefCountLiesHigh) {
  Layout L;
  std::vector<uint8_t> b = Versioned().Build(&L);
  Patch64(b, L.dyn_entry["DT_VERDEFNUM"], 0xffffffff);
  std::unique_ptr<ElfFile> keep;
  absl::StatusOr<SymbolTable> t = ReadTable(b, &keep);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->version_defs().size(), 3u) << "the zero vd_next ends the walk";
}

TEST(VersionsTest, VerneedFileOutsideStrings) {
  Layout L;
  std::vector<uint8_t> b = Versioned().Build(&L);
  Patch32(b, L.verneed + 4, 0xfffff);
  std::unique_ptr<ElfFile> keep;
  EXPECT_THAT(ReadTable(b, &keep),
              StatusIs(absl::StatusCode::kDataLoss,
                       ".gnu.version_r entry 0: name offset 0xfffff is outside .dynstr"));
}

TEST(VersionsTest, VerneedAuxPastSegment) {
  Layout L;
  std::vector<uint8_t> b = Versioned().Build(&L);
  Patch32(b, L.verneed + 8, 0x100000);  // vn_aux
  std::unique_ptr<ElfFile> keep;
  EXPECT_THAT(ReadTable(b, &keep),
              StatusIs(absl::StatusCode::kDataLoss, ".gnu.version_r entry 0 aux 0 at offset"));
}

TEST(VersionsTest, VersymPastSegment) {
  Layout L;
  std::vector<uint8_t> b = Versioned().Build(&L);
  Patch64(b, L.dyn_entry["DT_VERSYM"], L.size - 2);
  std::unique_ptr<ElfFile> keep;
  EXPECT_THAT(ReadTable(b, &keep),
              StatusIs(absl::StatusCode::kDataLoss, ".gnu.version (DT_VERSYM 0x"));
}

TEST(HashTest, KnownValues) {
  EXPECT_EQ(GnuHash(""), 5381u);
  EXPECT_EQ(GnuHash("printf"), 0x156b2bb8u);
  EXPECT_EQ(SysvHash("printf"), 0x077905a6u);
}

TEST(SymbolTableTest, SymbolEntrySizeZero) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch64(b, L.dyn_entry["DT_SYMENT"], 0);
  std::unique_ptr<ElfFile> keep;
  EXPECT_THAT(ReadTable(b, &keep),
              StatusIs(absl::StatusCode::kDataLoss, ".dynsym: DT_SYMENT is 0, expected 24"));
}

TEST(SymbolTableTest, TwoToThe32Symbols) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  Patch32(b, L.hash + 4, 0xffffffffu);  // nchain
  std::unique_ptr<ElfFile> keep;
  EXPECT_THAT(ReadTable(b, &keep),
              StatusIs(absl::StatusCode::kDataLoss, "4294967295 chain entries run past"));
}

TEST(SymbolTableTest, StringTableWithoutNul) {
  Layout L;
  std::vector<uint8_t> b = Basic().Build(&L);
  // Every byte of .dynstr non-NUL: no name can be read, and none is read past the table.
  for (uint64_t i = L.dynstr; i < L.dynstr + 8; ++i) b[i] = 'x';
  Patch64(b, L.dyn_entry["DT_STRSZ"], 8);
  std::unique_ptr<ElfFile> keep;
  EXPECT_THAT(ReadTable(b, &keep),
              StatusIs(absl::StatusCode::kDataLoss,
                       "is outside .dynstr (0x8 bytes) or not NUL-terminated"));
}

}  // namespace
}  // namespace abicheck
