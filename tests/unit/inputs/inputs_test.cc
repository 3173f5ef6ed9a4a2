// Inputs: wheels read in place (stored, deflated, hostile), directories, installed packages.
#include "lib/inputs/inputs.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/elf/elf_file.h"
#include "lib/elf/fatbin.h"
#include "lib/io/blob.h"
#include "lib/report/render.h"
#include "lib/util/paths.h"
#include "tests/support/fatbin_elf.h"
#include "tests/unit/test_inputs.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::StatusIs;
using ::abicheck::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace ::abicheck::testing;  // NOLINT: the shared test inputs

TEST(ZipInputTest, ReadsStoredAndDeflatedMembers) {
  TempDir d;
  std::vector<uint8_t> lib = Lib("libtorch.so", {"f"});
  std::string whl = WriteZip(d, "t.whl",
                             {{"torch/lib/libtorch.so", lib, true},
                              {"torch/lib/libc10.so", Lib("libc10.so", {"g"}), false},
                              {"torch/__init__.py", {'#', '\n'}, true}});
  absl::StatusOr<ExpandedInput> in = ExpandInput(whl, ReadLimits{});
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->kind, "archive");
  ASSERT_EQ(in->objects.size(), 2u);
  std::vector<std::string> names;
  for (const InputFile& f : in->objects) names.push_back(f.name);
  EXPECT_THAT(names, ElementsAre(whl + "!torch/lib/libc10.so", whl + "!torch/lib/libtorch.so"));
  // The inflated bytes are the original bytes.
  absl::Span<const uint8_t> got = in->objects[1].blob->bytes();
  ASSERT_EQ(got.size(), lib.size());
  EXPECT_EQ(std::memcmp(got.data(), lib.data(), lib.size()), 0);
}

// Issue 37 item 13: a member compressed another way (bzip2: method 12) is bad input, exit 3 —
// not a usage error.
TEST(ZipInputTest, AnotherCompressionMethodIsBadInput) {
  TempDir d;
  const std::string path =
      WriteZip(d, "x.whl", {{"x/libx.so", Lib("libx.so", {"f"}), /*deflate=*/false}});
  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // The method field of the local header (offset 8) and of the central directory entry (10).
  const size_t local = bytes.find("PK\x03\x04"), central = bytes.find("PK\x01\x02");
  ASSERT_NE(local, std::string::npos);
  ASSERT_NE(central, std::string::npos);
  bytes[local + 8] = 12;
  bytes[central + 10] = 12;
  d.Write("bz.whl", bytes);
  absl::StatusOr<ExpandedInput> in = ExpandInput(d.path() + "/bz.whl", ReadLimits{});
  EXPECT_THAT(in, StatusIs(absl::StatusCode::kInvalidArgument, "compression method 12"));
  EXPECT_EQ(ExitCodeForStatus(in.status()), 3);
}

TEST(ZipInputTest, WheelAgainstWheel) {
  TempDir d;
  std::string torch =
      WriteZip(d, "torch.whl", {{"torch/lib/libtorch.so", Lib("libtorch.so", {"kept"})}});
  std::string ext = WriteZip(d, "ext.whl",
                             {{"ext/_C.so", Mod({"libtorch.so", "libext_helper.so"},
                                                {"kept", "gone", "helper"}, "$ORIGIN/../ext.libs")},
                              {"ext.libs/libext_helper.so", Lib("libext_helper.so", {"helper"})}});
  absl::StatusOr<Matrix> m = CheckMatrix({ext}, {torch}, NoHostOptions());
  ASSERT_TRUE(m.ok()) << m.status();
  // docs/loader-model.md E6: the wheel's own library is checked too (it loads: it needs nothing),
  // and the module finds it where pip installs it (a vendored library is found by a search, as
  // auditwheel's RPATH makes it; it is no provider of its own: E7).
  ASSERT_EQ(m->cells.size(), 2u);
  EXPECT_EQ(m->modules[0], ext + "!ext.libs/libext_helper.so");
  EXPECT_TRUE(m->cells[0].report.loads) << RenderText(m->cells[0].report, false);
  EXPECT_FALSE(m->module_info[0].extension_module);
  EXPECT_TRUE(m->module_info[1].extension_module);
  EXPECT_EQ(m->module_info[1].label, "ext/_C.so");
  const Report& r = m->cells[1].report;
  ASSERT_EQ(r.problems.size(), 1u) << RenderText(r, false);
  EXPECT_EQ(r.problems[0].symbol, "gone");
  EXPECT_EQ(r.problems[0].message, ext + "!ext/_C.so: undefined symbol: gone");
}

