// A torch build given as a wheel is the world pip installs with it (docs/loader-model.md E10):
// its pinned dependency wheels, found beside it or with --find-links, laid out so that its
// RPATH reaches them; without them the verdicts that rest on them are unknown (C2c).
#include <filesystem>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/render.h"
#include "tests/unit/test_inputs.h"

namespace abicheck {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::Member;
using testing::TempDir;
using testing::WriteZip;

std::vector<uint8_t> Text(const std::string& s) { return {s.begin(), s.end()}; }

// A torch-like wheel: libtorch_like.so needs the runtime, which it finds where pip installs
// the runtime wheel, through its RPATH.
struct Wheels {
  TempDir dir, deps;
  std::string torch, runtime, module;

  explicit Wheels(const std::string& requires_dist,
                  const std::string& rpath = "$ORIGIN/../../nvidia/rt/lib") {
    testing::ElfBuilder t;
    t.soname = "libtorch_like.so";
    t.needed = {"libcudart_like.so.99"};
    t.rpath = rpath;
    t.syms.push_back({"torch_fn"});
    torch = WriteZip(
        dir, "torch-9.0.0-cp312-cp312-manylinux_2_28_x86_64.whl",
        {{"torch-9.0.0.dist-info/METADATA",
          Text("Metadata-Version: 2.1\nName: torch\nVersion: 9.0.0\n" + requires_dist + "\n")},
         {"torch/version.py", Text("__version__ = '9.0.0+cu99'\n")},
         {"torch/lib/libtorch_like.so", t.Build()}});
    module = dir.Write("mod.so", testing::Mod({"libtorch_like.so", "libcudart_like.so.99"},
                                              {"torch_fn", "rt_fn"}));
  }
  // The runtime wheel, in `where`, with the runtime at `member`.
  std::string Runtime(
      const TempDir& where,
      const std::string& file = "nvidia_rt_cu99-1.2.3-py3-none-manylinux2014_x86_64.whl",
      const std::string& member = "nvidia/rt/lib/libcudart_like.so.99",
      std::vector<std::string> defines = {"rt_fn"}) {
    return WriteZip(where, file,
                    {{"nvidia_rt_cu99-1.2.3.dist-info/METADATA",
                      Text("Metadata-Version: 2.1\nName: nvidia-rt-cu99\nVersion: 1.2.3\n\n")},
                     {member, testing::Lib("libcudart_like.so.99", std::move(defines))}});
  }
};

const char kPinsTheRuntime[] =
    "Requires-Dist: nvidia-rt-cu99==1.2.3; platform_system == \"Linux\"\n"
    "Requires-Dist: nvidia-win==1.0; sys_platform == \"win32\"\n"
    "Requires-Dist: typing-extensions>=4.10.0";

absl::StatusOr<Matrix> CheckAgainst(const Wheels& w, std::vector<std::string> find_links = {}) {
  CheckOptions o;
  o.use_host = false;
  o.find_links = std::move(find_links);
  return CheckMatrix({w.module}, {w.torch}, o);
}

// Whether the report's runtime is the pinned wheel's, where pip installs it.
bool RuntimeFromTheWheel(const Report& r) {
  for (const LoadedLibrary& l : r.libraries) {
    if (l.name == "libcudart_like.so.99")
      return absl::StrContains(
          l.path, "nvidia_rt_cu99-1.2.3-py3-none-manylinux2014_x86_64.whl!nvidia/rt/lib/");
  }
  return false;
}

// A runtime outside any world (a CUDA toolkit on the host) and an RPATH that tries where the
// pinned wheel installs it first, then there (E12).
struct HostRuntime {
  TempDir dir;
  std::string rpath;
  HostRuntime() {
    dir.Write("libcudart_like.so.99", testing::Lib("libcudart_like.so.99", {"rt_fn"}));
    rpath = "$ORIGIN/../../nvidia/rt/lib:" + dir.path();
  }
};

TEST(BuildWorldTest, TheDependencyBesideTheWheelDecidesTheVerdict) {
  Wheels w(kPinsTheRuntime);
  w.Runtime(w.dir);
  absl::StatusOr<Matrix> m = CheckAgainst(w);
  ASSERT_TRUE(m.ok()) << m.status();
  const Report& r = m->cells.at(0).report;
  EXPECT_EQ(r.verdict(), Verdict::kLoads) << RenderText(r, false);
  EXPECT_TRUE(r.assumed_loaded.empty()) << RenderText(r, false);
  EXPECT_TRUE(RuntimeFromTheWheel(r)) << RenderText(r, false);
  // The column is named as users name the build; the file is in the detail.
  EXPECT_THAT(m->build_versions, ::testing::ElementsAre("9.0.0+cu99"));
  EXPECT_THAT(RenderMatrixText(*m, false, false),
              ::testing::StartsWith("module  torch 9.0.0+cu99"));
  ASSERT_FALSE(m->notes.empty());
  EXPECT_THAT(m->notes.front().message, HasSubstr("laid out with the 1 wheels its Requires-Dist "
                                                  "pins (as pip installs them): nvidia-rt-cu99 "
                                                  "1.2.3"));
}

// What the runtime lacks fails, as the import will: the world was read, nothing is unknown.
TEST(BuildWorldTest, WhatTheDependencyLacksFails) {
  Wheels w(kPinsTheRuntime);
  w.Runtime(w.dir, "nvidia_rt_cu99-1.2.3-py3-none-manylinux2014_x86_64.whl",
            "nvidia/rt/lib/libcudart_like.so.99", {"another_fn"});
  absl::StatusOr<Matrix> m = CheckAgainst(w);
  ASSERT_TRUE(m.ok()) << m.status();
  const Report& r = m->cells.at(0).report;
  EXPECT_EQ(r.verdict(), Verdict::kFails) << RenderText(r, false);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].symbol, "rt_fn");
}

