// Wheels, zips and directories as inputs, including hostile ones: no ELF members, sizes that lie,
// zip bombs, "../" member names, zip64 records on a small file, too many files.
#include "lib/inputs/inputs.h"

#include <zip.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/elf/elf_constants.h"
#include "lib/io/blob.h"
#include "lib/io/zip_archive.h"
#include "lib/report/render.h"
#include "lib/results/results.h"
#include "lib/util/paths.h"
#include "tests/support/index_reseal.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::StatusIs;
using ::abicheck::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Member {
  std::string name;
  std::vector<uint8_t> bytes;
  bool deflate = true;
};

// Writes a zip with libzip.
std::string WriteZip(const TempDir& d, const std::string& name,
                     const std::vector<Member>& members) {
  const std::string path = d.path() + "/" + name;
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  EXPECT_NE(z, nullptr);
  for (const Member& m : members) {
    zip_source_t* src = zip_source_buffer(z, m.bytes.data(), m.bytes.size(), 0);
    zip_int64_t idx = zip_file_add(z, m.name.c_str(), src, ZIP_FL_ENC_UTF_8);
    EXPECT_GE(idx, 0) << zip_strerror(z);
    zip_set_file_compression(z, idx, m.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  EXPECT_EQ(zip_close(z), 0);
  return path;
}

std::vector<uint8_t> Lib(const std::string& soname, std::vector<std::string> syms) {
  ElfBuilder b;
  b.soname = soname;
  for (const std::string& s : syms) b.syms.push_back({s});
  return b.Build();
}

std::vector<uint8_t> Mod(std::vector<std::string> needed, std::vector<std::string> refs) {
  ElfBuilder b;
  b.needed = std::move(needed);
  for (size_t i = 0; i < refs.size(); ++i) {
    b.syms.push_back({refs[i], false});
    b.relocs.push_back(static_cast<uint32_t>(i + 1));
  }
  b.syms.push_back({"PyInit_mod"});
  return b.Build();
}

CheckOptions NoHostOptions() {
  CheckOptions o;
  o.use_host = false;
  return o;
}

CheckOptions WithProviders(std::vector<std::string> p) {
  CheckOptions o;
  o.providers = std::move(p);
  return o;
}

std::vector<uint8_t> Read(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

void Put32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }

// Sets the uncompressed size of the first member in its local and central headers.
void LieAboutSize(std::vector<uint8_t>& zip, uint32_t size) {
  Put32(zip, 22, size);
  for (size_t i = 0; i + 4 < zip.size(); ++i) {
    if (zip[i] == 'P' && zip[i + 1] == 'K' && zip[i + 2] == 1 && zip[i + 3] == 2) {
      Put32(zip, i + 24, size);
      return;
    }
  }
}

TEST(ZipInputTest, ReadsStoredAndDeflatedMembers) {
  TempDir d;
  std::vector<uint8_t> lib = Lib("libtorch.so", {"f"});
  std::string whl = WriteZip(d, "t.whl",
                             {{"torch/lib/libtorch.so", lib, true},
                              {"torch/lib/libc10.so", Lib("libc10.so", {"g"}), false},
                              {"torch/__init__.py", {'#', '\n'}, true}});
  absl::StatusOr<ExpandedInput> in = ExpandInput(whl, InputLimits{});
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

TEST(ZipInputTest, WheelAgainstWheel) {
  TempDir d;
  std::string torch =
      WriteZip(d, "torch.whl", {{"torch/lib/libtorch.so", Lib("libtorch.so", {"kept"})}});
  std::string ext =
      WriteZip(d, "ext.whl",
               {{"ext/_C.so", Mod({"libtorch.so", "libext_helper.so"}, {"kept", "gone", "helper"})},
                {"ext.libs/libext_helper.so", Lib("libext_helper.so", {"helper"})}});
  absl::StatusOr<Matrix> m = CheckMatrix({ext}, {torch}, NoHostOptions());
  ASSERT_TRUE(m.ok()) << m.status();
  // docs/loader-model.md E6: the wheel's own library is checked too (it loads: it needs nothing),
  // and still counts as loaded for the module.
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
  absl::StatusOr<ExpandedInput> in = ExpandInput(whl, InputLimits{});
  ASSERT_TRUE(in.ok());
  EXPECT_TRUE(in->objects.empty());
  EXPECT_THAT(in->notes, ElementsAre("pkg/data.so.txt: not an ELF file"));
  std::string mod = d.Write("mod.so", Mod({}, {}));
  EXPECT_THAT(Check(mod, WithProviders({whl})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "pure.whl: no ELF shared objects in this archive"));
  EXPECT_THAT(CheckMatrix({whl}, {}, CheckOptions{}),
              StatusIs(absl::StatusCode::kInvalidArgument, "pure.whl: no module to check"));
}

TEST(ZipInputTest, MemberInflatesPastItsDeclaredSize) {
  TempDir d;
  std::string whl = WriteZip(d, "lie.whl", {{"torch/lib/libx.so", Lib("libx.so", {"f"})}});
  std::vector<uint8_t> z = Read(whl);
  LieAboutSize(z, 100);
  std::string lie = d.Write("lie2.whl", z);
  EXPECT_THAT(ExpandInput(lie, InputLimits{}),
              StatusIs(absl::StatusCode::kDataLoss,
                       "lie2.whl!torch/lib/libx.so: inflates past its declared size of 100 bytes"));
}

TEST(ZipInputTest, MemberShorterThanDeclared) {
  TempDir d;
  std::vector<uint8_t> lib = Lib("libx.so", {"f"});
  std::string whl = WriteZip(d, "short.whl", {{"torch/lib/libx.so", lib}});
  std::vector<uint8_t> z = Read(whl);
  LieAboutSize(z, static_cast<uint32_t>(lib.size() + 1000));
  EXPECT_THAT(ExpandInput(d.Write("short2.whl", z), InputLimits{}),
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
    EXPECT_THAT(ExpandInput(d.Write("s2.whl", z), InputLimits{}),
                StatusIs(absl::StatusCode::kDataLoss, "s2.whl!lib/libx.so: CRC"));
    InputLimits fast;
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
    EXPECT_THAT(ExpandInput(d.Write("d2.whl", z), InputLimits{}),
                StatusIs(absl::StatusCode::kDataLoss, "the archive records 0x"));
  }
  // The intact archive reads.
  EXPECT_TRUE(ExpandInput(d.path() + "/d.whl", InputLimits{}).ok());
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
  InputLimits limits;
  limits.max_total_inflated = 16u << 20;
  EXPECT_THAT(
      ExpandInput(whl, limits),
      StatusIs(absl::StatusCode::kResourceExhausted,
               "bomb.whl: its shared objects declare 67108864 bytes in all, more than the cap"));
  limits = InputLimits{};
  limits.max_member_bytes = 1u << 20;
  EXPECT_THAT(ExpandInput(whl, limits), StatusIs(absl::StatusCode::kResourceExhausted,
                                                 "more than the cap of 1048576 per member"));
}

TEST(ZipInputTest, DotDotMemberNamesAreNeverPaths) {
  TempDir d;
  std::string whl =
      WriteZip(d, "evil.whl", {{"../../escape/libevil.so", Lib("libevil.so", {"f"})}});
  absl::StatusOr<ExpandedInput> in = ExpandInput(whl, InputLimits{});
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
  absl::StatusOr<ExpandedInput> in = ExpandInput(whl, InputLimits{});
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->objects.size(), 1u);
  InputLimits few;
  few.max_members = 1000;
  EXPECT_THAT(ExpandInput(whl, few), StatusIs(absl::StatusCode::kResourceExhausted,
                                              "70001 members, more than the cap of 1000"));
}

TEST(ZipInputTest, NotAZip) {
  TempDir d;
  std::string p = d.Write("broken.whl", std::string("PK\x03\x04 this is not really a zip"));
  EXPECT_THAT(ExpandInput(p, InputLimits{}),
              StatusIs(absl::StatusCode::kDataLoss, "broken.whl: not a readable zip archive"));
}

TEST(ZipInputTest, TruncatedZip) {
  TempDir d;
  std::string whl = WriteZip(d, "t.whl", {{"torch/lib/libx.so", Lib("libx.so", {"f"})}});
  std::vector<uint8_t> z = Read(whl);
  z.resize(z.size() / 2);
  EXPECT_THAT(ExpandInput(d.Write("half.whl", z), InputLimits{}),
              StatusIs(absl::StatusCode::kDataLoss, "half.whl: not a readable zip archive"));
}

TEST(DirectoryInputTest, ListsElfFilesOnceThroughSymlinks) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/torch/lib");
  d.Write("torch/lib/libc10.so.2.6.0", Lib("libc10.so.2.6", {"f"}));
  std::filesystem::create_symlink("libc10.so.2.6.0", d.path() + "/torch/lib/libc10.so.2.6");
  d.Write("torch/lib/README", std::string("text"));
  absl::StatusOr<ExpandedInput> in = ExpandInput(d.path() + "/torch", InputLimits{});
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->kind, "directory");
  ASSERT_EQ(in->objects.size(), 1u);
}