TEST(ZipInputTest, NoElfMembers) {
  TempDir d;
  std::string whl = WriteZip(
      d, "pure.whl", {{"pkg/__init__.py", {'x'}}, {"pkg/data.so.txt", {'y', 'z', 'z', 'z'}}});
  absl::StatusOr<ExpandedInput> in = ExpandInput(whl, ReadLimits{});
  ASSERT_TRUE(in.ok());
  EXPECT_TRUE(in->objects.empty());
  EXPECT_THAT(in->notes, ElementsAre("pkg/data.so.txt: not an ELF file"));
  std::string mod = d.Write("mod.so", Mod({}, {}));
  EXPECT_THAT(Check(mod, WithProviders({whl})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "pure.whl: no ELF shared objects in this archive"));
  // A pure-Python wheel among the module inputs has nothing that can fail to load: it passes,
  // said in the notes (issue 36: `check dist/*.whl` was exit 3 for it).
  absl::StatusOr<Matrix> m = CheckMatrix({whl, mod}, {}, CheckOptions{});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(m->modules, ElementsAre(mod));
  bool said = false;
  for (const Warning& n : m->notes)
    said = said || (n.object == whl && absl::StrContains(n.message, "pure Python"));
  EXPECT_TRUE(said);
}

TEST(ZipInputTest, MemberInflatesPastItsDeclaredSize) {
  TempDir d;
  std::string whl = WriteZip(d, "lie.whl", {{"torch/lib/libx.so", Lib("libx.so", {"f"})}});
  std::vector<uint8_t> z = Read(whl);
  LieAboutSize(z, 100);
  std::string lie = d.Write("lie2.whl", z);
  EXPECT_THAT(ExpandInput(lie, ReadLimits{}),
              StatusIs(absl::StatusCode::kDataLoss,
                       "lie2.whl!torch/lib/libx.so: inflates past its declared size of 100 bytes"));
}

TEST(ZipInputTest, MemberShorterThanDeclared) {
  TempDir d;
  std::vector<uint8_t> lib = Lib("libx.so", {"f"});
  std::string whl = WriteZip(d, "short.whl", {{"torch/lib/libx.so", lib}});
  std::vector<uint8_t> z = Read(whl);
  LieAboutSize(z, static_cast<uint32_t>(lib.size() + 1000));
  EXPECT_THAT(ExpandInput(d.Write("short2.whl", z), ReadLimits{}),
              StatusIs(absl::StatusCode::kDataLoss, "torch/lib/libx.so: ends at"));
}

// issue 17: a member whose bytes are not those the archive's CRC-32 records is refused (pip and
// Python's zipfile say "Bad CRC-32"), stored or deflated; --fast skips the check and says so.
TEST(ZipInputTest, CorruptMemberFailsItsCrc) {
  TempDir d;
  const std::vector<uint8_t> lib = Lib("libx.so", {"f", "g"});
  {  // stored: one byte of the member changed (a string of .dynstr, "g" -> "h")
    std::vector<uint8_t> z = Read(WriteZip(d, "s.whl", {{"lib/libx.so", lib, false}}));
    const auto at = std::search(z.begin(), z.end(), lib.begin(), lib.end());
    ASSERT_NE(at, z.end());
    const std::vector<uint8_t> g = {'g', 0};
    auto in_lib = std::find_end(at, at + lib.size(), g.begin(), g.end());
    ASSERT_NE(in_lib, at + lib.size());
    *in_lib = 'h';
    EXPECT_THAT(ExpandInput(d.Write("s2.whl", z), ReadLimits{}),
                StatusIs(absl::StatusCode::kDataLoss, "s2.whl!lib/libx.so: CRC"));
    ReadLimits fast;
    fast.verify_crc = false;
    absl::StatusOr<ExpandedInput> in = ExpandInput(d.path() + "/s2.whl", fast);
    ASSERT_TRUE(in.ok()) << in.status();
    EXPECT_THAT(in->notes, Contains(HasSubstr("--fast: the CRC-32 of its 1 shared objects")));
  }
  {  // deflated: the recorded CRC changed, in the central directory and the local header alike
     // (one of them alone is an inconsistent archive, refused before any member is read)
    std::vector<uint8_t> z = Read(WriteZip(d, "d.whl", {{"lib/libx.so", lib, true}}));
    for (size_t i = 0; i + 4 < z.size(); ++i) {
      if (z[i] == 'P' && z[i + 1] == 'K' && z[i + 2] == 1 && z[i + 3] == 2) z[i + 16] ^= 1;
      if (z[i] == 'P' && z[i + 1] == 'K' && z[i + 2] == 3 && z[i + 3] == 4) z[i + 14] ^= 1;
    }
    EXPECT_THAT(ExpandInput(d.Write("d2.whl", z), ReadLimits{}),
                StatusIs(absl::StatusCode::kDataLoss, "the archive records 0x"));
  }
  // The intact archive reads.
  EXPECT_TRUE(ExpandInput(d.path() + "/d.whl", ReadLimits{}).ok());
}

