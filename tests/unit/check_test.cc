// Check() on inputs that are not what they claim, and the pieces the report is built from:
// ld.so.cache parsing, demangling and the signature differences.
#include <filesystem>

#include "abicheck/abicheck.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/demangle/demangle.h"
#include "lib/diagnose/diagnose.h"
#include "lib/elf/elf_constants.h"
#include "lib/report/render.h"
#include "lib/resolve/ld_cache.h"
#include "lib/results/results.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::StatusIs;
using ::abicheck::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

CheckOptions NoHost(std::vector<std::string> providers) {
  CheckOptions o;
  o.providers = std::move(providers);
  o.use_host = false;
  return o;
}

TEST(CheckInputTest, MissingModule) {
  TempDir d;
  absl::StatusOr<Report> r = Check(d.path() + "/nope.so", NoHost({}));
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kNotFound, "nope.so: No such file or directory"));
  EXPECT_EQ(ExitCodeForStatus(r.status()), kExitBadInput);
}

TEST(CheckInputTest, DirectoryAsModule) {
  TempDir d;
  absl::StatusOr<Report> r = Check(d.path(), NoHost({}));
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kFailedPrecondition, ": is a directory"));
  EXPECT_EQ(ExitCodeForStatus(r.status()), kExitBadInput);
}

TEST(CheckInputTest, TextModule) {
  TempDir d;
  std::string p = d.Write("mod.so", "not an elf at all\n");
  absl::StatusOr<Report> r = Check(p, NoHost({}));
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument, "mod.so: not an ELF file"));
  EXPECT_EQ(ExitCodeForStatus(r.status()), kExitBadInput);
}

TEST(CheckInputTest, CorruptProviderIsNamed) {
  TempDir d;
  ElfBuilder m;
  m.needed = {"libp.so"};
  std::string mod = d.Write("mod.so", m.Build());
  std::vector<uint8_t> p = ElfBuilder().Build();
  p[4] = 9;
  std::string prov = d.Write("libp.so", p);
  EXPECT_THAT(Check(mod, NoHost({prov})),
              StatusIs(absl::StatusCode::kDataLoss, "libp.so: ELF header: invalid EI_CLASS 9"));
}

TEST(CheckInputTest, EmptyFileProvider) {
  TempDir d;
  std::string mod = d.Write("mod.so", ElfBuilder().Build());
  std::string prov = d.Write("libempty.so", std::vector<uint8_t>{});
  EXPECT_THAT(Check(mod, NoHost({prov})),
              StatusIs(absl::StatusCode::kInvalidArgument, "libempty.so: not an ELF file"));
}

TEST(CheckInputTest, ExecutableModuleIsNotLoadable) {
  TempDir d;
  ElfBuilder m;
  m.type = 2;  // ET_EXEC
  absl::StatusOr<Report> r = Check(d.Write("prog", m.Build()), NoHost({}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->loads);
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_EQ(r->problems[0].kind, ProblemKind::kNotLoadable);
  EXPECT_THAT(r->problems[0].message, HasSubstr("prog: cannot dynamically load executable"));
}

TEST(CheckInputTest, TheDriversLibraryIsNamedAsSuch) {
  TempDir d;
  ElfBuilder m;
  m.needed = {"libcuda.so.1"};
  absl::StatusOr<Report> r = Check(d.Write("mod.so", m.Build()), NoHost({}));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_EQ(r->problems[0].kind, ProblemKind::kMissingLibrary);
  EXPECT_THAT(r->problems[0].hint, HasSubstr("libcuda.so.1 is the NVIDIA driver's library"));
}

TEST(CheckInputTest, ForeignMachineProviderIsAnInputError) {
  TempDir d;
  std::string mod = d.Write("mod.so", ElfBuilder().Build());
  ElfBuilder p;
  p.machine = 183;  // AArch64
  absl::StatusOr<Report> r = Check(mod, NoHost({d.Write("libp.so", p.Build())}));
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kFailedPrecondition,
                          "libp.so: ELFCLASS64 AArch64 library cannot be loaded with " + mod +
                              " (ELFCLASS64 x86-64)"));
  EXPECT_EQ(ExitCodeForStatus(r.status()), kExitBadInput);
}