TEST(DirectoryInputTest, ThousandsOfFilesAndTheCap) {
  TempDir d;
  for (int i = 0; i < 3000; ++i) d.Write("f" + std::to_string(i) + ".txt", std::string("x"));
  d.Write("libx.so", Lib("libx.so", {"f"}));
  absl::StatusOr<ExpandedInput> in = ExpandInput(d.path(), InputLimits{});
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->objects.size(), 1u);
  InputLimits few;
  few.max_files = 100;
  EXPECT_THAT(ExpandInput(d.path(), few),
              StatusIs(absl::StatusCode::kResourceExhausted, "more than 100 files"));
}

TEST(SparseImageTest, RangeSetMerges) {
  RangeSet r;
  r.Add(10, 20);
  r.Add(30, 40);
  r.Add(15, 35);
  EXPECT_EQ(r.ranges().size(), 1u);
  EXPECT_TRUE(r.Covers(10, 40));
  EXPECT_FALSE(r.Covers(5, 12));
  r.Add(50, 60);
  EXPECT_FALSE(r.Covers(39, 51));
  EXPECT_EQ(r.TotalBytes(), 40u);
}

}  // namespace
}  // namespace abicheck

namespace abicheck {
namespace {

// Issue 15, on real torch symbols: int64_t -> c10::SymInt in at::_ops::narrow::call. The same
// qualified name wins over another op with the module's exact parameter list.
TEST(DiagnosisRankingTest, SameQualifiedNameWins) {
  TempDir d;
  const std::string lib =
      d.Write("libtorch_cpu.so",
              Lib("libtorch_cpu.so", {"_ZN2at4_ops13diagonal_copy4callERKNS_6TensorElll",
                                      "_ZN2at4_ops6narrow4callERKNS_6TensorElN3c106SymIntES6_"}));
  const std::string mod =
      d.Write("mod.so", Mod({"libtorch_cpu.so"}, {"_ZN2at4_ops6narrow4callERKNS_6TensorElll"}));
  CheckOptions o = NoHostOptions();
  o.providers = {lib};
  absl::StatusOr<Report> r = Check(mod, o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->problems.size(), 1u);
  ASSERT_FALSE(r->problems[0].candidates.empty()) << RenderText(*r, false);
  const Candidate& c = r->problems[0].candidates[0];
  EXPECT_EQ(c.demangled,
            "at::_ops::narrow::call(at::Tensor const&, long, c10::SymInt, c10::SymInt)");
  EXPECT_EQ(c.relation, Relation::kSignatureChanged);
  EXPECT_EQ(r->problems[0].candidates.size(), 1u) << "diagonal_copy is noise beside it";
  EXPECT_THAT(r->problems[0].hint, HasSubstr("compiled against another declaration of call"));
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
  d.Write("site/pkg_b/mod.so", Mod({"libb.so", "liba.so", "libt.so"}, {"a_fn", "b_fn", "t_fn"}));
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

// Issue 15: the text shows three problems of a cause and how many more; `all` lists every one.
TEST(DiagnosisCausesTest, ManyProblemsOfOneCauseAreShownAsAFew) {
  TempDir d;
  std::vector<std::string> defs, refs;
  for (int i = 0; i < 8; ++i) {
    const std::string n = "f" + std::to_string(i);
    defs.push_back("_ZN2ns" + std::to_string(n.size()) + n + "El");
    refs.push_back("_ZN2ns" + std::to_string(n.size()) + n + "Ei");
  }
  const std::string lib = d.Write("libt.so", Lib("libt.so", defs));
  const std::string mod = d.Write("mod.so", Mod({"libt.so"}, refs));
  CheckOptions o = NoHostOptions();
  o.providers = {lib};
  absl::StatusOr<Report> r = Check(mod, o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->causes.size(), 1u);
  ASSERT_EQ(r->causes[0].problems, 8);
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const std::string some = RenderText(*r, false), every = RenderText(*r, false, true);
  EXPECT_EQ(count(some, "undefined symbol: ns::f"), 3) << some;
  EXPECT_THAT(some, HasSubstr("... 5 more of this cause (--all lists them)"));
  EXPECT_EQ(count(every, "undefined symbol: ns::f"), 8) << every;
  EXPECT_EQ(every.find("more of this cause"), std::string::npos);
  EXPECT_THAT(RenderJson(*r), HasSubstr("_ZN2ns2f7Ei")) << "JSON keeps every problem";
}

// Issue 15: one change repeated across an API is one cause, with a count and examples.
TEST(DiagnosisCausesTest, RepeatedChangeIsOneCause) {
  TempDir d;
  // ns::f1..f4(int) became (long); ns::g(int) became (unsigned int): a change of its own.
  const std::string lib = d.Write(
      "libt.so",
      Lib("libt.so", {"_ZN2ns2f1El", "_ZN2ns2f2El", "_ZN2ns2f3El", "_ZN2ns2f4El", "_ZN2ns1gEj"}));
  const std::string mod = d.Write(
      "mod.so",
      Mod({"libt.so"}, {"_ZN2ns2f1Ei", "_ZN2ns2f2Ei", "_ZN2ns2f3Ei", "_ZN2ns2f4Ei", "_ZN2ns1gEi"}));
  CheckOptions o = NoHostOptions();
  o.providers = {lib};
  absl::StatusOr<Report> r = Check(mod, o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->causes.size(), 1u) << RenderText(*r, false);
  EXPECT_EQ(r->causes[0].problems, 4);
  EXPECT_THAT(r->causes[0].summary,
              HasSubstr("one change, parameter 1: int → long, in 4 functions (e.g. ns::f1, "
                        "ns::f2, ns::f3, ...)"));
  int in_cause = 0;
  for (const Problem& p : r->problems) in_cause += p.cause == r->causes[0].id;
  EXPECT_EQ(in_cause, 4);
}

// open_verify reads with the running loader's byte order: a big-endian module (s390x) finds its
// big-endian dependency on the search path, and a little-endian one there is refused in ld.so's
// words (docs/loader-model.md A11).
TEST(OpenVerifyTest, BigEndianLoaderFindsBigEndianLibraries) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/be");
  std::filesystem::create_directories(d.path() + "/le");
  ElfBuilder lib;
  lib.big_endian = true;
  lib.machine = 22;  // EM_S390
  lib.soname = "libx.so";
  lib.syms.push_back({"x_fn"});
  d.Write("be/libx.so", lib.Build());
  ElfBuilder le = lib;
  le.big_endian = false;
  d.Write("le/libx.so", le.Build());
  ElfBuilder mod;
  mod.big_endian = true;
  mod.machine = 22;
  mod.needed = {"libx.so"};
  mod.syms.push_back({"x_fn", false});
  mod.relocs.push_back(1);
  const std::string m = d.Write("mod.so", mod.Build());
  CheckOptions o = NoHostOptions();
  o.library_path = {d.path() + "/be"};
  absl::StatusOr<Report> r = Check(m, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->loads) << RenderText(*r, false);
  o.library_path = {d.path() + "/le"};
  r = Check(m, o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_FALSE(r->problems.empty());
  EXPECT_EQ(r->problems[0].message,
            d.path() + "/le/libx.so: ELF file data encoding not big-endian");
}

// Issue 15: diagnosis stops after 256 undefined symbols, and the report says so.
TEST(DiagnosisCapTest, SaysThatItCutTheList) {
  TempDir d;
  std::vector<std::string> refs;
  for (int i = 0; i < 300; ++i) refs.push_back(absl::StrCat("gone_", i));
  const std::string lib = d.Write("libt.so", Lib("libt.so", {"kept"}));
  const std::string mod = d.Write("mod.so", Mod({"libt.so"}, refs));
  CheckOptions o = NoHostOptions();
  o.providers = {lib};
  absl::StatusOr<Report> r = Check(mod, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->problems.size(), 300u);
  bool said = false;
  for (const Warning& w : r->warnings) {
    said |= w.message ==
            "diagnosis stopped after 256 undefined symbols: the other 44 are listed without "
            "nearest candidates";
  }
  EXPECT_TRUE(said) << RenderText(*r, false).substr(0, 400);
  EXPECT_FALSE(r->problems[10].hint.empty());
  EXPECT_TRUE(r->problems[299].hint.empty());
}

TEST(DiffTest, RemovedChangedAdded) {
  TempDir d;
  d.Write("old.so", Lib("libx.so.1", {"_Z3addii", "keep", "gone"}));
  d.Write("new.so", Lib("libx.so.2", {"_Z3addij", "keep", "fresh"}));
  absl::StatusOr<AbiDiff> diff = DiffBuilds(d.path() + "/old.so", d.path() + "/new.so");
  ASSERT_TRUE(diff.ok()) << diff.status();
  ASSERT_EQ(diff->libraries.size(), 1u);
  const LibraryDiff& l = diff->libraries[0];
  ASSERT_EQ(l.changed.size(), 1u);
  EXPECT_EQ(l.changed[0].demangled, "add(int, int)");
  EXPECT_EQ(l.changed[0].new_demangled, "add(int, unsigned int)");
  EXPECT_THAT(DifferenceTexts(l.changed[0].differences),
              ElementsAre("parameter 2: int → unsigned int"));
  ASSERT_EQ(l.removed.size(), 1u);
  EXPECT_EQ(l.removed[0].symbol, "gone");
  ASSERT_EQ(l.added.size(), 1u);
  EXPECT_EQ(l.added[0].symbol, "fresh");
  EXPECT_TRUE(diff->breaking());
  EXPECT_THAT(RenderDiffText(*diff, false), HasSubstr("1 removed, 1 changed, 1 added (breaking"));
  EXPECT_THAT(RenderDiffJson(*diff), HasSubstr("\"new_symbol\": \"_Z3addij\""));
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

// Issue 15: a constructor's C1 and C2 symbols demangle alike; the diff tells them apart by
// their mangled names (and only them).
TEST(DiffTest, NamesThatDemangleAlikeShowTheirSymbol) {
  TempDir d;
  d.Write("old.so", Lib("libt.so", {"_ZN2ns3FooC1Ei", "_ZN2ns3FooC2Ei", "_Z3barv", "keep"}));
  d.Write("new.so", Lib("libt.so", {"keep"}));
  absl::StatusOr<AbiDiff> diff = DiffBuilds(d.path() + "/old.so", d.path() + "/new.so");
  ASSERT_TRUE(diff.ok()) << diff.status();
  const std::string text = RenderDiffText(*diff, false);
  EXPECT_THAT(text, HasSubstr("removed: ns::Foo::Foo(int)  [_ZN2ns3FooC1Ei]"));
  EXPECT_THAT(text, HasSubstr("removed: ns::Foo::Foo(int)  [_ZN2ns3FooC2Ei]"));
  EXPECT_THAT(text, HasSubstr("removed: bar()\n")) << "a name of its own is shown alone";
}

// Issue 15: overloads that compare alike pair by the closest name, and a pair whose parts agree
// says what differs (never an empty "version:  → ").
TEST(DiffTest, OverloadsPairByTheClosestName) {
  TempDir d;
  d.Write("old.so", Lib("libt.so", {"_ZNK2at10TensorBase14const_data_ptrIKtLi0EEEPT_v"}));
  d.Write("new.so", Lib("libt.so", {"_ZNK2at10TensorBase14const_data_ptrIKmEEPT_v",
                                    "_ZNK2at10TensorBase14const_data_ptrIKtEEPT_v"}));
  absl::StatusOr<AbiDiff> diff = DiffBuilds(d.path() + "/old.so", d.path() + "/new.so");
  ASSERT_TRUE(diff.ok()) << diff.status();
  ASSERT_EQ(diff->libraries.size(), 1u);
  const LibraryDiff& l = diff->libraries[0];
  ASSERT_EQ(l.changed.size(), 1u) << RenderDiffText(*diff, false);
  EXPECT_EQ(l.changed[0].new_demangled,
            "unsigned short const* at::TensorBase::const_data_ptr<unsigned short const>() const");
  ASSERT_EQ(l.added.size(), 1u);
  EXPECT_EQ(l.added[0].symbol, "_ZNK2at10TensorBase14const_data_ptrIKmEEPT_v");
  for (const std::string& x : DifferenceTexts(l.changed[0].differences)) {
    EXPECT_EQ(x.find("version:  "), std::string::npos) << x;
    EXPECT_FALSE(x.empty());
  }
}

TEST(DiffTest, PairsLibrariesByStemAndAddedOnlyIsNotBreaking) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/a");
  std::filesystem::create_directories(d.path() + "/b");
  d.Write("a/libc10.so", Lib("libc10.so", {"keep"}));
  d.Write("b/libc10.so", Lib("libc10.so", {"keep", "newer"}));
  absl::StatusOr<AbiDiff> diff = DiffBuilds(d.path() + "/a", d.path() + "/b");
  ASSERT_TRUE(diff.ok()) << diff.status();
  ASSERT_EQ(diff->libraries.size(), 1u);
  EXPECT_EQ(diff->libraries[0].old_library, d.path() + "/a/libc10.so");
  EXPECT_EQ(diff->libraries[0].new_library, d.path() + "/b/libc10.so");
  EXPECT_FALSE(diff->breaking());
}

// Issue 15: the soname change is what every module meets first (2.6 -> 2.14: "cannot open
// shared object file"), so diff reports it, as breaking, with removed version definitions and
// new DT_NEEDED entries.
TEST(DiffTest, SonameVersionsAndNeededChangesAreReported) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/a");
  std::filesystem::create_directories(d.path() + "/b");
  d.Write("a/libc10.so.2.6", Lib("libc10.so.2.6", {"keep"}));
  d.Write("b/libc10.so.2.14", Lib("libc10.so.2.14", {"keep"}));
  absl::StatusOr<AbiDiff> diff = DiffBuilds(d.path() + "/a", d.path() + "/b");
  ASSERT_TRUE(diff.ok()) << diff.status();
  ASSERT_EQ(diff->libraries.size(), 1u);
  EXPECT_EQ(diff->libraries[0].old_soname, "libc10.so.2.6");
  EXPECT_EQ(diff->libraries[0].new_soname, "libc10.so.2.14");
  EXPECT_TRUE(diff->breaking());
  EXPECT_THAT(RenderDiffText(*diff, false),
              HasSubstr("soname:  libc10.so.2.6 -> libc10.so.2.14 (every module naming "
                        "libc10.so.2.6 in DT_NEEDED fails first"));
  EXPECT_THAT(RenderDiffJson(*diff),
              HasSubstr("\"soname\": {\n        \"old\": \"libc10.so.2.6\""));

  ElfBuilder v1, v2;
  v1.soname = v2.soname = "libv.so";
  v1.verdefs = {{"libv.so", 1, elf::VER_FLG_BASE}, {"V1", 2}, {"V2", 3}};
  v2.verdefs = {{"libv.so", 1, elf::VER_FLG_BASE}, {"V2", 2}, {"V3", 3}};
  v2.needed = {"libcudart.so.13"};
  d.Write("v1.so", v1.Build());
  d.Write("v2.so", v2.Build());
  diff = DiffBuilds(d.path() + "/v1.so", d.path() + "/v2.so");
  ASSERT_TRUE(diff.ok()) << diff.status();
  ASSERT_EQ(diff->libraries.size(), 1u);
  EXPECT_THAT(diff->libraries[0].versions_removed, ElementsAre("V1"));
  EXPECT_THAT(diff->libraries[0].versions_added, ElementsAre("V3"));
  EXPECT_THAT(diff->libraries[0].needed_added, ElementsAre("libcudart.so.13"));
  EXPECT_TRUE(diff->breaking());
  EXPECT_THAT(RenderDiffText(*diff, false), HasSubstr("version removed: V1"));
  EXPECT_THAT(RenderDiffText(*diff, false), HasSubstr("needs now: libcudart.so.13"));
}

}  // namespace
}  // namespace abicheck

