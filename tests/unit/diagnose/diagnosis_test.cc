// The diagnosis on checks: candidates ranked, causes shared, the list capped.

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/render.h"
#include "tests/unit/test_inputs.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::TempDir;
using ::testing::HasSubstr;
using namespace ::abicheck::testing;  // NOLINT: the shared test inputs

// A module needing `soname` for `refs`, checked against that one library defining `defs`.
absl::StatusOr<Report> CheckAgainstOne(TempDir& d, const std::string& soname,
                                       const std::vector<std::string>& defs,
                                       const std::vector<std::string>& refs) {
  CheckOptions o = NoHostOptions();
  o.providers = {d.Write(soname, Lib(soname, defs))};
  return Check(d.Write("mod.so", Mod({soname}, refs)), o);
}

// Issue 15, on real torch symbols: int64_t -> c10::SymInt in at::_ops::narrow::call. The same
// qualified name wins over another op with the module's exact parameter list.
TEST(DiagnosisRankingTest, SameQualifiedNameWins) {
  TempDir d;
  absl::StatusOr<Report> r =
      CheckAgainstOne(d, "libtorch_cpu.so",
                      {"_ZN2at4_ops13diagonal_copy4callERKNS_6TensorElll",
                       "_ZN2at4_ops6narrow4callERKNS_6TensorElN3c106SymIntES6_"},
                      {"_ZN2at4_ops6narrow4callERKNS_6TensorElll"});
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

// Issue 15: the text shows three problems of a cause and how many more; `all` lists every one.
// sgl-kernel against torch 2.10: c10::MessageLogger's constructor gained a bool. Its complete-
// and base-object variants (C1, C2) read the same: one candidate, the variant the module
// references (a C1 reference binds to a C1 definition), not two identical lines.
TEST(DiagnosisRankingTest, ConstructorVariantsAreOneCandidate) {
  TempDir d;
  for (const bool c2_first : {true, false}) {
    std::vector<std::string> defs = {"_ZN3c1013MessageLoggerC1EPKciib",
                                     "_ZN3c1013MessageLoggerC2EPKciib"};
    if (c2_first) std::swap(defs[0], defs[1]);
    absl::StatusOr<Report> r =
        CheckAgainstOne(d, "libc10.so", defs, {"_ZN3c1013MessageLoggerC1EPKcii"});
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->problems.size(), 1u);
    ASSERT_EQ(r->problems[0].candidates.size(), 1u) << RenderText(*r, false);
    EXPECT_EQ(r->problems[0].candidates[0].symbol, "_ZN3c1013MessageLoggerC1EPKciib") << c2_first;
    EXPECT_EQ(r->problems[0].candidates[0].demangled,
              "c10::MessageLogger::MessageLogger(char const*, int, int, bool)");
  }
}

// sgl-kernel against torch 2.15: const_data_ptr<int, 0>() is gone, const_data_ptr<int>() is
// there (the enable_if parameter left the template). Its parts other than the template arguments
// are the same, so it was dropped as "no difference", and instantiations for other types were
// shown as return-type changes; and the first sixteen equally near ended the search. It is the
// one nearest candidate, by its template arguments.
TEST(DiagnosisRankingTest, AnotherTemplateArgumentListIsTheDifference) {
  TempDir d;
  // Twenty instances for other types come first in the table (torch 2.15 has 41), then <int>.
  std::vector<std::string> defs;
  for (const char* type : {"a", "b", "c", "d", "e", "f", "g", "h",  "j",  "l", "m",
                           "n", "o", "s", "t", "w", "x", "y", "Ds", "Di", "i"})
    defs.push_back(absl::StrCat("_ZNK2at10TensorBase14const_data_ptrI", type, "EEPKT_v"));
  absl::StatusOr<Report> r = CheckAgainstOne(d, "libtorch_cpu.so", defs,
                                             {"_ZNK2at10TensorBase14const_data_ptrIiLi0EEEPKT_v"});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->problems.size(), 1u);
  ASSERT_EQ(r->problems[0].candidates.size(), 1u) << RenderText(*r, false);
  const Candidate& c = r->problems[0].candidates[0];
  EXPECT_EQ(c.demangled, "int const* at::TensorBase::const_data_ptr<int>() const");
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(DifferenceText(c.differences[0]), "template arguments: <int, 0> → <int>");
}

// torchvision 0.14 against torch 2.6: c10::detail::maybe_wrap_dim_slow became a function
// template. Only an instance mangles its return type: the difference is the template arguments,
// not also "return type:  → long".
TEST(DiagnosisRankingTest, AFunctionThatBecameATemplateHasNoReturnTypeChange) {
  TempDir d;
  absl::StatusOr<Report> r =
      CheckAgainstOne(d, "libc10.so", {"_ZN3c106detail19maybe_wrap_dim_slowIlEET_S2_S2_b"},
                      {"_ZN3c106detail19maybe_wrap_dim_slowEllb"});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->problems.size(), 1u);
  ASSERT_EQ(r->problems[0].candidates.size(), 1u) << RenderText(*r, false);
  std::vector<std::string> texts;
  for (const Difference& x : r->problems[0].candidates[0].differences)
    texts.push_back(DifferenceText(x));
  EXPECT_THAT(texts, ::testing::ElementsAre("template arguments: (none) → <long>"));
}

