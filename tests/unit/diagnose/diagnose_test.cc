// The diagnosis's own functions: split signatures and their differences as data and as words,
// versions and torch releases read from names, what a missing version means.
#include "lib/diagnose/diagnose.h"

#include <filesystem>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/demangle/demangle.h"
#include "lib/elf/elf_constants.h"
#include "lib/results/results.h"
#include "lib/symbols/source_names.h"
#include "tests/support/base_names.h"

namespace abicheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The diagnosis's differences in the words every format uses.
std::vector<std::string> Texts(const std::vector<PartChange>& changes) {
  std::vector<std::string> out;
  for (const PartChange& c : changes) out.push_back(PartChangeText(c));
  return out;
}

TEST(DemangleTest, SplitAndDescribe) {
  FunctionParts a, b;
  ASSERT_TRUE(SplitFunction("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib", &a));
  ASSERT_TRUE(SplitFunction("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_jb", &b));
  EXPECT_EQ(a.context, "c10::cuda");
  EXPECT_EQ(a.base, "c10_cuda_check_implementation");
  EXPECT_THAT(a.params, ElementsAre("int", "char const*", "char const*", "int", "bool"));
  EXPECT_THAT(Texts(DescribeDifferences(a, b)), ElementsAre("parameter 4: int → unsigned int"));
  FunctionParts s1, s2;
  ASSERT_TRUE(SplitFunction("_ZN3c104cuda9SetDeviceEi", &s1));
  ASSERT_TRUE(SplitFunction("_ZN3c104cuda9SetDeviceEa", &s2));
  EXPECT_THAT(Texts(DescribeDifferences(s1, s2)), ElementsAre("parameter 1: int → signed char"));
  FunctionParts t1, t2;
  ASSERT_TRUE(SplitFunction("_ZN5torch7Library4_defEOSt6vectorIN2at3TagESaIS3_EE", &t1));
  EXPECT_THAT(t1.params, ElementsAre("std::vector<at::Tag, std::allocator<at::Tag> >&&"));
  FunctionParts q1, q2;
  ASSERT_TRUE(SplitFunction("_ZNK3foo3barEv", &q1));
  ASSERT_TRUE(SplitFunction("_ZN3foo3barEv", &q2));
  EXPECT_THAT(Texts(DescribeDifferences(q1, q2)), ElementsAre("qualifiers: const → (none)"));
  // The differences are data: kind, position, from, to.
  const std::vector<PartChange> d = DescribeDifferences(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], (PartChange{PartChange::Kind::kParameter, 4, "int", "unsigned int"}));
  const std::vector<PartChange> q = DescribeDifferences(q1, q2);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0], (PartChange{PartChange::Kind::kQualifiers, 0, "const", ""}));
}

