// lib/api/findings.h: the loader's and the diagnosis's records become the public types field by
// field, and the words they write (how a library was found, a difference) are the reports' own.

#include "lib/api/findings.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace abicheck {
namespace {

using ::testing::ElementsAre;

TEST(FindingsTest, HowFoundNamesAreTheReportsWords) {
  std::set<std::string> seen;
  for (int i = 0; i <= static_cast<int>(HowFound::kSystem); ++i) {
    const HowFound how = static_cast<HowFound>(i);
    EXPECT_STREQ(HowFoundName(how), FoundByName(ToFoundBy(how))) << i;
    seen.insert(HowFoundName(how));
  }
  EXPECT_EQ(seen.size(), 10u) << "each value its own word";
  EXPECT_STREQ(HowFoundName(HowFound::kLdCache), "ld.so.cache");
  EXPECT_STREQ(HowFoundName(static_cast<HowFound>(99)), "unknown");
}

TEST(FindingsTest, EveryFailureKindHasItsOwnProblemKind) {
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(FailureKind::kInsufficientDriver); ++i)
    names.insert(ProblemKindName(ToProblemKind(static_cast<FailureKind>(i))));
  EXPECT_EQ(names.size(), 10u);
  EXPECT_STREQ(ProblemKindName(ToProblemKind(FailureKind::kUndefinedSymbol)), "undefined_symbol");
  EXPECT_STREQ(ProblemKindName(ToProblemKind(FailureKind::kNoKernelImage)), "no_kernel_image");
  EXPECT_STREQ(ProblemKindName(ToProblemKind(FailureKind::kLoaderAssertion)), "loader_assertion");
}

TEST(FindingsTest, AReportCarriesEveryFinding) {
  LoadFindings f;
  f.module = "m.so";
  f.loads = true;
  LoadFailure p;
  p.kind = FailureKind::kVersionNotFound;
  p.object = "o";
  p.symbol = "s";
  p.demangled = "d";
  p.version = "V_1";
  p.library = "libx.so";
  p.message = "msg";
  p.first = true;
  p.hint = "h";
  p.stand_in = "si";
  f.problems.push_back(p);
  f.libraries.push_back({"libx.so", "/l/libx.so", HowFound::kRunpath, true});
  f.warnings.push_back({"o", "two copies", NoteKind::kSecondCopy});
  f.warnings.push_back({"o", "a note"});
  f.interpreter_symbols = 1;
  f.weak_unresolved = 2;
  f.unverified_references = 3;
  f.driver_references = 4;
  f.assumed_loaded = {"liba.so"};
  f.unknown_because = {"libb.so"};
  f.providers_missing = {"libc.so"};
  f.references_checked = 5;
  f.torch_abi = TorchUse::kStable;
  f.torch_shim_references = 6;
  f.torch_cxx_references = 7;
  f.torch_cxx_examples = {"at::x()"};
  f.device.checked = true;
  f.device.readable = false;
  f.device.images = {"sm_90"};
  f.device.gpu = "sm_120";
  f.device.usable = {"sm_90"};
  f.device.driver_cuda = "12.8";
  f.device.driver_file = "libcuda.so.570";
  f.device.cuda_runtime = "libcudart.so.13";

  const Report r = ToReport(f);
  EXPECT_EQ(r.module, "m.so");
  EXPECT_TRUE(r.loads);
  ASSERT_EQ(r.problems.size(), 1u);
  const Problem& q = r.problems[0];
  EXPECT_EQ(q.kind, ProblemKind::kVersionNotFound);
  EXPECT_THAT((std::vector<std::string>{q.object, q.symbol, q.demangled, q.version, q.library,
                                        q.message, q.hint, q.stand_in}),
              ElementsAre("o", "s", "d", "V_1", "libx.so", "msg", "h", "si"));
  EXPECT_TRUE(q.first);
  ASSERT_EQ(r.libraries.size(), 1u);
  EXPECT_EQ(r.libraries[0].name, "libx.so");
  EXPECT_EQ(r.libraries[0].path, "/l/libx.so");
  EXPECT_EQ(r.libraries[0].found_by, FoundBy::kRunpath);
  EXPECT_TRUE(r.libraries[0].newly_loaded);
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0].kind, WarningKind::kSecondCopy);
  EXPECT_EQ(r.warnings[0].message, "two copies");
  EXPECT_EQ(r.warnings[1].kind, WarningKind::kNote);
  EXPECT_THAT((std::vector<int>{r.interpreter_symbols, r.weak_unresolved, r.unverified_references,
                                r.driver_references, r.references_checked, r.torch_shim_references,
                                r.torch_cxx_references}),
              ElementsAre(1, 2, 3, 4, 5, 6, 7));
  EXPECT_THAT(r.assumed_loaded, ElementsAre("liba.so"));
  EXPECT_THAT(r.unknown_because, ElementsAre("libb.so"));
  EXPECT_THAT(r.providers_missing, ElementsAre("libc.so"));
  EXPECT_EQ(r.torch_abi, TorchAbi::kStable);
  EXPECT_THAT(r.torch_cxx_examples, ElementsAre("at::x()"));
  EXPECT_TRUE(r.device.checked);
  EXPECT_FALSE(r.device.readable);
  EXPECT_THAT(r.device.images, ElementsAre("sm_90"));
  EXPECT_EQ(r.device.gpu, "sm_120");
  EXPECT_THAT(r.device.usable, ElementsAre("sm_90"));
  EXPECT_EQ(r.device.driver_cuda, "12.8");
  EXPECT_EQ(r.device.driver_file, "libcuda.so.570");
  EXPECT_EQ(r.device.cuda_runtime, "libcudart.so.13");
  // The diagnosis's fields are left as a new report has them.
  EXPECT_TRUE(r.causes.empty());
  EXPECT_EQ(r.module_string_abi, StringAbi::kUnknown);
}