TEST(CheckInputTest, ThirtyTwoBitProviderIsAnInputError) {
  TempDir d;
  std::string mod = d.Write("mod.so", ElfBuilder().Build());
  ElfBuilder p;
  p.is64 = false;
  p.machine = 3;
  EXPECT_THAT(Check(mod, NoHost({d.Write("libp.so", p.Build())})),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "libp.so: ELFCLASS32 Intel 80386 library cannot be loaded with"));
}

TEST(CheckInputTest, ForeignMachineLibraryOnTheSearchPathIsSkippedAndNamed) {
  TempDir d;
  ElfBuilder p;
  p.machine = 183;  // AArch64
  p.soname = "libarm.so";
  d.Write("libarm.so", p.Build());
  ElfBuilder m;
  m.needed = {"libarm.so"};
  CheckOptions o = NoHost({});
  o.library_path = {d.path()};
  absl::StatusOr<Report> r = Check(d.Write("mod.so", m.Build()), o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_EQ(r->problems[0].kind, ProblemKind::kWrongMachine);
  EXPECT_EQ(r->problems[0].message,
            "libarm.so: cannot open shared object file: No such file or directory");
  EXPECT_THAT(r->problems[0].hint,
              HasSubstr("the only libarm.so found is " + d.path() + "/libarm.so (AArch64)"));
}

TEST(CheckInputTest, InterpreterSymbolsAreLeftToPython) {
  TempDir d;
  ElfBuilder m;
  m.syms = {{"PyLong_FromLong", false}, {"_Py_Dealloc", false}};
  m.relocs = {1, 2};
  absl::StatusOr<Report> r = Check(d.Write("mod.so", m.Build()), NoHost({}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->loads);
  EXPECT_EQ(r->interpreter_symbols, 2);
}

TEST(CheckInputTest, PythonGivenChecksPySymbols) {
  TempDir d;
  ElfBuilder m;
  m.syms = {{"PyLong_FromLong", false}, {"Py_Gone", false}};
  m.relocs = {1, 2};
  ElfBuilder py;
  py.syms = {{"PyLong_FromLong"}};
  CheckOptions o = NoHost({});
  o.python = d.Write("libpython3.so", py.Build());
  absl::StatusOr<Report> r = Check(d.Write("mod.so", m.Build()), o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->loads);
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_EQ(r->problems[0].symbol, "Py_Gone");
}

TEST(CheckInputTest, ObjectWithoutHashTableOffersNothing) {
  TempDir d;
  ElfBuilder m;
  m.needed = {"libp.so"};
  m.syms = {{"f", false}};
  m.relocs = {1};
  ElfBuilder p;
  p.soname = "libp.so";
  p.syms = {{"f"}};
  p.with_hash = false;  // do_lookup_x skips objects with l_nbuckets == 0
  absl::StatusOr<Report> r =
      Check(d.Write("mod.so", m.Build()), NoHost({d.Write("libp.so", p.Build())}));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_EQ(r->problems[0].message, d.path() + "/mod.so: undefined symbol: f");
}

TEST(CheckInputTest, SysrootIsSearchedInsteadOfTheHost) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/root/usr/lib/x86_64-linux-gnu");
  ElfBuilder dep;
  dep.soname = "libonly_in_sysroot.so";
  dep.syms = {{"from_sysroot"}};
  d.Write("root/usr/lib/x86_64-linux-gnu/libonly_in_sysroot.so", dep.Build());
  ElfBuilder m;
  m.needed = {"libonly_in_sysroot.so"};
  m.syms = {{"from_sysroot", false}};
  m.relocs = {1};
  const std::string mod = d.Write("mod.so", m.Build());
  CheckOptions o;
  o.sysroot = d.path() + "/root";
  absl::StatusOr<Report> r = Check(mod, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->loads) << RenderText(*r, false);
  ASSERT_EQ(r->libraries.size(), 2u);
  EXPECT_EQ(r->libraries[1].path,
            d.path() + "/root/usr/lib/x86_64-linux-gnu/libonly_in_sysroot.so");
  EXPECT_EQ(r->libraries[1].found_by, FoundBy::kSystem);
  // The same module without the sysroot: the running host has no such library.
  absl::StatusOr<Report> host = Check(mod, CheckOptions{});
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_FALSE(host->loads);
  EXPECT_EQ(host->problems[0].message,
            "libonly_in_sysroot.so: cannot open shared object file: No such file or directory");
}

TEST(CheckInputTest, LibraryPathIsSearchedBeforeTheHost) {
  TempDir d;
  ElfBuilder dep;
  dep.soname = "libc.so.6";  // shadows the host's libc, as LD_LIBRARY_PATH would
  dep.syms = {{"shadowed"}};
  d.Write("libc.so.6", dep.Build());
  ElfBuilder m;
  m.needed = {"libc.so.6"};
  m.syms = {{"shadowed", false}};
  m.relocs = {1};
  CheckOptions o;
  o.library_path = {d.path()};
  absl::StatusOr<Report> r = Check(d.Write("mod.so", m.Build()), o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->loads) << RenderText(*r, false);
  EXPECT_EQ(r->libraries[1].found_by, FoundBy::kLibraryPath);
}

TEST(LdCacheTest, ParsesNewFormat) {
  // Header (48 bytes), two entries (24 bytes each), strings.
  std::vector<uint8_t> b(48 + 2 * 24, 0);
  std::string magic = "glibc-ld.so.cache1.1";
  std::copy(magic.begin(), magic.end(), b.begin());
  auto put32 = [&](size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); };
  put32(20, 2);
  std::string strings = std::string("libz.so.1") + '\0' + "/lib/x86_64-linux-gnu/libz.so.1" + '\0';
  const uint32_t s0 = static_cast<uint32_t>(b.size());
  b.insert(b.end(), strings.begin(), strings.end());
  put32(48, 0x0303);
  put32(52, s0);
  put32(56, s0 + 10);
  put32(72, 0x0003);  // an i386 entry for the same name
  put32(76, s0);
  put32(80, s0 + 10);
  absl::StatusOr<LdCache> c = LdCache::Parse("cache", b);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->Lookup("libz.so.1", 62), "/lib/x86_64-linux-gnu/libz.so.1");
  EXPECT_FALSE(c->Lookup("libz.so.2", 62).has_value());
  put32(20, 1000);
  EXPECT_THAT(LdCache::Parse("cache", b),
              StatusIs(absl::StatusCode::kDataLoss, "cache: 1000 entries run past the end"));
}