TEST(ZipInputTest, ZipBombIsCappedBeforeInflating) {
  TempDir d;
  // 64 MiB of zeros deflates to ~64 KiB; the cap is set below it.
  std::vector<uint8_t> big(64u << 20, 0);
  std::memcpy(big.data(),
              "\x7f"
              "ELF",
              4);
  std::string whl = WriteZip(d, "bomb.whl", {{"lib/libbomb.so", big}});
  ReadLimits limits;
  limits.max_total_inflated = 16u << 20;
  EXPECT_THAT(
      ExpandInput(whl, limits),
      StatusIs(absl::StatusCode::kResourceExhausted,
               "bomb.whl: its shared objects declare 67108864 bytes in all, more than the cap"));
  limits = ReadLimits{};
  limits.max_member_bytes = 1u << 20;
  EXPECT_THAT(ExpandInput(whl, limits), StatusIs(absl::StatusCode::kResourceExhausted,
                                                 "more than the cap of 1048576 per member"));
}

// A loadable library (Lib) with a .nv_fatbin `pad` bytes past its end and `pad` bytes of zeros
// after it, then section headers: .nv_fatbin and .shstrtab, the names where `names_at` says: 0 in
// the first bytes (before the padding), 1 after the first `pad` (neither in the first bytes nor
// near the headers: a pass of their own), 2 just before the headers (GNU ld's layout).
std::vector<uint8_t> LibWithDeviceCode(const std::vector<uint8_t>& fatbin, uint64_t pad,
                                       int names_at) {
  std::vector<uint8_t> b = Lib("libk.so", {"f"});
  const std::string names("\0.nv_fatbin\0.shstrtab\0", 22);
  auto append = [&b](const void* p, size_t n) {
    b.insert(b.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
  };
  auto align = [&b] { b.resize((b.size() + 7) & ~size_t{7}, 0); };
  uint64_t names_off = 0;
  auto names_if = [&](int here) {
    if (names_at != here) return;
    names_off = b.size();
    append(names.data(), names.size());
  };
  names_if(0);
  b.resize(b.size() + pad, 0);
  names_if(1);
  align();
  const uint64_t fat_off = b.size();
  append(fatbin.data(), fatbin.size());
  b.resize(b.size() + pad, 0);
  names_if(2);
  align();
  const uint64_t shoff = b.size();
  b.resize(b.size() + 3 * 64, 0);
  auto put = [&b](uint64_t at, uint64_t v, int n) { std::memcpy(&b[at], &v, n); };
  put(shoff + 64 + 0, 1, 4);  // .nv_fatbin, SHT_PROGBITS
  put(shoff + 64 + 4, 1, 4);
  put(shoff + 64 + 24, fat_off, 8);
  put(shoff + 64 + 32, fatbin.size(), 8);
  put(shoff + 128 + 0, 12, 4);  // .shstrtab, SHT_STRTAB
  put(shoff + 128 + 4, 3, 4);
  put(shoff + 128 + 24, names_off, 8);
  put(shoff + 128 + 32, names.size(), 8);
  put(40, shoff, 8);
  put(58, 64, 2);
  put(60, 3, 2);
  put(62, 2, 2);
  return b;
}

// Issue 37 item 9: with device code to judge, a member was kept whole: an 18 MB wheel with a
// 4 GiB member took 4.2 GB. Past kWholeMemberMax (64 MiB) it keeps its loader tables and section
// headers, and its .nv_fatbin is walked as it inflates: the same device code, a few MiB kept.
TEST(ZipInputTest, LargeMemberDeviceCodeIsWalkedNotKept) {
  TempDir d;
  const std::vector<uint8_t> fatbin = abicheck::testing::Container(
      {{2, 90}, {1, 120, 0x8011, 9, 0}, {2, 100, 0x200011, 1, 8, 3u << 20}});
  for (int names_at : {0, 1, 2}) {
    const std::vector<uint8_t> lib = LibWithDeviceCode(fatbin, uint64_t{40} << 20, names_at);
    absl::StatusOr<ElfFile> loose = ElfFile::Parse("libk.so", lib);
    ASSERT_TRUE(loose.ok()) << loose.status();
    const DeviceCode want = ReadDeviceCode(*loose);
    ASSERT_EQ(want.images.size(), 3u);
    const std::string whl = WriteZip(d, "k.whl", {{"k/libk.so", lib}});
    ReadLimits limits;
    limits.whole_members = true;
    // Progress counts each byte once, though the member is inflated several times (the
    // loader's passes, the section names' pass, the walk): never past its total.
    std::atomic<uint64_t> most{0}, total{0};
    limits.progress = [&](uint64_t done, uint64_t all) {
      most = std::max<uint64_t>(most, done);
      total = all;
    };
    absl::StatusOr<ExpandedInput> in = ExpandInput(whl, limits);
    ASSERT_TRUE(in.ok()) << in.status();
    EXPECT_GT(most, 0u);
    EXPECT_LE(most, total) << "names_at " << names_at;
    ASSERT_EQ(in->objects.size(), 1u);
    const InputFile& f = in->objects[0];
    ASSERT_NE(f.device_code, nullptr) << "names_at " << names_at;
    const DeviceCode got = DeviceCodeOf(*f.device_code);
    ASSERT_EQ(got.images.size(), want.images.size());
    for (size_t i = 0; i < got.images.size(); ++i) {
      EXPECT_EQ(got.images[i].offset, want.images[i].offset);
      EXPECT_EQ(ImageName(got.images[i]), ImageName(want.images[i]));
    }
    EXPECT_EQ(got.problems, want.problems);
    ASSERT_NE(f.blob->retained(), nullptr);
    // Kept: what every member keeps for the loader (its first 32 MiB, RetainPlan::prefix), the
    // section headers and the 1 MiB before them; not the 87 MB.
    EXPECT_LT(f.blob->retained()->TotalBytes(), uint64_t{36} << 20)
        << "of the member's " << lib.size() << " bytes";
    // What the loader reads is there as in the file.
    absl::StatusOr<ElfFile> kept = ElfFile::Parse(f.name, f.blob->bytes());
    ASSERT_TRUE(kept.ok()) << kept.status();
    // Without device code asked for, nothing is walked.
    absl::StatusOr<ExpandedInput> plain = ExpandInput(whl, ReadLimits{});
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(plain->objects[0].device_code, nullptr);
  }
}

TEST(ZipInputTest, DotDotMemberNamesAreNeverPaths) {
  TempDir d;
  std::string whl =
      WriteZip(d, "evil.whl", {{"../../escape/libevil.so", Lib("libevil.so", {"f"})}});
  absl::StatusOr<ExpandedInput> in = ExpandInput(whl, ReadLimits{});
  ASSERT_TRUE(in.ok()) << in.status();
  ASSERT_EQ(in->objects.size(), 1u);
  EXPECT_EQ(in->objects[0].name, whl + "!../../escape/libevil.so");
  EXPECT_FALSE(std::filesystem::exists(d.path() + "/../escape")) << "nothing is ever written";
}

TEST(ZipInputTest, Zip64RecordsOnASmallFile) {
  TempDir d;
  // Python's zipfile writes zip64 extra fields on request; libzip does when sizes need it. Build
  // one by hand-forcing: a stored member followed by zip64 end records is what libzip writes for
  // >65535 entries, so use that: many tiny members.
  std::vector<Member> members;
  for (int i = 0; i < 70000; ++i) members.push_back({"f/" + std::to_string(i), {'x'}, false});
  members.push_back({"torch/lib/libx.so", Lib("libx.so", {"f"}), false});
  std::string whl = WriteZip(d, "many.whl", members);
  absl::StatusOr<ExpandedInput> in = ExpandInput(whl, ReadLimits{});
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->objects.size(), 1u);
  ReadLimits few;
  few.max_members = 1000;
  EXPECT_THAT(ExpandInput(whl, few), StatusIs(absl::StatusCode::kResourceExhausted,
                                              "70001 members, more than the cap of 1000"));
}