TEST(BuildWorldTest, AloneTheVerdictIsUnknown) {
  Wheels w(kPinsTheRuntime);
  absl::StatusOr<Matrix> m = CheckAgainst(w);
  ASSERT_TRUE(m.ok()) << m.status();
  const Report& r = m->cells.at(0).report;
  EXPECT_EQ(r.verdict(), Verdict::kUnknown) << RenderText(r, false);
  EXPECT_THAT(r.unknown_because, ::testing::ElementsAre("libcudart_like.so.99"));
  bool named = false;
  for (const Warning& n : m->notes)
    named = named || absl::StrContains(n.message,
                                       "pins wheels that are not given: "
                                       "nvidia-rt-cu99==1.2.3;");
  EXPECT_TRUE(named) << "the pin that was not given is named";
  EXPECT_THAT(RenderMatrixText(*m, false, false),
              HasSubstr("CANNOT TELL (libcudart_like.so.99 not given)"));
}

TEST(BuildWorldTest, FindLinksIsSearchedToo) {
  Wheels w(kPinsTheRuntime);
  w.Runtime(w.deps);
  absl::StatusOr<Matrix> m = CheckAgainst(w, {w.deps.path()});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->cells.at(0).report.verdict(), Verdict::kLoads)
      << RenderText(m->cells.at(0).report, false);
}

// Found only where torch's RPATH does not lead, the runtime is not loaded: the layout is pip's,
// not a bag of providers.
TEST(BuildWorldTest, OnlyTheRpathReachesADependency) {
  Wheels w(kPinsTheRuntime, "$ORIGIN/../../nvidia/other/lib");
  w.Runtime(w.dir);
  absl::StatusOr<Matrix> m = CheckAgainst(w);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->cells.at(0).report.verdict(), Verdict::kUnknown)
      << RenderText(m->cells.at(0).report, false);
}