namespace abicheck {
namespace {

class IndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(d_.path() + "/b1");
    std::filesystem::create_directories(d_.path() + "/b2");
    d_.Write("b1/libtorch.so", Lib("libtorch.so", {"kept", "gone"}));
    d_.Write("b2/libtorch.so", Lib("libtorch.so", {"kept"}));
    index_ = d_.path() + "/builds.abix";
    absl::StatusOr<IndexSummary> s =
        BuildIndex({d_.path() + "/b1", d_.path() + "/b2"}, {"one", "two"}, index_);
    ASSERT_TRUE(s.ok()) << s.status();
    module_ = d_.Write("mod.so", Mod({"libtorch.so"}, {"kept", "gone"}));
  }
  std::vector<uint8_t> Bytes() { return Read(index_); }
  TempDir d_;
  std::string index_, module_;
};

TEST_F(IndexTest, SameAnswersAsTheDirectories) {
  absl::StatusOr<Report> a = Check(module_, WithProviders({index_ + "#one"}));
  absl::StatusOr<Report> b = Check(module_, WithProviders({index_ + "#two"}));
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(a->loads) << RenderText(*a, false);
  ASSERT_EQ(b->problems.size(), 1u);
  EXPECT_EQ(b->problems[0].symbol, "gone");
  absl::StatusOr<Matrix> m = CheckMatrix({module_}, {index_}, CheckOptions{});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(m->builds, ElementsAre(index_ + "#one", index_ + "#two"));
  EXPECT_THAT(m->cells[1].report.problems[0].exported_by, ElementsAre(index_ + "#one"));
}

