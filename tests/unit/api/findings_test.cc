// lib/api/findings.h: the loader's records become the public types field by field, and the words
// the loader writes for how a library was found are the reports' own.

#include "lib/api/findings.h"

#include <set>
#include <string>

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