TEST(FindingsTest, DiagnosisGoesBackWithItsFailures) {
  LoadFindings f;
  f.module = "m.so";
  f.references_checked = 9;
  LoadFailure miss;
  miss.symbol = "_Z1fi";
  miss.demangled = "f(int)";
  miss.first = true;
  f.problems = {miss};
  f.warnings.push_back({"m.so", "a note"});
  Diagnosed d = ForDiagnosis(&f);
  EXPECT_TRUE(f.problems.empty());
  EXPECT_TRUE(f.warnings.empty());
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_EQ(d.module, "m.so");
  NearDefinition near;
  near.symbol = "_Z1fj";
  near.demangled = "f(unsigned int)";
  near.library = "/l/libf.so";
  near.version = "V_2";
  near.relation = NearRelation::kVersionDiffers;
  near.differences = {{PartChange::Kind::kParameter, 1, "int", "unsigned int"}};
  d.problems[0].candidates = {near};
  d.problems[0].cause = "c1";
  d.problems[0].hint = "rebuild";
  d.causes.push_back({"c1", "one change", 3});
  d.warnings.push_back({"m.so", "diagnosis stopped"});
  d.module_string_abi = StringAbiKind::kPreCxx11;
  d.providers_string_abi = StringAbiKind::kCxx11;

  const Report r = ToReport(std::move(f), std::move(d));
  EXPECT_EQ(r.references_checked, 9);
  ASSERT_EQ(r.problems.size(), 1u);
  const Problem& p = r.problems[0];
  EXPECT_EQ(p.symbol, "_Z1fi");
  EXPECT_TRUE(p.first);
  EXPECT_EQ(p.hint, "rebuild");
  EXPECT_EQ(p.cause, "c1");
  ASSERT_EQ(p.candidates.size(), 1u);
  const Candidate& c = p.candidates[0];
  EXPECT_THAT((std::vector<std::string>{c.symbol, c.demangled, c.library, c.version}),
              ElementsAre("_Z1fj", "f(unsigned int)", "/l/libf.so", "V_2"));
  EXPECT_EQ(c.relation, Relation::kVersionDiffers);
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(DifferenceText(c.differences[0]), "parameter 1: int → unsigned int");
  ASSERT_EQ(r.causes.size(), 1u);
  EXPECT_EQ(r.causes[0].id, "c1");
  EXPECT_EQ(r.causes[0].problems, 3);
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0].message, "a note");
  EXPECT_EQ(r.warnings[1].message, "diagnosis stopped");
  EXPECT_EQ(r.module_string_abi, StringAbi::kPreCxx11);
  EXPECT_EQ(r.providers_string_abi, StringAbi::kCxx11);
}

