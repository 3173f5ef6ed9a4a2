// The text report's sentences, read as a person reads them: one library or several, one
// reference or several.
#include <string>

#include "abicheck/abicheck.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/render.h"
#include "lib/report/text_util.h"

namespace abicheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Report AssumedLoaded(std::vector<std::string> names, int references) {
  Report r;
  r.module = "mod.so";
  r.loads = references == 0;  // as JudgeModule decides it (C2c)
  r.assumed_loaded = std::move(names);
  r.unverified_references = references;
  if (references > 0) r.unknown_because = r.assumed_loaded;
  return r;
}

TEST(TextReportTest, OneLibraryTheGivenLibrariesLoadIsIt) {
  const Report r = AssumedLoaded({"libcudart.so.12"}, 1);
  EXPECT_EQ(r.verdict(), Verdict::kUnknown);
  const std::string text = RenderText(r, false);
  EXPECT_THAT(text, HasSubstr("CANNOT TELL: mod.so (libcudart.so.12 not given)\n"));
  EXPECT_THAT(text, HasSubstr("1 reference no file given defines; it may be defined in "
                              "libcudart.so.12, which the given libraries load but which is not "
                              "among the files (install or give nvidia-cuda-runtime-cu12, or its "
                              "directory with -L)"));
  EXPECT_THAT(text, Not(HasSubstr("loads")));
}

TEST(TextReportTest, SeveralLibrariesTheGivenLibrariesLoadAreThem) {
  const std::string text = RenderText(AssumedLoaded({"libdl.so.2", "librt.so.1"}, 3), false);
  EXPECT_THAT(text, HasSubstr("CANNOT TELL: mod.so (libdl.so.2, librt.so.1 not given)\n"));
  EXPECT_THAT(text, HasSubstr("3 references no file given defines; they may be defined in "
                              "libdl.so.2, librt.so.1, which the given libraries load but which "
                              "are not among the files (give their directories with -L, or the "
                              "libraries themselves)"));
  EXPECT_THAT(text, Not(HasSubstr(" it ")));
}

// C2b: C references left to the GPU driver on a machine without one do not make the verdict
// unknown, and the report says how many were left to it.
TEST(TextReportTest, ReferencesLeftToTheDriverAreSaid) {
  Report r = AssumedLoaded({"libcuda.so.1"}, 0);
  r.driver_libraries = {"libcuda.so.1"};
  r.driver_references = 2;
  EXPECT_EQ(r.verdict(), Verdict::kLoads);
  const std::string text = RenderText(r, false);
  EXPECT_THAT(text, HasSubstr("loads: mod.so\n"));
  EXPECT_THAT(text, HasSubstr("depends on libcuda.so.1: the GPU driver's, assumed present "
                              "(docs/loader-model.md C2b); 2 C references are left to it\n"));
}

// sgl-kernel's flash_ops against torch 2.10 without a driver: its one miss is a C++ name, which
// libcuda.so.1 does not define (C2b), so nothing is left unverified: not "0 unresolved references
// may be defined there".
TEST(TextReportTest, NothingLeftForTheAssumedLibraryIsSaidSo) {
  Report r = AssumedLoaded({"libcuda.so.1"}, 0);
  r.driver_libraries = {"libcuda.so.1"};
  std::string text = RenderText(r, false);
  EXPECT_THAT(text, HasSubstr("(docs/loader-model.md C2b); nothing left to it\n"));
  EXPECT_THAT(text, Not(HasSubstr("0 unresolved")));
  text = RenderText(AssumedLoaded({"libfoo.so.1"}, 0), false);
  EXPECT_THAT(text, HasSubstr("depends on libfoo.so.1: the given libraries load it, but it is not "
                              "among the files; no unresolved reference was left for it to "
                              "define\n"));
  EXPECT_THAT(text, Not(HasSubstr("0 unresolved")));
}