TEST_F(IndexTest, SaysWhatItHolds) {
  // "kept" is exported by both builds and stored once; "gone" by the first only.
  absl::StatusOr<IndexSummary> s =
      BuildIndex({d_.path() + "/b1", d_.path() + "/b2"}, {"one", "two"}, d_.path() + "/again.abix");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->path, d_.path() + "/again.abix");
  EXPECT_THAT(s->builds, ElementsAre("one", "two"));
  EXPECT_EQ(s->libraries, 2u);
  EXPECT_EQ(s->names, 2u);
  EXPECT_EQ(s->file_bytes, std::filesystem::file_size(s->path));
}

TEST_F(IndexTest, SeveralBuildsNeedOneNamedAsProviders) {
  EXPECT_THAT(Check(module_, WithProviders({index_})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "holds several builds; name one as " + index_ + "#BUILD: one, two"));
  EXPECT_THAT(Check(module_, WithProviders({index_ + "#three"})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "has no build named three; its builds: one, two"));
  EXPECT_THAT(CheckMatrix({index_}, {}, CheckOptions{}),
              StatusIs(absl::StatusCode::kInvalidArgument, "not modules"));
}

TEST_F(IndexTest, TruncatedIsAnError) {
  std::vector<uint8_t> b = Bytes();
  b.resize(b.size() - 10);
  std::string p = d_.Write("cut.abix", b);
  EXPECT_THAT(Check(module_, WithProviders({p + "#one"})),
              StatusIs(absl::StatusCode::kDataLoss, "cut.abix: index is"));
}

