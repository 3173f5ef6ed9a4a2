// The ELF reader and symbol tables on valid and malformed bytes: every error names the file and
// the structure, and has the right code (kInvalidArgument: not ELF, kDataLoss: corrupt).
#include <cstring>
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/elf/elf_file.h"
#include "lib/io/byte_reader.h"
#include "lib/symbols/symbol_table.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::Layout;
using ::abicheck::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

ElfBuilder Basic() {
  ElfBuilder b;
  b.soname = "libfoo.so";
  b.needed = {"libc.so.6", "libbar.so.1"};
  b.syms = {{"foo"}, {"bar", false}, {"data", true, 1, 1}};
  b.relocs = {2};
  return b;
}

void Patch32(std::vector<uint8_t>& b, uint64_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }
void Patch64(std::vector<uint8_t>& b, uint64_t at, uint64_t v) { std::memcpy(&b[at], &v, 8); }
void Patch16(std::vector<uint8_t>& b, uint64_t at, uint16_t v) { std::memcpy(&b[at], &v, 2); }

absl::StatusOr<SymbolTable> ReadTable(const std::vector<uint8_t>& bytes,
                                      std::unique_ptr<ElfFile>* keep) {
  absl::StatusOr<ElfFile> elf = ElfFile::Parse("libx.so", bytes);
  if (!elf.ok()) return elf.status();
  *keep = std::make_unique<ElfFile>(*std::move(elf));
  return SymbolTable::Read(**keep);
}

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

// docs/loader-model.md B7: where _dl_relocate_object stops, and what it would fault on.
absl::StatusOr<std::vector<Reference>> ReferencesOf(const std::vector<uint8_t>& bytes) {
  std::unique_ptr<ElfFile> keep;
  absl::StatusOr<SymbolTable> t = ReadTable(bytes, &keep);
  if (!t.ok()) return t.status();
  return t->References();
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

ElfBuilder Versioned() {
  ElfBuilder b;
  b.soname = "libv.so";
  b.with_versym = true;
  b.syms = {{"foo", true, 1, 2, 0, 2}, {"foo", true, 1, 2, 0, 0x8003}, {"ext", false, 1, 2, 0, 4}};
  b.verdefs = {{"libv.so", 1, 1}, {"V1", 2}, {"V2", 3}};
  b.verneeds = {{"libc.so.6", {{"GLIBC_2.2.5", 4}}}};
  return b;
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

}  // namespace
}  // namespace abicheck

namespace abicheck {
namespace {

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