TEST(ZipInputTest, NotAZip) {
  TempDir d;
  std::string p = d.Write("broken.whl", std::string("PK\x03\x04 this is not really a zip"));
  EXPECT_THAT(ExpandInput(p, ReadLimits{}),
              StatusIs(absl::StatusCode::kDataLoss, "broken.whl: not a readable zip archive"));
}

TEST(ZipInputTest, TruncatedZip) {
  TempDir d;
  std::string whl = WriteZip(d, "t.whl", {{"torch/lib/libx.so", Lib("libx.so", {"f"})}});
  std::vector<uint8_t> z = Read(whl);
  z.resize(z.size() / 2);
  EXPECT_THAT(ExpandInput(d.Write("half.whl", z), ReadLimits{}),
              StatusIs(absl::StatusCode::kDataLoss, "half.whl: not a readable zip archive"));
}

TEST(DirectoryInputTest, ListsElfFilesOnceThroughSymlinks) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/torch/lib");
  d.Write("torch/lib/libc10.so.2.6.0", Lib("libc10.so.2.6", {"f"}));
  std::filesystem::create_symlink("libc10.so.2.6.0", d.path() + "/torch/lib/libc10.so.2.6");
  d.Write("torch/lib/README", std::string("text"));
  absl::StatusOr<ExpandedInput> in = ExpandInput(d.path() + "/torch", ReadLimits{});
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->kind, "directory");
  ASSERT_EQ(in->objects.size(), 1u);
}