// E12: torch's RPATH names the directory its pinned wheel installs first; without that wheel,
// a runtime found further on (a CUDA toolkit on the host) is not the file the install loads
// there: whether it loads cannot be told. Given, the wheel's own runtime decides.
TEST(BuildWorldTest, ALibraryFoundPastADirectoryTheWorldLacksIsUnknown) {
  HostRuntime host;
  {
    Wheels w(kPinsTheRuntime, host.rpath);
    absl::StatusOr<Matrix> m = CheckAgainst(w);
    ASSERT_TRUE(m.ok()) << m.status();
    const Report& r = m->cells.at(0).report;
    EXPECT_EQ(r.verdict(), Verdict::kUnknown) << RenderText(r, false);
    EXPECT_THAT(r.unknown_because, ::testing::ElementsAre("nvidia-rt-cu99==1.2.3"));
    EXPECT_THAT(
        r.warnings,
        ::testing::Contains(::testing::Field(
            &Warning::message,
            ::testing::AllOf(HasSubstr("libcudart_like.so.99 was found at " + host.dir.path()),
                             HasSubstr("/nvidia/rt/lib, which the build's world does "
                                       "not have")))))
        << RenderText(r, false);
    EXPECT_THAT(RenderMatrixText(*m, false, false),
                HasSubstr("CANNOT TELL (nvidia-rt-cu99==1.2.3 not given)"));
  }
  Wheels w(kPinsTheRuntime, host.rpath);
  w.Runtime(w.dir);
  absl::StatusOr<Matrix> m = CheckAgainst(w);
  ASSERT_TRUE(m.ok()) << m.status();
  const Report& r = m->cells.at(0).report;
  EXPECT_EQ(r.verdict(), Verdict::kLoads) << RenderText(r, false);
  EXPECT_TRUE(RuntimeFromTheWheel(r)) << RenderText(r, false);
}

// An index of a wheel keeps the wheel's path and its METADATA: against it, the world is laid out
// as the wheel's, from the wheels --find-links gives (E10) — the same verdicts, and the same
// unknowns (E12).
TEST(BuildWorldTest, AnIndexOfAWheelIsThatWheelsWorld) {
  HostRuntime host;
  Wheels w(kPinsTheRuntime, host.rpath);
  const std::string index = w.deps.path() + "/torch.abix";
  ASSERT_TRUE(BuildIndex({w.torch}, {}, index).ok());
  // Beside where the wheel was indexed is not given: an index is read with what is given.
  w.Runtime(w.dir);
  CheckOptions o;
  o.use_host = false;
  absl::StatusOr<Matrix> alone = CheckMatrix({w.module}, {index}, o);
  ASSERT_TRUE(alone.ok()) << alone.status();
  const Report& r = alone->cells.at(0).report;
  EXPECT_EQ(r.verdict(), Verdict::kUnknown) << RenderText(r, false);
  EXPECT_THAT(r.unknown_because, ::testing::ElementsAre("nvidia-rt-cu99==1.2.3"));
  EXPECT_THAT(alone->build_versions, ::testing::ElementsAre("9.0.0+cu99"));
  // The runtime wheel given: laid out where torch's RPATH finds it first.
  w.Runtime(w.deps);
  o.find_links = {w.deps.path()};
  absl::StatusOr<Matrix> given = CheckMatrix({w.module}, {index}, o);
  ASSERT_TRUE(given.ok()) << given.status();
  const Report& g = given->cells.at(0).report;
  EXPECT_EQ(g.verdict(), Verdict::kLoads) << RenderText(g, false);
  EXPECT_TRUE(RuntimeFromTheWheel(g)) << RenderText(g, false);
}

// An extra of a meta-package brings the real dependency (cuda-toolkit[cudart] pins
// nvidia-cuda-runtime under extra == "cudart").
TEST(BuildWorldTest, ExtrasBringTheirRequirements) {
  Wheels w("Requires-Dist: kit[rt]==2.0");
  w.Runtime(w.dir);
  WriteZip(w.dir, "kit-2.0-py3-none-any.whl",
           {{"kit-2.0.dist-info/METADATA",
             Text("Name: kit\nVersion: 2.0\nRequires-Dist: nvidia-rt-cu99==1.2.3; extra == "
                  "\"rt\"\nRequires-Dist: nvidia-other==1; extra == \"other\"\n\n")}});
  absl::StatusOr<Matrix> m = CheckAgainst(w);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->cells.at(0).report.verdict(), Verdict::kLoads)
      << RenderText(m->cells.at(0).report, false);
  for (const Warning& n : m->notes) EXPECT_THAT(n.message, Not(HasSubstr("nvidia-other")));
}