TEST(DifferenceTest, EachKindReadsAsAPersonWouldSayIt) {
  using K = Difference::Kind;
  const std::pair<Difference, const char*> cases[] = {
      {{K::kAbiTag, 0, "", "[abi:cxx11]"},
       "ABI tag: (none) → [abi:cxx11] (its return type is or holds the C++11 std::string)"},
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

// Version names compare as the loader's users read them: numeric fields as numbers, within a
// family (the prefix before the first digit).
TEST(VersionNamesTest, FamiliesAndOrder) {
  EXPECT_EQ(VersionFamily("GLIBCXX_3.4.32"), "GLIBCXX_");
  EXPECT_EQ(VersionFamily("GLIBC_2.34"), "GLIBC_");
  EXPECT_EQ(VersionFamily("V1"), "V");
  EXPECT_EQ(VersionFamily("libtorch"), "libtorch");
  EXPECT_LT(CompareVersionNames("GLIBCXX_3.4.9", "GLIBCXX_3.4.30"), 0);
  EXPECT_GT(CompareVersionNames("GLIBCXX_3.4.30", "GLIBCXX_3.4.9"), 0);
  EXPECT_EQ(CompareVersionNames("GLIBC_2.34", "GLIBC_2.34"), 0);
  EXPECT_LT(CompareVersionNames("GLIBC_2.3", "GLIBC_2.3.4"), 0);  // a prefix sorts first
  const std::vector<VersionDef> defs = {{1, 1, elf::VER_FLG_BASE, 0, "libstdc++.so.6"},
                                        {1, 2, 0, 0, "GLIBCXX_3.4"},
                                        {1, 3, 0, 0, "GLIBCXX_3.4.30"},
                                        {1, 4, 0, 0, "GLIBCXX_3.4.9"},
                                        {1, 5, 0, 0, "CXXABI_1.3.13"}};
  EXPECT_EQ(NewestInFamily(defs, "GLIBCXX_3.4.32"), "GLIBCXX_3.4.30");
  EXPECT_EQ(NewestInFamily(defs, "CXXABI_1.3.15"), "CXXABI_1.3.13");
  EXPECT_EQ(NewestInFamily(defs, "GLIBC_2.38"), "");  // no such family here
}

// What a too-new version means depends on whose it is: the toolchain's, glibc's, or the library's.
TEST(VersionNamesTest, MeaningNamesTheToolchainGlibcOrTheLibrary) {
  EXPECT_THAT(VersionMeaning("GLIBCXX_3.4.32", "libstdc++.so.6"),
              HasSubstr("built with a newer GCC (libstdc++)"));
  EXPECT_THAT(VersionMeaning("CXXABI_1.3.15", "libstdc++.so.6"), HasSubstr("newer GCC"));
  EXPECT_THAT(VersionMeaning("GLIBC_2.38", "libc.so.6"), HasSubstr("newer glibc"));
  EXPECT_EQ(VersionMeaning("CUDA_13.0", "libcudart.so.13"),
            "the module was built against a newer libcudart.so.13 than this one");
}

// Where a base name sits in a mangled name (MayBeBaseName), and where it does not.
TEST(SourceNamesTest, BaseNamePositions) {
  auto kept = [](absl::string_view m) {
    std::vector<std::string> out;
    ForEachSourceName(m, [&](absl::string_view t) {
      if (MayBeBaseName(m, t)) out.emplace_back(t);
    });
    return out;
  };
  using ::testing::ElementsAre;
  // c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)
  EXPECT_THAT(kept("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"),
              ElementsAre("29c10_cuda_check_implementation"));
  EXPECT_THAT(kept("_Z3fooi"), ElementsAre("3foo"));                   // unscoped
  EXPECT_THAT(kept("_ZL6helperv"), ElementsAre("6helper"));            // internal linkage
  EXPECT_THAT(kept("_ZSt9terminatev"), ElementsAre("9terminate"));     // std::
  EXPECT_THAT(kept("_ZN2at6TensorC2ERKS0_"), ElementsAre("6Tensor"));  // a constructor
  EXPECT_THAT(kept("_ZN3c105ErrorD1Ev"), ElementsAre("5Error"));       // a destructor
  EXPECT_THAT(kept("_ZN5torch3jit4nameB5cxx11Ev"), ElementsAre("4name", "5cxx11"));  // an ABI tag
  EXPECT_THAT(kept("_ZN2at4sizeIlEEvv"), ElementsAre("4size"));  // template arguments
  // A type nested in a parameter ends its own nested name: kept too, found and then rejected by
  // the candidate's base name.
  EXPECT_THAT(kept("_ZN2at3addERKNS_6TensorE"), ElementsAre("3add", "6Tensor"));
  // Namespaces and plain parameter types are never a base name.
  EXPECT_THAT(kept("_ZN3c104cuda9SetDeviceEa"), ElementsAre("9SetDevice"));
}

// On a real library: every defined function whose base name a scan of every source name finds,
// MayBeBaseName keeps (the same property tests/pypi checks on torch's libraries).
TEST(SourceNamesTest, HostLibstdcxxBaseNamesAreIndexed) {
  const std::string lib = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
  if (!std::filesystem::exists(lib)) GTEST_SKIP() << lib << " is not on this machine";
  const BaseNameCheck c = CheckBaseNamesIndexed(lib);
  EXPECT_THAT(c.missed, ::testing::IsEmpty());
  EXPECT_GT(c.functions, 3000u);
}

TEST(StripAbiTagsTest, RemovesEveryTag) {
  EXPECT_EQ(StripAbiTags("name[abi:cxx11]"), "name");
  EXPECT_EQ(StripAbiTags("f[abi:cxx11][abi:v2]"), "f");
  EXPECT_EQ(StripAbiTags("plain"), "plain");
  EXPECT_EQ(StripAbiTags("broken[abi:"), "broken");  // an unterminated tag ends the name
}

// Each kind of difference DescribeDifferences finds, as data.
TEST(DescribeDifferencesTest, EveryKindAsData) {
  using K = PartChange::Kind;
  FunctionParts a, b;
  a.context = "c10";
  a.base = "f";
  a.params = {"int", "bool"};
  a.return_type = "int";
  b = a;
  b.context = "c10::cuda";
  b.base = "f[abi:cxx11]";
  b.params = {"long"};
  b.qualifiers = " const";
  b.return_type = "long";
  EXPECT_THAT(DescribeDifferences(a, b), ElementsAre(PartChange{K::kAbiTag, 0, "", "[abi:cxx11]"},
                                                     PartChange{K::kScope, 0, "c10", "c10::cuda"},
                                                     PartChange{K::kParameterCount, 0, "2", "1"},
                                                     PartChange{K::kParameter, 1, "int", "long"},
                                                     PartChange{K::kQualifiers, 0, "", "const"},
                                                     PartChange{K::kReturnType, 0, "int", "long"}));
  EXPECT_TRUE(DescribeDifferences(a, a).empty());
}

}  // namespace
}  // namespace abicheck