// torchao built against a newer torch: a function of the stable C shim that this torch lacks is
// said to be one (the shim gains functions release by release), not "no library exports it".
TEST(DiagnosisHintTest, AMissingShimFunctionMeansANewerTorch) {
  TempDir d;
  absl::StatusOr<Report> r =
      CheckAgainstOne(d, "libtorch.so", {"aoti_torch_old_fn"},
                      {"aoti_torch_old_fn", "torch_dtype_float8_e8m0fnu", "gone"});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->problems.size(), 2u) << RenderText(*r, false);
  EXPECT_EQ(r->problems[0].symbol, "torch_dtype_float8_e8m0fnu");
  EXPECT_EQ(r->problems[0].hint,
            "a function of torch's stable C shim that this torch does not have: the module was "
            "built against a newer torch; use that torch or a newer one");
  EXPECT_EQ(r->problems[1].hint, "no library in the load exports this name, under any version");
}

// sgl-kernel against a CUDA 13 torch: libnvrtc.so.12 is missing and torch loads libnvrtc.so.13.
// The hint names the CUDA majors for a library whose soname major is CUDA's, and does not for one
// with a major of its own (CUDA 12 ships libcufft.so.11, CUDA 13 libcufft.so.12).
TEST(DiagnosisHintTest, AnotherMajorOfAnNvidiaLibrarySaysWhichCuda) {
  TempDir d;
  const std::string nvrtc = d.Write("libnvrtc.so.13", Lib("libnvrtc.so.13", {"nvrtcVersion"}));
  const std::string cufft = d.Write("libcufft.so.12", Lib("libcufft.so.12", {"cufftPlan1d"}));
  const std::string mod = d.Write("mod.so", Mod({"libnvrtc.so.12", "libcufft.so.11"}, {}));
  CheckOptions o = NoHostOptions();
  o.providers = {nvrtc, cufft};
  absl::StatusOr<Report> r = Check(mod, o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->problems.size(), 2u) << RenderText(*r, false);
  EXPECT_EQ(r->problems[0].library, "libnvrtc.so.12");
  EXPECT_EQ(r->problems[0].hint,
            "needs libnvrtc.so.12; libnvrtc.so.13 is what is here: the module was built for CUDA "
            "12, this environment has CUDA 13. Use a build of the module for this CUDA, or install "
            "the CUDA 12 runtime beside it");
  EXPECT_EQ(r->problems[1].library, "libcufft.so.11");
  EXPECT_EQ(r->problems[1].hint,
            "needs libcufft.so.11; libcufft.so.12 is what is here: another major release of that "
            "library, from another CUDA than the module was built for. Use a build of the module "
            "for this CUDA, or install libcufft.so.11 beside it");
}

// torchcodec without FFmpeg: 129 av_* symbols, each versioned by a library that is missing.
// Each says which library it comes with, and together they are one cause, not 129 lines of
// "no library in the load exports this name".
TEST(DiagnosisCausesTest, SymbolsOfAMissingLibraryAreOneCause) {
  TempDir d;
  ElfBuilder m;
  m.needed = {"libav.so.60"};
  m.verneeds = {{"libav.so.60", {{"LIBAV_60", 2}}}};
  m.with_versym = true;
  for (const char* n : {"av_a", "av_b", "av_c", "av_d"}) m.syms.push_back({n, false, 1, 2, 0, 2});
  m.syms.push_back({"unversioned_gone", false});
  m.relocs = {1, 2, 3, 4, 5};
  const std::string mod = d.Write("mod.so", m.Build());
  absl::StatusOr<Report> r = Check(mod, NoHostOptions());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->causes.size(), 1u) << RenderText(*r, false);
  EXPECT_EQ(r->causes[0].id, "symbols_of_missing_libraries");
  EXPECT_EQ(r->causes[0].problems, 4);
  EXPECT_EQ(r->causes[0].summary,
            "symbols versioned by libav.so.60, which is not here (above), e.g. av_a, av_b, av_c, "
            "...: they fail because it is missing");
  int of_cause = 0;
  for (const Problem& p : r->problems) {
    if (p.kind != ProblemKind::kUndefinedSymbol) continue;
    if (p.symbol == "unversioned_gone") {
      EXPECT_TRUE(p.cause.empty());
      continue;
    }
    ++of_cause;
    EXPECT_EQ(p.cause, "symbols_of_missing_libraries");
    EXPECT_EQ(p.hint, "it comes with libav.so.60 (version LIBAV_60), which is not here (above)");
  }
  EXPECT_EQ(of_cause, 4);
}

TEST(DiagnosisCausesTest, ManyProblemsOfOneCauseAreShownAsAFew) {
  TempDir d;
  std::vector<std::string> defs, refs;
  for (int i = 0; i < 8; ++i) {
    const std::string n = "f" + std::to_string(i);
    defs.push_back("_ZN2ns" + std::to_string(n.size()) + n + "El");
    refs.push_back("_ZN2ns" + std::to_string(n.size()) + n + "Ei");
  }
  absl::StatusOr<Report> r = CheckAgainstOne(d, "libt.so", defs, refs);
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
  absl::StatusOr<Report> r = CheckAgainstOne(
      d, "libt.so", {"_ZN2ns2f1El", "_ZN2ns2f2El", "_ZN2ns2f3El", "_ZN2ns2f4El", "_ZN2ns1gEj"},
      {"_ZN2ns2f1Ei", "_ZN2ns2f2Ei", "_ZN2ns2f3Ei", "_ZN2ns2f4Ei", "_ZN2ns1gEi"});
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

// Issue 15: diagnosis stops after 256 undefined symbols, and the report says so.
TEST(DiagnosisCapTest, SaysThatItCutTheList) {
  TempDir d;
  std::vector<std::string> refs;
  for (int i = 0; i < 300; ++i) refs.push_back(absl::StrCat("gone_", i));
  absl::StatusOr<Report> r = CheckAgainstOne(d, "libt.so", {"kept"}, refs);
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

}  // namespace
}  // namespace abicheck