TEST(BuildWorldTest, OtherVersionsAndPlatformsAreSaid) {
  {  // Another version only: used, and said.
    Wheels w(kPinsTheRuntime);
    w.Runtime(w.dir, "nvidia_rt_cu99-1.2.4-py3-none-manylinux2014_x86_64.whl");
    absl::StatusOr<Matrix> m = CheckAgainst(w);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(m->cells.at(0).report.verdict(), Verdict::kLoads);
    std::string notes;
    for (const Warning& n : m->notes) notes += n.message + "\n";
    EXPECT_THAT(notes, HasSubstr("nvidia-rt-cu99==1.2.3 (required by torch) is not given; the "
                                 "nearest given, nvidia_rt_cu99-1.2.4-py3-none-manylinux2014_"
                                 "x86_64.whl, is used in its place"));
    EXPECT_THAT(notes, HasSubstr("nvidia-rt-cu99 1.2.4 (not as pinned)"));
  }
  {  // Another platform only: not used, said, and the verdict is unknown.
    Wheels w(kPinsTheRuntime);
    w.Runtime(w.dir, "nvidia_rt_cu99-1.2.3-py3-none-manylinux2014_aarch64.whl");
    absl::StatusOr<Matrix> m = CheckAgainst(w);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(m->cells.at(0).report.verdict(), Verdict::kUnknown);
    std::string notes;
    for (const Warning& n : m->notes) notes += n.message + "\n";
    EXPECT_THAT(notes, HasSubstr("only wheels for another Python or platform are given: "
                                 "nvidia_rt_cu99-1.2.3-py3-none-manylinux2014_aarch64.whl"));
  }
  {  // Two wheels of the pinned version: pip's choice, and the other named.
    Wheels w(kPinsTheRuntime);
    w.Runtime(w.dir, "nvidia_rt_cu99-1.2.3-py3-none-manylinux2014_x86_64.whl");
    w.Runtime(w.dir, "nvidia_rt_cu99-1.2.3-py3-none-manylinux_2_27_x86_64.whl");
    absl::StatusOr<Matrix> m = CheckAgainst(w);
    ASSERT_TRUE(m.ok()) << m.status();
    std::string notes;
    for (const Warning& n : m->notes) notes += n.message + "\n";
    EXPECT_THAT(notes, HasSubstr("2 wheels of 1.2.3 are given; nvidia_rt_cu99-1.2.3-py3-none-"
                                 "manylinux_2_27_x86_64.whl is used"));
  }
}

// A module wheel is laid out too: auditwheel renames a vendored library's file
// (pkg.libs/libz.cac6d5fc.so.1, soname libz.so.1) and the library that needs it finds it through
// its $ORIGIN RUNPATH, by file name. Checked as a wheel, every object loads, as installed; the
// object the others need is checked in a world without them (they cannot load before it).
TEST(BuildWorldTest, AWheelsVendoredLibrariesFindEachOtherThroughOrigin) {
  TempDir d;
  testing::ElfBuilder z;
  z.soname = "libz.so.1";
  z.syms.push_back({"inflate"});
  testing::ElfBuilder png;
  png.soname = "libpng16.so.16";
  png.needed = {"libz.cac6d5fc.so.1"};
  png.runpath = "$ORIGIN";
  png.syms.push_back({"png_read"});
  png.syms.push_back({"inflate", false});
  png.relocs.push_back(2);
  testing::ElfBuilder image;  // auditwheel's RPATH to the vendored libraries
  image.needed = {"libpng16.4ef4b109.so.16"};
  image.rpath = "$ORIGIN/../pkg.libs";
  image.syms.push_back({"png_read", false});
  image.relocs.push_back(1);
  image.syms.push_back({"PyInit_image"});
  const std::string wheel =
      WriteZip(d, "pkg-1.0-cp312-cp312-manylinux_2_28_x86_64.whl",
               {{"pkg-1.0.dist-info/METADATA", Text("Name: pkg\nVersion: 1.0\n\n")},
                {"pkg.libs/libz.cac6d5fc.so.1", z.Build()},
                {"pkg.libs/libpng16.4ef4b109.so.16", png.Build()},
                {"pkg/image.so", image.Build()}});
  CheckOptions o;
  o.use_host = false;
  o.providers = {d.Write("libtorch_like.so", testing::Lib("libtorch_like.so", {"t"}))};
  absl::StatusOr<Matrix> m = CheckMatrix({wheel}, {}, o);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->cells.size(), 3u);
  for (const MatrixCell& c : m->cells)
    EXPECT_EQ(c.report.verdict(), Verdict::kLoads) << RenderText(c.report, false);
}