TEST(FindingsTest, EveryPartChangeIsTheDifferenceOfTheSameWords) {
  for (int i = 0; i <= static_cast<int>(PartChange::Kind::kTemplateArguments); ++i) {
    const PartChange c{static_cast<PartChange::Kind>(i), 2, "a", "[abi:cxx11]"};
    const Difference d = ToDifference(c);
    EXPECT_EQ(static_cast<int>(d.kind), i);
    EXPECT_EQ(DifferenceText(d), PartChangeText(c)) << i;
  }
  EXPECT_EQ(PartChangeText({PartChange::Kind::kVersion, 0, "", "V_1"}),
            "version: (unversioned) → V_1");
}

TEST(FindingsTest, ABuildDeltaIsTheAbiDiff) {
  BuildDelta b;
  b.old_build = "old";
  b.new_build = "new";
  LibraryDelta l;
  l.old_library = "a/libx.so";
  l.new_library = "b/libx.so";
  l.removed = {{"_Z1gv", "g()", "", "", {}}};
  l.added = {{"_Z1hv", "h()", "", "", {}}};
  l.changed = {
      {"_Z1fi", "f(int)", "_Z1fl", "f(long)", {{PartChange::Kind::kParameter, 1, "int", "long"}}}};
  l.old_soname = "libx.so.1";
  l.new_soname = "libx.so.2";
  l.versions_removed = {"X_1"};
  l.versions_added = {"X_2"};
  l.needed_removed = {"liba.so"};
  l.needed_added = {"libb.so"};
  b.libraries = {l};
  const AbiDiff d = ToAbiDiff(b);
  EXPECT_EQ(d.old_build, "old");
  EXPECT_EQ(d.new_build, "new");
  ASSERT_EQ(d.libraries.size(), 1u);
  const LibraryDiff& o = d.libraries[0];
  EXPECT_EQ(o.old_library, "a/libx.so");
  EXPECT_EQ(o.new_library, "b/libx.so");
  ASSERT_EQ(o.removed.size(), 1u);
  EXPECT_EQ(o.removed[0].demangled, "g()");
  ASSERT_EQ(o.added.size(), 1u);
  EXPECT_EQ(o.added[0].symbol, "_Z1hv");
  ASSERT_EQ(o.changed.size(), 1u);
  EXPECT_EQ(o.changed[0].new_symbol, "_Z1fl");
  EXPECT_EQ(o.changed[0].new_demangled, "f(long)");
  ASSERT_EQ(o.changed[0].differences.size(), 1u);
  EXPECT_EQ(o.changed[0].differences[0].to, "long");
  EXPECT_EQ(o.old_soname, "libx.so.1");
  EXPECT_EQ(o.new_soname, "libx.so.2");
  EXPECT_THAT(o.versions_removed, ElementsAre("X_1"));
  EXPECT_THAT(o.versions_added, ElementsAre("X_2"));
  EXPECT_THAT(o.needed_removed, ElementsAre("liba.so"));
  EXPECT_THAT(o.needed_added, ElementsAre("libb.so"));
  EXPECT_TRUE(d.breaking());
}

TEST(FindingsTest, LoadOptionsAreTheLoadersPartOfCheckOptions) {
  CheckOptions c;
  c.python = "/usr/bin/python3";
  c.library_path = {"/a"};
  c.notes = {"n"};
  c.use_host = false;
  c.sysroot = "/root";
  c.same_stem_stand_ins = false;
  c.gpu = "sm_90";
  c.cuda_driver = "12.8";
  c.glibc = "2.41";
  const LoadOptions o = ToLoadOptions(c);
  EXPECT_EQ(o.python, "/usr/bin/python3");
  EXPECT_THAT(o.library_path, ElementsAre("/a"));
  EXPECT_THAT(o.notes, ElementsAre("n"));
  EXPECT_FALSE(o.use_host);
  EXPECT_EQ(o.sysroot, "/root");
  EXPECT_FALSE(o.same_stem_stand_ins);
  EXPECT_EQ(o.gpu, "sm_90");
  EXPECT_EQ(o.cuda_driver, "12.8");
  EXPECT_EQ(o.glibc, "2.41");
}

}  // namespace
}  // namespace abicheck