TEST(DirectoryInputTest, ThousandsOfFilesAndTheCap) {
  TempDir d;
  for (int i = 0; i < 3000; ++i) d.Write("f" + std::to_string(i) + ".txt", std::string("x"));
  d.Write("libx.so", Lib("libx.so", {"f"}));
  absl::StatusOr<ExpandedInput> in = ExpandInput(d.path(), ReadLimits{});
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->objects.size(), 1u);
  ReadLimits few;
  few.max_files = 100;
  EXPECT_THAT(ExpandInput(d.path(), few),
              StatusIs(absl::StatusCode::kResourceExhausted, "more than 100 files"));
}

// Issue 15: in a directory of installed packages, one package's library does not satisfy another
// package's module — that depends on import order, and the report says so.
TEST(SitePackagesTest, AnotherPackagesLibraryIsOrderDependent) {
  TempDir d;
  for (const char* dir :
       {"site/pkg_a", "site/pkg_a-1.0.dist-info", "site/pkg_b", "site/pkg_b.libs", "build"})
    std::filesystem::create_directories(d.path() + "/" + dir);
  d.Write("site/pkg_a/liba.so", Lib("liba.so", {"a_fn"}));
  d.Write("site/pkg_b.libs/libb.so", Lib("libb.so", {"b_fn"}));
  d.Write("site/pkg_b/mod.so", Mod({"libb.so", "liba.so", "libt.so"}, {"a_fn", "b_fn", "t_fn"},
                                   "$ORIGIN/../pkg_b.libs"));
  d.Write("build/libt.so", Lib("libt.so", {"t_fn"}));
  CheckOptions o = NoHostOptions();
  absl::StatusOr<Matrix> m = CheckMatrix({d.path() + "/site"}, {d.path() + "/build"}, o);
  ASSERT_TRUE(m.ok()) << m.status();
  const Report* mod = nullptr;
  for (const MatrixCell& c : m->cells) {
    if (c.module == d.path() + "/site/pkg_b/mod.so") mod = &c.report;
  }
  ASSERT_NE(mod, nullptr);
  EXPECT_FALSE(mod->loads);
  ASSERT_EQ(mod->problems.size(), 2u) << RenderText(*mod, false);  // liba.so, then a_fn
  EXPECT_EQ(mod->problems[0].library, "liba.so") << "libb.so is its own package's (pkg_b.libs)";
  EXPECT_THAT(mod->problems[0].hint,
              HasSubstr("order-dependent: " + d.path() + "/site/pkg_a/liba.so provides liba.so"));
}

// An installed package directory is read as its wheel's members are: only files whose name
// contains ".so" are opened (torch's headers and Python files are never read).
TEST(InputsTest, InstalledDirectoryOpensOnlySharedObjectNames) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/torch/lib");
  d.Write("torch/lib/libc10.so", Lib("libc10.so", {"c10_fn"}));
  d.Write("torch/_C.cpython-312-x86_64-linux-gnu.so", Lib("", {"PyInit__C"}));
  d.Write("torch/bin_tool", Lib("", {"main"}));  // ELF, but no shared object's name
  d.Write("torch/__init__.py", std::string("import os\n"));
  absl::StatusOr<ExpandedInput> installed = ExpandInstalledDirectory(d.path() + "/torch", {});
  absl::StatusOr<ExpandedInput> given = ExpandInput(d.path() + "/torch", {});
  ASSERT_TRUE(installed.ok() && given.ok());
  std::vector<std::string> names;
  for (const InputFile& f : installed->objects) names.push_back(Basename(f.name));
  EXPECT_THAT(names, ElementsAre("_C.cpython-312-x86_64-linux-gnu.so", "libc10.so"));
  EXPECT_EQ(given->objects.size(), 3u) << "a directory named by the user: every ELF file";
}

}  // namespace
}  // namespace abicheck