// Issue 32 item 5 (E7), checked as a wheel: a vendored library is no provider of its own. _C.so
// names libcudart_x.so.12, which no search reaches; pkg.libs holds a copy of that soname that
// only image.so's hashed name loads. `import pkg` meets "cannot open" at _C.so, not the
// undefined symbol a world with the vendored copy loaded would say.
TEST(BuildWorldTest, AVendoredLibraryIsNoProviderOfItsOwn) {
  TempDir d;
  testing::ElfBuilder cudart;
  cudart.soname = "libcudart_x.so.12";
  cudart.syms.push_back({"cudaMalloc_x"});
  testing::ElfBuilder image;
  image.needed = {"libcudart_x-1a2b3c4d.so.12"};
  image.rpath = "$ORIGIN/../pkg.libs";
  image.syms.push_back({"PyInit_image"});
  const std::string wheel = WriteZip(
      d, "pkg-1.0-cp312-cp312-manylinux_2_28_x86_64.whl",
      {{"pkg-1.0.dist-info/METADATA", Text("Name: pkg\nVersion: 1.0\n\n")},
       {"pkg.libs/libcudart_x-1a2b3c4d.so.12", cudart.Build()},
       {"pkg/image.so", image.Build()},
       {"pkg/_C.so",
        testing::Mod({"libcudart_x.so.12", "libtorch_like.so"}, {"cudaMalloc_x", "t_gone"})}});
  CheckOptions o;
  o.use_host = false;
  o.providers = {d.Write("libtorch_like.so", testing::Lib("libtorch_like.so", {"t"}))};
  absl::StatusOr<Matrix> m = CheckMatrix({wheel}, {}, o);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->cells.size(), 3u);
  for (size_t i = 0; i < m->cells.size(); ++i) {
    const Report& r = m->cells[i].report;
    if (absl::EndsWith(m->modules[i], "pkg/_C.so")) {
      EXPECT_THAT(RenderText(r, false),
                  HasSubstr("import fails with: libcudart_x.so.12: cannot open shared object "
                            "file"));
    } else {
      EXPECT_EQ(r.verdict(), Verdict::kLoads) << RenderText(r, false);
    }
  }
}

TEST(BuildWorldTest, BadMetadataAndBadDependenciesAreErrors) {
  {
    Wheels w("Requires-Dist: nvidia-rt-cu99==; platform_system == \"Linux\"");
    absl::StatusOr<Matrix> m = CheckAgainst(w);
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(m.status().message()),
                HasSubstr("torch-9.0.0-cp312-cp312-manylinux_2_28_x86_64.whl!METADATA: "
                          "Requires-Dist 'nvidia-rt-cu99==; platform_system == \"Linux\"' is "
                          "malformed"));
    EXPECT_EQ(ExitCodeForStatus(m.status()), kExitBadInput);
  }
  {
    Wheels w("Requires-Dist: nvidia-rt-cu99==1.2.3; platform_machin == \"x86_64\"");
    absl::StatusOr<Matrix> m = CheckAgainst(w);
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(m.status().message()), HasSubstr("unknown variable 'platform_machin'"));
  }
  {  // A corrupt dependency wheel is named, never silently left out.
    Wheels w(kPinsTheRuntime);
    w.dir.Write("nvidia_rt_cu99-1.2.3-py3-none-manylinux2014_x86_64.whl", "PK not a zip");
    absl::StatusOr<Matrix> m = CheckAgainst(w);
    EXPECT_EQ(ExitCodeForStatus(m.status()), kExitBadInput) << m.status();
    EXPECT_THAT(std::string(m.status().message()), HasSubstr("nvidia_rt_cu99-1.2.3-py3-none-"));
  }
}

}  // namespace
}  // namespace abicheck