TEST(LdCacheTest, HostCacheFindsLibc) {
  if (!std::filesystem::exists("/etc/ld.so.cache")) GTEST_SKIP() << "no /etc/ld.so.cache";
  absl::StatusOr<LdCache> c = LdCache::Read("/etc/ld.so.cache");
  ASSERT_TRUE(c.ok()) << c.status();
  std::optional<std::string> libc = c->Lookup("libc.so.6", 62);
  ASSERT_TRUE(libc.has_value());
  EXPECT_TRUE(std::filesystem::exists(*libc)) << *libc;
}

TEST(DemangleTest, HeadlineSymbol) {
  EXPECT_EQ(Demangle("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"),
            "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)");
  EXPECT_EQ(Demangle("puts"), "puts");
  EXPECT_EQ(Demangle("_Znot valid"), "_Znot valid");
}

// Issue 15: the text is binutils' (`nm -C`, c++filt) where LLVM 14's differs.
TEST(DemangleTest, MatchesBinutils) {
  const std::pair<const char*, const char*> cases[] = {
      {"_ZGTtNKSt9exception4whatEv", "transaction clone for std::exception::what() const"},
      {"_ZStlsIfcSt11char_traitsIcEERSt13basic_ostreamIT0_T1_ES6_RKSt7complexIT_E",
       "std::basic_ostream<char, std::char_traits<char> >& std::operator<< <float, char, "
       "std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, "
       "std::complex<float> const&)"},
      {"_ZltIiEbii", "bool operator< <int>(int, int)"},
      {"_ZNSt8ios_base7failureB5cxx11D1Ev", "std::ios_base::failure[abi:cxx11]::~failure()"},
      {"_ZZN2at12PTThreadPoolC4EiiENKUlvE_clEv",
       "at::PTThreadPool::PTThreadPool(int, int)::{lambda()#1}::operator()() const"},
      {"_ZZN2at12PTThreadPoolC4EiiENKUlvE0_clEv",
       "at::PTThreadPool::PTThreadPool(int, int)::{lambda()#2}::operator()() const"},
      {"_ZN1AUt0_E", "A::{unnamed type#2}"},
      {"_ZNSolsEDn", "std::ostream::operator<<(decltype(nullptr))"},
      {"_ZTHN3c104impl26raw_local_dispatch_key_setE",
       "TLS init function for c10::impl::raw_local_dispatch_key_set"},
      {"_ZZN6fbgemm18cblas_gemm_computeItEEvNS_11matrix_op_tEiPKfRKNS_17PackedGemmMatrixBIT_NS_"
       "13TypeConverterIS5_EEEEfPfiiE10scratchpad",
       "fbgemm::cblas_gemm_compute<unsigned short>(fbgemm::matrix_op_t, int, float const*, "
       "fbgemm::PackedGemmMatrixB<unsigned short, fbgemm::TypeConverter<unsigned short> > "
       "const&, float, float*, int, int)::scratchpad"},
      {"_ZGVZN6fbgemm18cblas_gemm_computeItEEvNS_11matrix_op_tEiPKfRKNS_17PackedGemmMatrixBIT_"
       "NS_13TypeConverterIS5_EEEEfPfiiE10scratchpad",
       "guard variable for fbgemm::cblas_gemm_compute<unsigned short>(fbgemm::matrix_op_t, int, "
       "float const*, fbgemm::PackedGemmMatrixB<unsigned short, fbgemm::TypeConverter<unsigned "
       "short> > const&, float, float*, int, int)::scratchpad"},
      // Left as they were: no return type to drop, an operator that is not a template.
      {"_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib",
       "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)"},
      {"_ZNSolsEi", "std::ostream::operator<<(int)"},
      {"_ZIiEvv", "_ZIiEvv"},
  };
  for (const auto& [mangled, text] : cases) EXPECT_EQ(Demangle(mangled), text) << mangled;
}