// A matrix of `modules` against one build: each fails, each with the notes `warnings`.
Matrix FailingAgainstOne(const std::vector<std::string>& modules,
                         const std::vector<std::string>& warnings) {
  Matrix m;
  m.builds = {"/b/torch"};
  for (const std::string& mod : modules) {
    m.modules.push_back(mod);
    ModuleInfo info;
    info.label = mod;
    info.package = "pkg";
    info.torch_abi = TorchAbi::kStable;
    m.module_info.push_back(info);
    MatrixCell c;
    c.module = mod;
    c.build = m.builds[0];
    c.report.module = mod;
    c.report.loads = false;
    Problem p;
    p.kind = ProblemKind::kMissingLibrary;
    p.object = mod;
    p.library = "libgone.so";
    p.message = "libgone.so: cannot open shared object file: No such file or directory";
    p.first = true;
    c.report.problems.push_back(p);
    for (const std::string& w : warnings) c.report.warnings.push_back({mod, w});
    m.cells.push_back(c);
  }
  return m;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// sgl-kernel against a venv: what torch's own libraries miss was repeated in all thirteen
// failing modules' reports. It is said once; a warning of one module alone stays in its report.
TEST(MatrixTextTest, AWarningOfEveryFailingModuleIsSaidOnce) {
  Matrix m = FailingAgainstOne({"a.so", "b.so", "c.so"}, {"torch misses libcuda.so.1"});
  m.cells[1].report.warnings.push_back({"b.so", "b alone"});
  const std::string text = RenderMatrixText(m, false);
  EXPECT_EQ(Count(text, "torch misses libcuda.so.1"), 1u) << text;
  EXPECT_THAT(text, HasSubstr("warning, for every failing module against /b/torch: torch misses "
                              "libcuda.so.1\n"));
  EXPECT_EQ(Count(text, "b alone"), 1u);
  EXPECT_EQ(Count(text, "warnings (the load does not fail on these)"), 1u) << "b.so's alone";
}

// The releases of a pip: module (`check 'pip:sgl-kernel>=0.3' --against VENV`): rows of the same
// member are told apart by their wheel's file name, not by URLs of 200 characters; two wheels of
// one file name (mirrors) keep their URLs.
TEST(MatrixTextTest, RowsOfTheSameMemberAreNamedByTheirWheelsFileName) {
  const std::vector<std::string> names = {"https://h/p/36/9f/pkg-0.2-py3-none-any.whl!pkg/_C.so",
                                          "https://h/p/8c/ed/pkg-0.1-py3-none-any.whl!pkg/_C.so",
                                          "https://h/p/8c/ed/pkg-0.1-py3-none-any.whl!pkg/other.so",
                                          "https://one/pkg-0.3-py3-none-any.whl!pkg/m.so",
                                          "https://two/pkg-0.3-py3-none-any.whl!pkg/m.so",
                                          "dir/pkg-0.2.whl!pkg/n.so",
                                          "dir2/pkg-0.2.whl!pkg/n.so"};
  Matrix m = FailingAgainstOne(names, {});
  for (size_t k = 0; k < names.size(); ++k)
    m.module_info[k].label = names[k].substr(names[k].find('!') + 1);
  const std::string text = RenderMatrixText(m, false);
  EXPECT_THAT(text, HasSubstr("\npkg-0.2-py3-none-any.whl!pkg/_C.so "));
  EXPECT_THAT(text, HasSubstr("\npkg-0.1-py3-none-any.whl!pkg/_C.so "));
  EXPECT_THAT(text, HasSubstr("\npkg/other.so "));
  EXPECT_THAT(text, HasSubstr("\nhttps://one/pkg-0.3-py3-none-any.whl!pkg/m.so "));
  EXPECT_THAT(text, HasSubstr("\nhttps://two/pkg-0.3-py3-none-any.whl!pkg/m.so "));
  EXPECT_THAT(text, HasSubstr("\ndir/pkg-0.2.whl!pkg/n.so "));
  EXPECT_THAT(text, HasSubstr("\ndir2/pkg-0.2.whl!pkg/n.so "));
  // Each report is headed as the table names its row and column.
  EXPECT_THAT(text, HasSubstr("\n== pkg-0.1-py3-none-any.whl!pkg/_C.so against /b/torch\n"));
  EXPECT_THAT(text, HasSubstr("\n== pkg/other.so against /b/torch\n"));
  // (The reports below the table name each object by where it is: its URL.)
  EXPECT_THAT(text.substr(0, text.find("\n\n")), Not(HasSubstr("https://h/")));
}

// A Matrix made by a caller of the library, with cells and no builds, is rendered, not a division
// by zero.
TEST(MatrixTextTest, CellsWithoutBuildsAreRendered) {
  Matrix m = FailingAgainstOne({"a.so", "b.so"}, {"w"});
  m.builds.clear();
  const std::string text = RenderMatrixText(m, false);
  EXPECT_EQ(Count(text, "\n== "), 2u) << text;
}

// torchcodec's fourteen stable-ABI objects were fourteen lines; three or more of a package are one.
TEST(MatrixTextTest, AStablePackagesModulesAreOneLine) {
  const std::string text = RenderMatrixText(
      FailingAgainstOne({"p/one.so", "p/two.so", "p/three.so", "p/four.so"}, {}), false);
  EXPECT_THAT(text, HasSubstr("stable ABI: 4 modules of pkg (one.so, two.so, three.so, ...) use "
                              "torch only through its stable C shim\n"));
  const std::string two = RenderMatrixText(FailingAgainstOne({"p/one.so", "p/two.so"}, {}), false);
  EXPECT_THAT(two, HasSubstr("stable ABI: p/one.so uses torch only through its stable C shim\n"));
  EXPECT_THAT(two, HasSubstr("stable ABI: p/two.so uses torch only through its stable C shim\n"));
}

// In an environment's report, what import torch warned of (torch's own libraries' misses) is said
// under it, not again in every failing module's section.
TEST(EnvironmentTextTest, WhatImportTorchWarnedOfIsNotRepeated) {
  EnvironmentReport env;
  env.environment = "/venv";
  env.matrix = FailingAgainstOne({"a.so", "b.so"}, {"torch misses libcuda.so.1"});
  env.matrix.cells[0].report.warnings.push_back({"a.so", "a alone"});
  Report torch;
  torch.module = "torch/_C.so";
  torch.loads = true;
  torch.warnings.push_back({"torch/_C.so", "torch misses libcuda.so.1"});
  env.torch_imports = {torch};
  env.packages = {{"pkg", "1.0", {}, {0, 1}, {}}};
  const std::string text = RenderEnvironmentText(env, false);
  EXPECT_EQ(Count(text, "torch misses libcuda.so.1"), 1u) << text;
  EXPECT_EQ(Count(text, "a alone"), 1u);
}

}  // namespace

