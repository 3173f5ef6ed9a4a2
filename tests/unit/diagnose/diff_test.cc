// DiffBuilds: exports removed, changed and added between two builds, and the loader-level changes.
#include <filesystem>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/elf/elf_constants.h"
#include "lib/report/render.h"
#include "lib/results/results.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_inputs.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace ::abicheck::testing;  // NOLINT: the shared test inputs

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

// Issue 15: a constructor's C1 and C2 symbols demangle alike; the diff tells them apart by
// their mangled names (and only them).
// torch 2.15's c10::getDtypeNames lost its [abi:cxx11] tag, which the partial demangler's base
// name omits: the change is said as the tag, not as two mangled names.
TEST(DiffTest, AnAbiTagChangeIsTheDifference) {
  TempDir d;
  d.Write("old.so", Lib("libc10.so", {"_ZN3c1013getDtypeNamesB5cxx11ENS_10ScalarTypeE"}));
  d.Write("new.so", Lib("libc10.so", {"_ZN3c1013getDtypeNamesENS_10ScalarTypeE"}));
  absl::StatusOr<AbiDiff> diff = DiffBuilds(d.path() + "/old.so", d.path() + "/new.so");
  ASSERT_TRUE(diff.ok()) << diff.status();
  ASSERT_EQ(diff->libraries.size(), 1u);
  ASSERT_EQ(diff->libraries[0].changed.size(), 1u);
  EXPECT_THAT(DifferenceTexts(diff->libraries[0].changed[0].differences),
              ElementsAre("ABI tag: [abi:cxx11] → (none)"));
}

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

// Issue 36: two modules without a soname and of one file name (functorch/_C.so, torch/_C.so)
// pair by their path inside the build: torch/_C.so with torch/_C.so, and functorch/_C.so, gone
// from the new build, with nothing — never one file with two.
TEST(DiffTest, LibrariesPairByTheirPathInsideTheBuildFirst) {
  TempDir d;
  for (const char* dir : {"/a/functorch", "/a/torch", "/b/torch"})
    std::filesystem::create_directories(d.path() + dir);
  d.Write("a/functorch/_C.so", Lib("", {"PyInit__C", "functorch_only"}));
  d.Write("a/torch/_C.so", Lib("", {"PyInit__C", "torch_kept"}));
  d.Write("b/torch/_C.so", Lib("", {"PyInit__C", "torch_kept"}));
  absl::StatusOr<AbiDiff> diff = DiffBuilds(d.path() + "/a", d.path() + "/b");
  ASSERT_TRUE(diff.ok()) << diff.status();
  ASSERT_EQ(diff->libraries.size(), 1u);  // torch/_C.so is unchanged
  EXPECT_EQ(diff->libraries[0].old_library, d.path() + "/a/functorch/_C.so");
  EXPECT_EQ(diff->libraries[0].new_library, "");
  ASSERT_EQ(diff->libraries[0].removed.size(), 2u);
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

// Issue 36 item 1: the instances of standard-library templates a library exports are named by
// their template; nothing else is.
TEST(DiffTest, StdTemplateOfNamesTheTemplate) {
  EXPECT_EQ(StdTemplateOf("std::vector<int, std::allocator<int> >::push_back(int const&)"),
            "std::vector");
  EXPECT_EQ(StdTemplateOf("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int "
                          "const&>(__gnu_cxx::__normal_iterator<int*, std::vector<int, "
                          "std::allocator<int> > >, int const&)"),
            "std::vector");
  EXPECT_EQ(StdTemplateOf("typeinfo for std::_Sp_counted_ptr_inplace<c10::Foo, "
                          "std::allocator<c10::Foo>, (__gnu_cxx::_Lock_policy)2>"),
            "std::_Sp_counted_ptr_inplace");
  EXPECT_EQ(StdTemplateOf("std::__detail::_Map_base<int, std::pair<int const, int> >::at(int)"),
            "std::__detail::_Map_base");
  EXPECT_EQ(StdTemplateOf("__gnu_cxx::__stoa<long, long, char, int>(long (*)(char const*))"),
            "__gnu_cxx::__stoa");
  EXPECT_EQ(StdTemplateOf("std::operator<<(std::basic_ostream<char, std::char_traits<char> >&, "
                          "c10::Device)"),
            "");
  EXPECT_EQ(StdTemplateOf("c10::impl::Foo<std::vector<int> >::bar()"), "");
  EXPECT_EQ(StdTemplateOf("std::terminate()"), "");
  EXPECT_EQ(StdTemplateOf("at::Tensor std::vector_like(int)"), "");
}

// The text: the totals, the table of libraries, the changed signatures; then the details, where
// standard-library template instances fold into one line per library unless `all`; `summary`
// stops before the details.
TEST(DiffTest, TheTextFoldsStandardLibraryInstancesAndSummarizesFirst) {
  TempDir d;
  d.Write("old.so", Lib("libx.so.1", {"_ZNSt6vectorIiSaIiEE9push_backERKi", "_ZTISt6vectorIiSaIiEE",
                                      "_Z3addii", "gone"}));
  d.Write("new.so", Lib("libx.so.1", {"_Z3addij", "fresh"}));
  absl::StatusOr<AbiDiff> diff = DiffBuilds(d.path() + "/old.so", d.path() + "/new.so");
  ASSERT_TRUE(diff.ok()) << diff.status();
  const std::string text = RenderDiffText(*diff, false);
  EXPECT_THAT(text, HasSubstr("  removed  changed    added  library\n"
                              "        3        1        1  "));
  EXPECT_THAT(text, HasSubstr("changed signatures:\n  add(int, int)\n"
                              "      parameter 2: int → unsigned int\n"));
  EXPECT_THAT(text, HasSubstr("  removed: gone\n"));
  EXPECT_THAT(text, HasSubstr("  + standard-library template instances: 2 removed, 0 changed, 0 "
                              "added (std::vector<...>; --all lists them)\n"));
  EXPECT_THAT(text, Not(HasSubstr("push_back")));
  const std::string all = RenderDiffText(*diff, false, /*all=*/true);
  EXPECT_THAT(all, HasSubstr("  removed: std::vector<int, std::allocator<int> >::push_back(int "
                             "const&)\n"));
  EXPECT_THAT(all, HasSubstr("  removed: typeinfo for std::vector<int, std::allocator<int> >\n"));
  EXPECT_THAT(all, Not(HasSubstr("standard-library template instances")));
  const std::string summary = RenderDiffText(*diff, false, false, /*summary=*/true);
  EXPECT_THAT(summary, HasSubstr("changed signatures:"));
  EXPECT_THAT(summary, Not(HasSubstr("removed: gone")));
  EXPECT_TRUE(diff->breaking());
}

}  // namespace
}  // namespace abicheck