TEST(DemangleTest, Rust) { EXPECT_EQ(Demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo"); }

TEST(DemangleTest, SplitAndDescribe) {
  FunctionParts a, b;
  ASSERT_TRUE(SplitFunction("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib", &a));
  ASSERT_TRUE(SplitFunction("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_jb", &b));
  EXPECT_EQ(a.context, "c10::cuda");
  EXPECT_EQ(a.base, "c10_cuda_check_implementation");
  EXPECT_THAT(a.params, ElementsAre("int", "char const*", "char const*", "int", "bool"));
  EXPECT_THAT(DifferenceTexts(DescribeDifferences(a, b)),
              ElementsAre("parameter 4: int → unsigned int"));
  FunctionParts s1, s2;
  ASSERT_TRUE(SplitFunction("_ZN3c104cuda9SetDeviceEi", &s1));
  ASSERT_TRUE(SplitFunction("_ZN3c104cuda9SetDeviceEa", &s2));
  EXPECT_THAT(DifferenceTexts(DescribeDifferences(s1, s2)),
              ElementsAre("parameter 1: int → signed char"));
  FunctionParts t1, t2;
  ASSERT_TRUE(SplitFunction("_ZN5torch7Library4_defEOSt6vectorIN2at3TagESaIS3_EE", &t1));
  EXPECT_THAT(t1.params, ElementsAre("std::vector<at::Tag, std::allocator<at::Tag> >&&"));
  FunctionParts q1, q2;
  ASSERT_TRUE(SplitFunction("_ZNK3foo3barEv", &q1));
  ASSERT_TRUE(SplitFunction("_ZN3foo3barEv", &q2));
  EXPECT_THAT(DifferenceTexts(DescribeDifferences(q1, q2)),
              ElementsAre("qualifiers: const → (none)"));
  // The differences are data: kind, position, from, to.
  const std::vector<Difference> d = DescribeDifferences(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], (Difference{Difference::Kind::kParameter, 4, "int", "unsigned int"}));
  const std::vector<Difference> q = DescribeDifferences(q1, q2);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0], (Difference{Difference::Kind::kQualifiers, 0, "const", ""}));
}