// Issue 37 item 12: a module name is bytes; JUnit is XML, which holds only characters. Bytes that
// are not UTF-8 are written as \xNN (as the text report writes control bytes); UTF-8 stays.
TEST(JunitTest, NamesThatAreNotUtf8AreWrittenAsEscapes) {
  Matrix m;
  m.modules = {"dir/mod\xff\xfe.so", "caf\xc3\xa9/mod.so", "bad\xed\xa0\x80/mod.so"};
  m.builds = {"b"};
  for (const std::string& mod : m.modules) {
    MatrixCell c;
    c.module = mod;
    c.build = "b";
    c.report.module = mod;
    c.report.loads = true;
    m.cells.push_back(c);
  }
  m.module_info.resize(3);
  const std::string xml = RenderJunit(m);
  EXPECT_THAT(xml, HasSubstr("dir/mod\\xff\\xfe.so"));
  EXPECT_THAT(xml, HasSubstr("caf\xc3\xa9/mod.so"));
  EXPECT_THAT(xml, HasSubstr("bad\\xed\\xa0\\x80/mod.so")) << "a surrogate is not UTF-8";
  EXPECT_EQ(xml.find('\xff'), std::string::npos);
}

namespace {

// Issue 55 item 8: a remote wheel is named by its file name in what a person reads, the URL once
// in the notes; a URL a path normalization took a slash from, or joined to a directory, too.
TEST(TextReportTest, UrlsReadAsTheirFileNames) {
  const std::string url =
      "https://files.example/packages/36/9f/f8/sgl_kernel-0.3.21-cp310-abi3-"
      "manylinux2014_x86_64.whl";
  const std::string wheel = "sgl_kernel-0.3.21-cp310-abi3-manylinux2014_x86_64.whl";
  EXPECT_EQ(ShortenUrls(url + "!sgl_kernel/flash_ops.abi3.so: undefined symbol: x"),
            wheel + "!sgl_kernel/flash_ops.abi3.so: undefined symbol: x");
  EXPECT_EQ(ShortenUrls("/cwd/" + url + "/torch/lib/../../nvidia/cudnn/lib is searched"),
            wheel + "!torch/lib/../../nvidia/cudnn/lib is searched");
  EXPECT_EQ(ShortenUrls("in https:/files.example/p/torch-2.10.0-cp312-cp312-linux_x86_64.whl!a.so"),
            "in torch-2.10.0-cp312-cp312-linux_x86_64.whl!a.so");
  EXPECT_EQ(ShortenUrls(url + "#sha256=abc, and more"), wheel + ", and more");
  EXPECT_EQ(ShortenUrls("see https://example.org/ or a:/b"), "see https://example.org/ or a:/b");
  EXPECT_EQ(ShortenUrls("no url here"), "no url here");
  // The import's message names the installed file (item 9).
  EXPECT_EQ(AsInstalled(url + "!sgl_kernel/flash_ops.abi3.so: undefined symbol: x"),
            "site-packages/sgl_kernel/flash_ops.abi3.so: undefined symbol: x");
  EXPECT_EQ(AsInstalled("/w/torch-2.10.0.whl!torch/lib/libc10.so: cannot open"),
            "site-packages/torch/lib/libc10.so: cannot open");
  // Against an environment: where that environment's import finds it.
  Report r;
  r.libraries = {{"m.so", url + "!sgl_kernel/m.so"},
                 {"libc10.so", "/v/lib/python3.12/site-packages/torch/lib/libc10.so"}};
  EXPECT_EQ(SitePackagesOf(r), "/v/lib/python3.12/site-packages");
  EXPECT_EQ(AsInstalled(url + "!sgl_kernel/m.so: undefined symbol: x", SitePackagesOf(r)),
            "/v/lib/python3.12/site-packages/sgl_kernel/m.so: undefined symbol: x");
  EXPECT_EQ(SitePackagesOf(Report()), "site-packages");
  // The notes: the URL in full once, on a line of its own, then its file name.
  std::vector<std::string> said;
  const std::string first =
      NoteLine({url, "pip resolves sgl-kernel==0.3.21 to this wheel"}, true, &said);
  EXPECT_THAT(first, HasSubstr("note: " + wheel + ": pip resolves"));
  EXPECT_THAT(first, HasSubstr("\n     " + url + "\n"));
  EXPECT_EQ(NoteLine({url, "read in part"}, true, &said), "note: " + wheel + ": read in part\n");
  // A build without a version of its own is labelled by its file name, not "https:/files…".
  EXPECT_THAT(
      BuildLabels(std::vector<std::string>{url, "/b/torch"}),
      ::testing::ElementsAre("sgl_kernel-0.3.21-cp310-abi3-manylinux2014_x86_64", "/b/torch"));
}

}  // namespace

}  // namespace abicheck