TEST_F(IndexTest, OneFlippedByteIsAnError) {
  std::vector<uint8_t> b = Bytes();
  uint64_t blocks;
  std::memcpy(&blocks, &b[64], 8);
  // Everything but the compressed name blocks is verified on opening...
  for (size_t at : {size_t{100}, size_t{blocks / 2}, size_t{blocks - 1}}) {
    std::vector<uint8_t> c = b;
    c[at] ^= 0x20;
    std::string p = d_.Write("flip.abix", c);
    EXPECT_THAT(Check(module_, WithProviders({p + "#one"})),
                StatusIs(absl::StatusCode::kDataLoss,
                         "flip.abix: index checksum mismatch: the file is corrupt"))
        << "byte " << at;
  }
  // ...and a block when a lookup decodes it (this index has one: "gone" and "kept").
  std::vector<uint8_t> c = b;
  c[b.size() - 1] ^= 0x20;
  std::string p = d_.Write("flip.abix", c);
  EXPECT_THAT(Check(module_, WithProviders({p + "#one"})),
              StatusIs(absl::StatusCode::kDataLoss,
                       "flip.abix: index name block 0: checksum mismatch: the file is corrupt"));
}

// An index whose checksums were made to match (a crafted file can say anything that parses):
// every byte of its name section and of its blocks flipped in turn is read safely — an answer or
// a DataLoss naming the index, never a crash (ASan) or a hang.
TEST_F(IndexTest, MalformedNameSectionWithAValidChecksum) {
  const std::vector<uint8_t> b = Bytes();
  uint64_t names_off, names_size, blocks;
  std::memcpy(&names_off, &b[48], 8);
  std::memcpy(&names_size, &b[56], 8);
  std::memcpy(&blocks, &b[64], 8);
  ASSERT_GT(names_size, 0u);
  ASSERT_LT(blocks, b.size());
  int failed = 0, flips = 0;
  auto flip = [&](uint64_t at) {
    std::vector<uint8_t> c = b;
    c[at] ^= 0x41;
    testing::ResealIndex(c);
    std::string p = d_.Write("sealed.abix", c);
    absl::StatusOr<Report> r = Check(module_, WithProviders({p + "#two"}));
    ++flips;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss) << r.status();
      EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("sealed.abix: index"))
          << r.status();
      ++failed;
    }
  };
  for (uint64_t at = names_off; at < names_off + names_size; ++at) flip(at);
  for (uint64_t at = blocks; at < b.size(); ++at) flip(at);
  EXPECT_GT(failed, 0) << "none of " << flips << " flips was noticed";
  // The last byte is inside the last block: with its checksum made to match, decoding fails.
  std::vector<uint8_t> c = b;
  c[b.size() - 1] ^= 0xff;
  testing::ResealIndex(c);
  std::string p = d_.Write("block.abix", c);
  EXPECT_THAT(Check(module_, WithProviders({p + "#one"})),
              StatusIs(absl::StatusCode::kDataLoss, "block.abix: index name block"));
  // Every reader of an index's symbols says so, not only the check: diff, and merging.
  EXPECT_THAT(DiffBuilds(p + "#one", p + "#two"),
              StatusIs(absl::StatusCode::kDataLoss, "block.abix: index name block"));
  EXPECT_THAT(BuildIndex({p}, {}, d_.path() + "/merged.abix"),
              StatusIs(absl::StatusCode::kDataLoss, "block.abix: index name block"));
}

TEST_F(IndexTest, AnotherFormatVersionIsAnError) {
  std::vector<uint8_t> b = Bytes();
  Put32(b, 8, 1);
  std::string p = d_.Write("v1.abix", b);
  absl::StatusOr<Report> r = Check(module_, WithProviders({p + "#one"}));
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kFailedPrecondition,
                          "v1.abix: index format version 1; this abicheck reads version 2"));
  EXPECT_EQ(ExitCodeForStatus(r.status()), kExitBadInput);
}

}  // namespace
}  // namespace abicheck

namespace abicheck {
namespace {

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

}  // namespace
}  // namespace abicheck