TEST(DifferenceTest, EachKindReadsAsAPersonWouldSayIt) {
  using K = Difference::Kind;
  const std::pair<Difference, const char*> cases[] = {
      {{K::kAbiTag, 0, "", "[abi:cxx11]"},
       "ABI tag: (none) → [abi:cxx11] (it returns the C++11 std::string)"},
      {{K::kAbiTag, 0, "[abi:cxx11]", ""}, "ABI tag: [abi:cxx11] → (none)"},
      {{K::kScope, 0, "c10", "c10::cuda"}, "scope: c10 → c10::cuda"},
      {{K::kParameterCount, 0, "1", "2"}, "1 parameter → 2 parameters"},
      {{K::kParameter, 4, "int", "unsigned int"}, "parameter 4: int → unsigned int"},
      {{K::kQualifiers, 0, "", "const"}, "qualifiers: (none) → const"},
      {{K::kReturnType, 0, "int", "long"}, "return type: int → long"},
      {{K::kVersion, 0, "V2", ""}, "version: V2 → (unversioned)"},
      {{K::kMangledName, 0, "_Z1fIiEvv", "_Z1fIjEvv"}, "mangled name: _Z1fIiEvv → _Z1fIjEvv"},
  };
  for (const auto& [d, text] : cases) EXPECT_EQ(DifferenceText(d), text);
  EXPECT_STREQ(FoundByName(FoundBy::kLdCache), "ld.so.cache");
  EXPECT_STREQ(RelationName(Relation::kNotInScope), "not_in_scope");
  EXPECT_STREQ(StringAbiName(StringAbi::kPreCxx11), "pre-c++11");
  EXPECT_STREQ(WarningKindName(WarningKind::kSecondCopy), "second_copy");
}

}  // namespace
}  // namespace abicheck

namespace abicheck {
namespace {

// Issue 15: a module's versioned torch sonames say which torch it was built for.
TEST(TorchReleaseTest, FromVersionedSonames) {
  EXPECT_EQ(TorchReleaseOfSoname("libc10.so.2.6"), "2.6");
  EXPECT_EQ(TorchReleaseOfSoname("libtorch_cpu.so.2.14.1"), "2.14");
  EXPECT_EQ(TorchReleaseOfSoname("libc10.so.1.13"), "1.13");
  EXPECT_EQ(TorchReleaseOfSoname("libc10.so"), "");
  EXPECT_EQ(TorchReleaseOfSoname("libc10.so.2"), "");
  EXPECT_EQ(TorchReleaseOfSoname("libcudart.so.12.8"), "");
}

// Issue 15: a missing version is explained by where it lies among the library's own versions —
// not always as "built against a newer library".
TEST(VersionHintTest, SaysNewerOlderGapOrUnrelated) {
  const std::vector<VersionDef> defs = {
      {1, 1, elf::VER_FLG_BASE, 0, "libf.so"}, {1, 2, 0, 0, "V2"}, {1, 3, 0, 0, "V4"}};
  EXPECT_EQ(VersionHint(defs, "V5", "libf.so"),
            "needs V5; libf.so provides up to V4: the module was built against a newer libf.so "
            "than this one");
  EXPECT_EQ(VersionHint(defs, "V1", "libf.so"),
            "needs V1; libf.so's versions are newer (V2 to V4): the module was built against an "
            "older libf.so whose version this one no longer defines");
  EXPECT_EQ(VersionHint(defs, "V3", "libf.so"),
            "needs V3; libf.so defines V2 to V4 but not V3: the module was built against a "
            "different build of libf.so");
  EXPECT_EQ(VersionHint(defs, "FOO_1.0", "libf.so"),
            "libf.so defines no FOO_* version (its versions: V2, V4): the module was built "
            "against another library of that name");
  EXPECT_EQ(VersionHint({}, "FOO_1.0", "libf.so"),
            "libf.so defines no FOO_* version (it has no version definitions): the module was "
            "built against another library of that name");
}

}  // namespace
}  // namespace abicheck
