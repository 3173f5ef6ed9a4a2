// Installed environments read from their files (docs/loader-model.md E1-E7): distributions from
// RECORD and METADATA, torch's CUDA preloads from its __init__.py, builds swapped in with
// --against, and the bad input a real site-packages can hold.
#include <sys/stat.h>

#include <filesystem>

#include "abicheck/abicheck.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/inputs/python_env.h"
#include "lib/report/render.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_inputs.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

namespace fs = std::filesystem;
using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::StatusIs;
using ::abicheck::testing::TempDir;
using ::testing::ContainsRegex;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<uint8_t> Lib(const std::string& soname, std::vector<std::string> syms,
                         std::vector<std::string> needed = {}) {
  ElfBuilder b;
  b.soname = soname;
  b.needed = std::move(needed);
  for (const std::string& s : syms) b.syms.push_back({s});
  return b.Build();
}

std::vector<uint8_t> Mod(std::vector<std::string> needed, std::vector<std::string> refs,
                         bool extension = true) {
  ElfBuilder b;
  b.needed = std::move(needed);
  for (size_t i = 0; i < refs.size(); ++i) {
    b.syms.push_back({refs[i], false});
    b.relocs.push_back(static_cast<uint32_t>(i + 1));
  }
  if (extension) b.syms.push_back({"PyInit_mod"});
  return b.Build();
}

CheckOptions NoHost() {
  CheckOptions o;
  o.use_host = false;
  return o;
}

// A virtualenv with torch 2.9.1 (libc10 exports c10_kept) and two packages built against torch.
struct Venv {
  TempDir d;
  std::string root, site;
  Venv() {
    root = d.path() + "/venv";
    site = root + "/lib/python3.12/site-packages";
    fs::create_directories(site);
    Put("../../../pyvenv.cfg", "home = /nonexistent/bin\nversion_info = 3.12.1\n");
    AddTorch("2.9.1", {"c10_kept"});
    Dist("good", "1.0", "Requires-Dist: torch==2.9.1\n",
         {{"good/_ext.so", Mod({"libc10.so"}, {"c10_kept"})}});
    Dist("bad", "2.0", "Requires-Dist: numpy\nRequires-Dist: torch>=2.0; extra == \"gpu\"\n",
         {{"bad/_ext.so", Mod({"libc10.so"}, {"c10_gone"})},
          {"bad/lib/libbadhelper.so", Lib("libbadhelper.so", {"h"}, {"libc10.so"})}},
         {"bad/missing.so"});
  }
  void Put(const std::string& rel, const std::vector<uint8_t>& bytes) {
    fs::create_directories(fs::path(site + "/" + rel).parent_path());
    d.Write(fs::path(site + "/" + rel).lexically_normal().string().substr(d.path().size() + 1),
            bytes);
  }
  void Put(const std::string& rel, const std::string& text) {
    Put(rel, std::vector<uint8_t>(text.begin(), text.end()));
  }
  void AddTorch(const std::string& version, std::vector<std::string> c10) {
    Put("torch/lib/libc10.so", Lib("libc10.so", c10));
    Put("torch/lib/libtorch_global_deps.so", Lib("libtorch_global_deps.so", {}));
    Put("torch/_C.cpython-312-x86_64-linux-gnu.so", Mod({"libc10.so"}, {c10.front()}));
    Put("torch/version.py", "__version__ = '" + version + "+cpu'\ncuda: Optional[str] = None\n");
    Put("torch-" + version + ".dist-info/METADATA", "Name: torch\nVersion: " + version + "\n");
    Put("torch-" + version + ".dist-info/RECORD",
        "torch/lib/libc10.so,sha256=x,1\ntorch/_C.cpython-312-x86_64-linux-gnu.so,,\n");
  }
  void Dist(const std::string& name, const std::string& version, const std::string& requires_dist,
            std::vector<std::pair<std::string, std::vector<uint8_t>>> files,
            std::vector<std::string> absent = {}) {
    std::string record;
    for (const auto& [rel, bytes] : files) {
      Put(rel, bytes);
      record += rel + ",sha256=abc,10\n";
    }
    for (const std::string& a : absent) record += a + ",,\n";
    const std::string di = name + "-" + version + ".dist-info/";
    Put(di + "METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n" +
                             requires_dist + "\nRequires-Dist: torch==9 (in the description)\n");
    Put(di + "RECORD", record);
  }
};

// A torch directory laid out like site-packages, torch-VER/torch, whose libc10.so exports `syms`;
// returns its path.
std::string TorchDirectory(const TempDir& other, const std::string& ver,
                           const std::vector<std::string>& syms) {
  const std::string t = "torch-" + ver + "/torch/";
  fs::create_directories(other.path() + "/" + t + "lib");
  other.Write(t + "lib/libc10.so", Lib("libc10.so", syms));
  other.Write(t + "_C.cpython-312-x86_64-linux-gnu.so", Mod({"libc10.so"}, {"c10_kept"}));
  other.Write(t + "version.py", "__version__ = '" + ver + "'\n");
  return other.path() + "/torch-" + ver + "/torch";
}

// Two torch directories, torch-2.10.0/torch and torch-2.9.0/torch; the newer one kept c10_gone.
void TwoTorchDirectories(const TempDir& other) {
  TorchDirectory(other, "2.10.0", {"c10_kept", "c10_gone"});
  TorchDirectory(other, "2.9.0", {"c10_kept"});
}

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

const EnvironmentPackage* Package(const EnvironmentReport& r, const std::string& name) {
  for (const EnvironmentPackage& p : r.packages) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

TEST(EnvTest, ReadsDistributionsFromRecordAndMetadata) {
  Venv v;
  absl::StatusOr<PythonEnvironment> env = ReadPythonEnvironment(v.root, ReadLimits{});
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_EQ(env->site_packages, v.site);
  EXPECT_EQ(env->python_version, "3.12");
  EXPECT_EQ(env->interpreter, "") << "home does not exist and the venv has no bin/";
  ASSERT_EQ(env->distributions.size(), 3u);
  EXPECT_EQ(env->distributions[0].metadata.name, "bad");
  EXPECT_THAT(env->distributions[0].metadata.torch_requirements, ::testing::IsEmpty())
      << "a requirement under an extra, and text after the headers, are not pins";
  EXPECT_THAT(env->distributions[0].shared_objects,
              ElementsAre(v.site + "/bad/_ext.so", v.site + "/bad/lib/libbadhelper.so"));
  EXPECT_THAT(env->distributions[0].problems,
              ElementsAre(HasSubstr("RECORD lists bad/missing.so, which is not there")));
  EXPECT_THAT(env->distributions[1].metadata.torch_requirements, ElementsAre("torch==2.9.1"));
  EXPECT_EQ(env->distributions[env->torch].metadata.version, "2.9.1");
  // A site-packages or a python executable inside the venv name the same environment.
  absl::StatusOr<PythonEnvironment> by_site = ReadPythonEnvironment(v.site, ReadLimits{});
  ASSERT_TRUE(by_site.ok()) << by_site.status();
  EXPECT_EQ(by_site->site_packages, v.site);
}

TEST(EnvTest, EverySharedObjectOfEveryPackageGetsAVerdict) {
  Venv v;
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {}, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->loads());
  ASSERT_EQ(r->torch_imports.size(), 1u);
  EXPECT_TRUE(r->torch_imports[0].loads) << RenderText(r->torch_imports[0], false);
  EXPECT_THAT(r->matrix.builds, ElementsAre("torch 2.9.1+cpu (installed)"));
  const EnvironmentPackage* bad = Package(*r, "bad");
  const EnvironmentPackage* good = Package(*r, "good");
  ASSERT_NE(bad, nullptr);
  ASSERT_NE(good, nullptr);
  ASSERT_EQ(bad->modules.size(), 2u);
  const Report& ext = r->matrix.cells[bad->modules[0]].report;
  ASSERT_FALSE(ext.loads);
  ASSERT_EQ(ext.problems.size(), 1u);
  EXPECT_EQ(ext.problems[0].message, v.site + "/bad/_ext.so: undefined symbol: c10_gone");
  // The package's own library needs only libc10, loaded by import torch: it loads.
  EXPECT_TRUE(r->matrix.cells[bad->modules[1]].report.loads);
  EXPECT_FALSE(r->matrix.module_info[bad->modules[1]].extension_module);
  EXPECT_EQ(r->matrix.module_info[bad->modules[0]].label, "bad/_ext.so");
  ASSERT_EQ(good->modules.size(), 1u);
  EXPECT_TRUE(r->matrix.cells[good->modules[0]].report.loads);
  const std::string text = RenderEnvironmentText(*r, false);
  EXPECT_THAT(text, HasSubstr("bad      2.0      pins no torch"));
  EXPECT_THAT(text, HasSubstr("FAILS (1 of 2)"));
  EXPECT_THAT(RenderEnvironmentJson(*r), HasSubstr("\"torch==2.9.1\""));
}

// Issue 37: a symlinked site-packages/torch/lib (a shared CUDA install, a conda layout) is where
// import torch finds its libraries, as the kernel follows the link: the packages are checked
// against it. It was never read: "import torch loads", then good/_ext.so FAILS, missing libc10.so.
TEST(EnvTest, ASymlinkedTorchLibIsRead) {
  Venv v;
  const std::string real = v.d.path() + "/elsewhere/torch_lib";
  fs::create_directories(fs::path(real).parent_path());
  fs::rename(v.site + "/torch/lib", real);
  fs::create_directory_symlink(real, v.site + "/torch/lib");
  fs::create_directory_symlink("..", real + "/loop");  // a link back up is walked once
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {}, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->torch_imports[0].loads) << RenderText(r->torch_imports[0], false);
  const EnvironmentPackage* good = Package(*r, "good");
  ASSERT_NE(good, nullptr);
  EXPECT_TRUE(r->matrix.cells[good->modules[0]].report.loads)
      << RenderText(r->matrix.cells[good->modules[0]].report, false);
  const EnvironmentPackage* bad = Package(*r, "bad");
  ASSERT_NE(bad, nullptr);
  const Report& ext = r->matrix.cells[bad->modules[0]].report;
  ASSERT_EQ(ext.problems.size(), 1u) << RenderText(ext, false);
  EXPECT_EQ(ext.problems[0].message, v.site + "/bad/_ext.so: undefined symbol: c10_gone");
}

// torchaudio on a torch it was not built for: its libtorchaudio.so does not load, so its module
// _torchaudio.so, which needs it, meets no libtorchaudio.so. The report says which file that is
// and that the package fails there first, not "no file named libtorchaudio.so".
TEST(EnvTest, AMissingLibraryThePackageShipsIsNamed) {
  Venv v;
  ElfBuilder lib;
  lib.soname = "libaudio.so";
  lib.needed = {"libc10.so"};
  lib.syms = {{"c10_gone", false}};
  lib.relocs = {1};
  v.Dist("audio", "1.0", "",
         {{"audio/lib/libaudio.so", lib.Build()},
          {"audio/lib/_audio.so", Mod({"libaudio.so", "libc10.so"}, {"c10_kept"})}});
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {}, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  const EnvironmentPackage* audio = Package(*r, "audio");
  ASSERT_NE(audio, nullptr);
  ASSERT_EQ(audio->modules.size(), 2u);
  const Report& module = r->matrix.cells[audio->modules[0]].report;  // audio/lib/_audio.so
  ASSERT_FALSE(module.loads);
  ASSERT_EQ(module.problems.size(), 1u) << RenderText(module, false);
  EXPECT_EQ(module.problems[0].kind, ProblemKind::kMissingLibrary);
  EXPECT_EQ(module.problems[0].hint,
            "libaudio.so is this package's own audio/lib/libaudio.so, which does not load itself "
            "(its report says why): the package's import fails there first");
  EXPECT_FALSE(r->matrix.cells[audio->modules[1]].report.loads);
}

// torchcodec's custom_ops9 misses 82 names of its own libtorchcodec_core9.so, which does not load:
// each said "no library in the load exports this name". They come with that file, and three or
// more are one cause.
TEST(EnvTest, SymbolsOfTheOwnLibraryThatDoesNotLoadAreOneCause) {
  Venv v;
  ElfBuilder lib;
  lib.soname = "libcore.so";
  lib.needed = {"libc10.so"};
  lib.syms = {{"c10_gone", false}, {"core_a"}, {"core_b"}, {"core_c"}};
  lib.relocs = {1};
  v.Dist("codec", "1.0", "",
         {{"codec/libcore.so", lib.Build()},
          {"codec/ops.so",
           Mod({"libcore.so", "libc10.so"}, {"core_a", "core_b", "core_c", "nowhere"})}});
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {}, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  const EnvironmentPackage* codec = Package(*r, "codec");
  ASSERT_NE(codec, nullptr);
  const Report& ops = r->matrix.cells[codec->modules[1]].report;  // codec/ops.so
  ASSERT_EQ(ops.causes.size(), 1u) << RenderText(ops, false);
  EXPECT_EQ(ops.causes[0].id, "symbols_of_own_libraries");
  EXPECT_EQ(ops.causes[0].problems, 3);
  EXPECT_EQ(ops.causes[0].summary,
            "symbols of this package's own libcore.so, which does not load (above), e.g. core_a, "
            "core_b, core_c: they fail because it does not load");
  int own = 0;
  for (const Problem& p : ops.problems) {
    if (p.kind != ProblemKind::kUndefinedSymbol) continue;
    if (p.symbol == "nowhere") {
      EXPECT_EQ(p.hint, "no library in the load exports this name, under any version");
      continue;
    }
    ++own;
    EXPECT_EQ(p.hint,
              "it comes with libcore.so, this package's own library, which does not load "
              "(above)");
    EXPECT_EQ(p.cause, "symbols_of_own_libraries");
  }
  EXPECT_EQ(own, 3);
}

// `abicheck diff VENV_A VENV_B` compares the torch installed in each, as check --against and env
// take a venv: not every package's libraries (two PyPI venvs differed in 124,086 removed names,
// most of them other packages').
TEST(EnvTest, ADiffOfTwoEnvironmentsIsADiffOfTheirTorch) {
  Venv a, b;
  b.AddTorch("2.9.1", {"c10_kept", "c10_new"});
  b.Dist("other", "1.0", "", {{"other/libother.so", Lib("libother.so", {"o"})}});
  absl::StatusOr<AbiDiff> diff = DiffBuilds(a.root, b.root);
  ASSERT_TRUE(diff.ok()) << diff.status();
  ASSERT_EQ(diff->libraries.size(), 1u) << RenderDiffText(*diff, false);
  EXPECT_THAT(diff->libraries[0].new_library, HasSubstr("/torch/lib/libc10.so"));
  ASSERT_EQ(diff->libraries[0].added.size(), 1u);
  EXPECT_EQ(diff->libraries[0].added[0].symbol, "c10_new");
}

// `v` checked against TwoTorchDirectories, made in `other`: 2.10.0, then 2.9.0.
absl::StatusOr<EnvironmentReport> AgainstTwoTorchDirectories(const Venv& v, const TempDir& other) {
  TwoTorchDirectories(other);
  return CheckEnvironment(
      v.root, {other.path() + "/torch-2.10.0/torch", other.path() + "/torch-2.9.0/torch"},
      NoHost());
}

TEST(EnvTest, AgainstOtherBuildsRecommendsTheNewestThatWorks) {
  Venv v;
  TempDir other;
  absl::StatusOr<EnvironmentReport> r = AgainstTwoTorchDirectories(v, other);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->matrix.builds.size(), 2u);
  ASSERT_TRUE(r->matrix.has_recommendation);
  EXPECT_TRUE(r->matrix.recommendation.every_module_loads);
  EXPECT_EQ(r->matrix.recommendation.build, other.path() + "/torch-2.10.0/torch");
  // Named as users name it, with what to install (issue 32 item 4).
  EXPECT_EQ(r->matrix.recommendation.label, "torch 2.10.0");
  EXPECT_EQ(r->matrix.recommendation.requirement, "torch==2.10.0");
  // "good" loads with it, but its Requires-Dist is torch==2.9.1: pip will say so (the pin
  // column shows it; the recommendation says it too). "bad" names torch for an extra only.
  EXPECT_EQ(r->matrix.recommendation.summary,
            "install torch==2.10.0 (torch 2.10.0): every package loads with it; good 1.0 "
            "(torch==2.9.1) loads with it but requires another torch: pip will say so as it "
            "installs it");
  const std::string text = RenderEnvironmentText(*r, false);
  EXPECT_THAT(text, HasSubstr("import torch with torch 2.10.0: loads\n"));
  EXPECT_THAT(text, HasSubstr("import torch with torch 2.9.0: loads\n"));
  const EnvironmentPackage* bad = Package(*r, "bad");
  ASSERT_NE(bad, nullptr);
  EXPECT_TRUE(r->matrix.cells[bad->modules[0] * 2].report.loads);
  EXPECT_FALSE(r->matrix.cells[bad->modules[0] * 2 + 1].report.loads);
  // The build was placed at the environment's torch: its objects' $ORIGIN is there.
  bool placed = false;
  for (const LoadedLibrary& l : r->matrix.cells[bad->modules[0] * 2].report.libraries)
    placed |= l.name == v.site + "/torch/lib/libc10.so" &&
              l.path == other.path() + "/torch-2.10.0/torch/lib/libc10.so";
  EXPECT_TRUE(placed);
}

// Among builds that leave as many packages failing, the one the fewest packages' own torch
// requirements leave out, before the newest: pip warns of each such requirement as it installs
// the build (the corpus: vllm pins torch==2.14.0, and 2.14.1 fails nothing more).
TEST(EnvTest, AmongEqualsTheBuildThePinsAllowIsRecommended) {
  Venv v;
  v.Dist("pinned", "1.0", "Requires-Dist: torch==3.0.0\n",
         {{"pinned/_ext.so", Mod({"libc10.so"}, {"c10_kept"})}});
  TempDir other;
  const std::vector<std::string> builds = {
      TorchDirectory(other, "3.0.0", {"c10_kept", "c10_gone"}),
      TorchDirectory(other, "3.1.0", {"c10_kept", "c10_gone"})};
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, builds, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  const Recommendation& rec = r->matrix.recommendation;
  EXPECT_TRUE(rec.every_module_loads) << rec.summary;
  EXPECT_EQ(rec.label, "torch 3.0.0") << rec.summary;
  EXPECT_EQ(rec.summary,
            "install torch==3.0.0 (torch 3.0.0): every package loads with it; good 1.0 "
            "(torch==2.9.1) loads with it but requires another torch: pip will say so as it "
            "installs it");
  // Without that pin (its distribution gone, the file unowned), the two are equal in every
  // way, and the newest is recommended.
  fs::remove_all(v.site + "/pinned-1.0.dist-info");
  absl::StatusOr<EnvironmentReport> again = CheckEnvironment(v.root, builds, NoHost());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->matrix.recommendation.label, "torch 3.1.0")
      << again->matrix.recommendation.summary;
}

// The Venv with one more package, usex, which needs c10_x: the installed torch (c10_kept, c10_x)
// loads good and usex, and fails bad (c10_gone).
void AddUsex(Venv& v) {
  v.AddTorch("2.9.1", {"c10_kept", "c10_x"});
  v.Dist("usex", "1.0", "", {{"usex/_ext.so", Mod({"libc10.so"}, {"c10_x"})}});
}

// Issue 55 item 2 (docs/suggest.md): among builds that leave as many packages failing, one that
// breaks a package that loads now is never chosen, and the installed build wins the tie — here
// the newest (3.1.0: usex fails, bad loads) and 3.0.0 (as now: bad fails) each fail one.
// Without the installed build to weigh, the newest wins.
TEST(EnvTest, TiesKeepWhatLoadsNowThenTheInstalledBuild) {
  Venv v;
  AddUsex(v);
  TempDir other;
  const std::vector<std::string> builds = {
      TorchDirectory(other, "3.0.0", {"c10_kept", "c10_x"}),
      TorchDirectory(other, "3.1.0", {"c10_kept", "c10_gone"})};
  CheckOptions o = NoHost();
  o.with_installed_build = true;
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, builds, o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->matrix.builds.size(), 3u);
  EXPECT_EQ(r->matrix.builds[0], "torch 2.9.1+cpu (installed)");
  const Recommendation& rec = r->matrix.recommendation;
  EXPECT_TRUE(rec.installed) << rec.summary;
  EXPECT_EQ(rec.build, "torch 2.9.1+cpu (installed)");
  EXPECT_EQ(rec.install_command, "");
  EXPECT_THAT(rec.summary, HasSubstr("it is the installed build: nothing to install"));
  // Without it, nothing loads "now" to keep: the newest of the two wins the tie.
  r = CheckEnvironment(v.root, builds, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->matrix.builds.size(), 2u);
  EXPECT_EQ(r->matrix.recommendation.label, "torch 3.1.0") << r->matrix.recommendation.summary;
}

// The tie-break matrix (docs/suggest.md): fewer failing beats everything; breaking what loads
// now loses to failing only what fails now, even when newer; the installed build beats an equal
// one; among equal builds not installed, the newest.
TEST(EnvTest, TheChoiceRuleOnAMatrixOfTies) {
  struct Case {
    std::vector<std::pair<std::string, std::vector<std::string>>> builds;  // version, c10
    std::string want;
  };
  const std::vector<std::string> now = {"c10_kept", "c10_x"}, breaks = {"c10_kept", "c10_gone"};
  const std::vector<Case> cases = {
      // 3.2.0 loads every package: fewer failing wins over the installed build.
      {{{"3.2.0", {"c10_kept", "c10_gone", "c10_x"}}, {"3.0.0", now}}, "torch 3.2.0"},
      // 3.1.0 breaks usex (newer), 3.0.0 fails bad as now: equal to the installed build, which
      // wins.
      {{{"3.1.0", breaks}, {"3.0.0", now}}, "torch 2.9.1+cpu (installed)"},
      // Only builds that break usex: the installed build.
      {{{"3.1.0", breaks}, {"3.3.0", breaks}}, "torch 2.9.1+cpu (installed)"},
      // Two that load everything: the newest.
      {{{"3.4.0", {"c10_kept", "c10_gone", "c10_x"}}, {"3.3.0", {"c10_kept", "c10_gone", "c10_x"}}},
       "torch 3.4.0"},
  };
  for (const Case& c : cases) {
    Venv v;
    AddUsex(v);
    TempDir other;
    std::vector<std::string> builds;
    for (const auto& [ver, syms] : c.builds) builds.push_back(TorchDirectory(other, ver, syms));
    CheckOptions o = NoHost();
    o.with_installed_build = true;
    absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, builds, o);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->matrix.recommendation.label, c.want) << r->matrix.recommendation.summary;
  }
}

// Issue 55 item 6: an environment with no torch installed yet is checked against builds given
// (the first question of a new environment), and refused without any.
TEST(EnvTest, AnEnvironmentWithoutTorchIsCheckedAgainstBuildsGiven) {
  Venv v;
  fs::remove_all(v.site + "/torch-2.9.1.dist-info");
  fs::remove_all(v.site + "/torch");
  TempDir other;
  absl::StatusOr<EnvironmentReport> r = AgainstTwoTorchDirectories(v, other);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->torch_version, "");
  // Every package's objects are checked (not taken for torch's, as with no torch directory).
  const EnvironmentPackage* bad = Package(*r, "bad");
  ASSERT_NE(bad, nullptr);
  ASSERT_EQ(bad->modules.size(), 2u);
  EXPECT_EQ(r->matrix.cells[bad->modules[0] * 2 + 1].report.verdict(), Verdict::kFails);
  EXPECT_EQ(r->matrix.recommendation.label, "torch 2.10.0") << r->matrix.recommendation.summary;
  EXPECT_TRUE(r->matrix.recommendation.every_module_loads);
  EXPECT_THAT(RenderEnvironmentText(*r, false), HasSubstr("\n  no torch installed\n"));
  EXPECT_THAT(CheckEnvironment(v.root, {}, NoHost()),
              StatusIs(absl::StatusCode::kNotFound, "no torch installed here"));
}

// Issue 55 item 4: --suggest names torch builds; a requirement on another package is refused,
// naming it.
TEST(EnvTest, SuggestTakesOnlyTorchRequirements) {
  Venv v;
  std::string why;
  for (const std::string req : {"torchvision>=0.28", "markupsafe==3.0.3"}) {
    absl::StatusOr<std::string> s = SuggestTorchBuilds(v.root, req, &why);
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                            ", not on torch: the builds suggested are torch's"))
        << req;
  }
  absl::StatusOr<std::string> s = SuggestTorchBuilds(v.root, ">=2.8", &why);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, "pip:torch>=2.8");
}

// A build whose own libraries need what the environment does not have (a CUDA 12 torch in a
// CUDA 13 environment: libcudart.so.12): whether import torch succeeds there cannot be told, nor
// whether a module that loads through torch does — never "loads" (docs/loader-model.md C2c). A
// package that does not touch torch stands, and the recommendation does not rest on the unknown.
TEST(EnvTest, ABuildWhoseOwnDependenciesAreMissingIsUnknown) {
  Venv v;
  v.Dist("plain", "1.0", "", {{"plain/_ext.so", Mod({}, {})}});
  TempDir other;
  const std::string t = "torch-2.10.0/torch/";
  fs::create_directories(other.path() + "/" + t + "lib");
  other.Write(t + "lib/libc10.so",
              Lib("libc10.so", {"c10_kept", "c10_gone"}, {"libcudart_x.so.12"}));
  other.Write(t + "_C.cpython-312-x86_64-linux-gnu.so", Mod({"libc10.so"}, {"c10_kept"}));
  other.Write(t + "version.py", "__version__ = '2.10.0'\n");
  absl::StatusOr<EnvironmentReport> r =
      CheckEnvironment(v.root, {other.path() + "/" + t}, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->torch_imports.size(), 1u);
  EXPECT_EQ(r->torch_imports[0].verdict(), Verdict::kUnknown)
      << RenderText(r->torch_imports[0], false);
  EXPECT_THAT(r->torch_imports[0].unknown_because, ElementsAre("libcudart_x.so.12"));
  const EnvironmentPackage* good = Package(*r, "good");
  const EnvironmentPackage* plain = Package(*r, "plain");
  ASSERT_NE(good, nullptr);
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(r->matrix.cells[good->modules[0]].report.verdict(), Verdict::kUnknown);
  EXPECT_EQ(r->matrix.cells[plain->modules[0]].report.verdict(), Verdict::kLoads);
  EXPECT_EQ(r->verdict(), Verdict::kUnknown);
  EXPECT_FALSE(r->loads());
  EXPECT_THAT(RenderEnvironmentText(*r, false),
              HasSubstr("import torch with torch 2.10.0: CANNOT TELL (libcudart_x.so.12 not "
                        "given)"));
}

// Issue 37: pip records data files outside site-packages (intel-openmp's
// ../../../lib/libiomp5.so); a path shorter than site-packages' own aborted env
// (std::out_of_range), a longer one gave a meaningless label. They are the environment's own
// objects, named by their path in its prefix.
TEST(EnvTest, ObjectsARecordPlacesOutsideSitePackagesAreNamedByTheirPath) {
  Venv v;
  v.Dist("intel-openmp", "1.0", "",
         {{"../../../lib/libiomp5.so", Lib("libiomp5.so", {"omp_get_num_threads"})},
          {"../../../share/mkl/some_more_name/libmkl_x.so.2", Lib("libmkl_x.so.2", {"m"})}});
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {}, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  const EnvironmentPackage* omp = Package(*r, "intel-openmp");
  ASSERT_NE(omp, nullptr);
  ASSERT_EQ(omp->modules.size(), 2u);
  std::vector<std::string> labels;
  for (size_t row : omp->modules) labels.push_back(r->matrix.module_info[row].label);
  EXPECT_THAT(labels, ::testing::UnorderedElementsAre("lib/libiomp5.so",
                                                      "share/mkl/some_more_name/libmkl_x.so.2"));
  for (size_t row : omp->modules) EXPECT_EQ(r->matrix.cells[row].report.verdict(), Verdict::kLoads);
}

TEST(EnvTest, StableAbiObjectsAndTheOldestBuildTheyLoadOn) {
  // E8: torch_* / aoti_torch_* C shim references only -> stable, and the oldest build given that
  // exports them all; any mangled c10::/at::/torch:: reference -> unstable.
  Venv v;
  v.Dist("shimmed", "1.0", "", {{"shimmed/_C.so", Mod({"libc10.so"}, {"torch_list_size"})}});
  v.Dist("cxx", "1.0", "",
         {{"cxx/_C.so", Mod({"libc10.so"}, {"torch_list_size", "_ZN3c106detail4failEv"})}});
  TempDir other;
  for (const auto& [ver, syms] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"2.9.0", {"c10_kept"}},
           {"2.10.0", {"c10_kept", "torch_list_size", "_ZN3c106detail4failEv"}},
           {"2.12.0", {"c10_kept", "torch_list_size"}}}) {
    const std::string t = "torch-" + ver + "/torch/";
    fs::create_directories(other.path() + "/" + t + "lib");
    other.Write(t + "lib/libc10.so", Lib("libc10.so", syms));
    other.Write(t + "_C.cpython-312-x86_64-linux-gnu.so", Mod({"libc10.so"}, {"c10_kept"}));
  }
  absl::StatusOr<EnvironmentReport> r =
      CheckEnvironment(v.root,
                       {other.path() + "/torch-2.12.0/torch", other.path() + "/torch-2.9.0/torch",
                        other.path() + "/torch-2.10.0/torch"},
                       NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  const Matrix& m = r->matrix;
  const size_t shimmed = Package(*r, "shimmed")->modules[0], cxx = Package(*r, "cxx")->modules[0];
  EXPECT_EQ(m.module_info[shimmed].torch_abi, TorchAbi::kStable);
  EXPECT_EQ(m.module_info[shimmed].stable_since, other.path() + "/torch-2.10.0/torch")
      << "2.9.0 lacks the shim function; 2.10.0 is older than 2.12.0";
  EXPECT_EQ(m.module_info[cxx].torch_abi, TorchAbi::kUnstable);
  EXPECT_EQ(m.module_info[cxx].stable_since, "");
  EXPECT_THAT(m.cells[cxx * 3].report.torch_cxx_examples, ElementsAre("c10::detail::fail()"));
  EXPECT_EQ(m.module_info[Package(*r, "good")->modules[0]].torch_abi, TorchAbi::kNoTorch);
  EXPECT_THAT(RenderEnvironmentText(*r, false),
              HasSubstr("stable ABI: shimmed/_C.so uses torch only through its stable C shim "
                        "(its shim functions: from torch-2.10.0 on, of the builds given)"));
  EXPECT_THAT(RenderEnvironmentText(*r, false), Not(HasSubstr("loads on torch from")))
      << "the stable-ABI line is no verdict: the table says whether it loads (issue 36)";
  EXPECT_THAT(r->matrix.recommendation.summary,
              HasSubstr("torch-2.10.0/torch leaves the fewest failing, 1 of 4: bad"));
}

// Issue 36 item 13: a system Python (Debian's /usr/bin/python3 -> python3.12), whose packages are
// in lib/python3/dist-packages, is an environment (it was "not a Python environment").
TEST(EnvTest, ASystemPythonWithDistPackages) {
  Venv v;
  const std::string dist = v.root + "/lib/python3/dist-packages";
  fs::create_directories(v.root + "/lib/python3");
  fs::rename(v.site, dist);
  fs::remove(v.root + "/pyvenv.cfg");
  fs::create_directories(v.root + "/bin");
  v.d.Write("venv/bin/python3.12", "ELF");
  fs::create_symlink("python3.12", v.root + "/bin/python3");
  v.d.Write("venv/lib/python3.12/os.py", "# the standard library\n");
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root + "/bin/python3", {}, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->site_packages, dist);
  EXPECT_EQ(r->python_version, "3.12");
  ASSERT_NE(Package(*r, "good"), nullptr);
  EXPECT_TRUE(r->matrix.cells[Package(*r, "good")->modules[0]].report.loads);
  // The prefix itself names the same environment.
  absl::StatusOr<EnvironmentReport> by_prefix = CheckEnvironment(v.root, {}, NoHost());
  ASSERT_TRUE(by_prefix.ok()) << by_prefix.status();
  EXPECT_EQ(by_prefix->site_packages, dist);
}

// Issue 37 item 18: a FIFO or a device is said as what it is (it was "No such file or directory").
TEST(EnvTest, AFifoOrADeviceIsNoEnvironment) {
  TempDir d;
  ASSERT_EQ(::mkfifo((d.path() + "/fifo").c_str(), 0600), 0);
  EXPECT_THAT(
      CheckEnvironment(d.path() + "/fifo", {}, NoHost()),
      StatusIs(absl::StatusCode::kFailedPrecondition, "fifo: not a Python environment (a FIFO)"));
  EXPECT_THAT(CheckEnvironment("/dev/zero", {}, NoHost()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "/dev/zero: not a Python environment (a character device)"));
}

// Issue 36 item 5a: env --against INDEX (documented) was refused whole — "an index holds what a
// library exports, not its relocations" (torch/_C). The packages are checked against the index's
// exports; import torch, whose relocations the index does not keep, cannot be told: unknown, said.
TEST(EnvTest, AgainstAnIndexChecksThePackagesAndCannotTellImportTorch) {
  Venv v;
  TempDir other;
  TwoTorchDirectories(other);
  const std::string idx = other.path() + "/torch.abix";
  ASSERT_TRUE(BuildIndex({other.path() + "/torch-2.9.0/torch"}, {"torch-2.9.0"}, idx).ok());
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {idx}, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->torch_imports.size(), 1u);
  EXPECT_EQ(r->torch_imports[0].verdict(), Verdict::kUnknown);
  EXPECT_THAT(
      RenderText(r->torch_imports[0], false),
      HasSubstr("an index keeps what torch's libraries export, not torch/_C's relocations"));
  const Report& bad = r->matrix.cells[Package(*r, "bad")->modules[0]].report;
  ASSERT_EQ(bad.problems.size(), 1u) << RenderText(bad, false);
  EXPECT_EQ(bad.problems[0].symbol, "c10_gone") << "checked against the index's exports";
  EXPECT_EQ(r->verdict(), Verdict::kFails);
}

// Issue 37 items 16 and 19: RECORD lines end as Python's csv module ends them (a bare CR left
// good's module unowned); a path with a NUL byte is no file name (bad's module was counted twice);
// a RECORD over the text cap says so (it read "missing or unreadable").
TEST(EnvTest, RecordLineEndingsNulBytesAndSize) {
  Venv v;
  v.Put("good-1.0.dist-info/RECORD", "good-1.0.dist-info/RECORD,,\rgood/_ext.so,sha256=abc,10\r");
  std::string record = "bad/_ext.so,,\nbad/lib/libbadhelper.so,,\n";
  record += std::string("bad/_ext.so") + '\0' + "x.so,,\n";
  v.Put("bad-2.0.dist-info/RECORD", record);
  absl::StatusOr<PythonEnvironment> env = ReadPythonEnvironment(v.root, ReadLimits{});
  ASSERT_TRUE(env.ok()) << env.status();
  const InstalledDistribution& bad = env->distributions[0];
  const InstalledDistribution& good = env->distributions[1];
  ASSERT_EQ(good.metadata.name, "good");
  EXPECT_THAT(good.shared_objects, ElementsAre(v.site + "/good/_ext.so"));
  EXPECT_THAT(bad.shared_objects,
              ElementsAre(v.site + "/bad/_ext.so", v.site + "/bad/lib/libbadhelper.so"));
  EXPECT_THAT(bad.problems, ElementsAre(HasSubstr("RECORD lists a path with a NUL byte")));

  v.Put("bad-2.0.dist-info/RECORD", std::string((size_t{16} << 20) + 1, '#'));
  env = ReadPythonEnvironment(v.root, ReadLimits{});
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_THAT(env->distributions[0].problems,
              ElementsAre(HasSubstr("RECORD: 16777217 bytes, over the 16 MiB abicheck reads")));
}

TEST(EnvTest, BadEnvironments) {
  TempDir d;
  EXPECT_THAT(CheckEnvironment(d.path() + "/nothing", {}, NoHost()),
              StatusIs(absl::StatusCode::kNotFound, "nothing: No such file or directory"));
  fs::create_directories(d.path() + "/empty");
  EXPECT_THAT(CheckEnvironment(d.path() + "/empty", {}, NoHost()),
              StatusIs(absl::StatusCode::kNotFound, "no lib/pythonX.Y/site-packages here"));
  {
    Venv v;
    fs::remove_all(v.site + "/torch-2.9.1.dist-info");
    absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {}, NoHost());
    EXPECT_THAT(r, StatusIs(absl::StatusCode::kNotFound, "no torch installed here"));
    EXPECT_EQ(ExitCodeForStatus(r.status()), kExitBadInput);
  }
  {
    Venv v;
    v.Put("torch-2.10.0.dist-info/METADATA", "Name: torch\nVersion: 2.10.0\n");
    EXPECT_THAT(CheckEnvironment(v.root, {}, NoHost()),
                StatusIs(absl::StatusCode::kFailedPrecondition, "several torch installs"));
  }
  {
    Venv v;
    v.Put("../../../pyvenv.cfg", "version_info = 3.11.4\n");
    EXPECT_THAT(CheckEnvironment(v.root, {}, NoHost()),
                StatusIs(absl::StatusCode::kFailedPrecondition, "pyvenv.cfg names Python 3.11"));
  }
  {
    Venv v;
    fs::remove(v.site + "/good-1.0.dist-info/RECORD");
    fs::remove(v.site + "/bad-2.0.dist-info/METADATA");
    absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {}, NoHost());
    ASSERT_TRUE(r.ok()) << r.status();
    const EnvironmentPackage* good = Package(*r, "good");
    ASSERT_NE(good, nullptr);
    EXPECT_THAT(good->problems, ElementsAre(HasSubstr("RECORD: missing or unreadable")));
    const EnvironmentPackage* unowned = Package(*r, "(no package)");
    ASSERT_NE(unowned, nullptr) << "good/_ext.so is still checked, as no package's";
    ASSERT_EQ(unowned->modules.size(), 1u);
    EXPECT_EQ(r->matrix.modules[unowned->modules[0]], v.site + "/good/_ext.so");
    const EnvironmentPackage* bad = Package(*r, "bad");
    ASSERT_NE(bad, nullptr) << "named from its directory";
    EXPECT_EQ(bad->version, "2.0");
    EXPECT_THAT(bad->problems, ::testing::Contains(HasSubstr("METADATA: missing or unreadable")));
  }
  {
    // The venv's interpreter is for another machine than its torch: nothing can load.
    Venv v;
    ElfBuilder py;
    py.machine = 183;  // EM_AARCH64
    py.type = 2;       // ET_EXEC
    py.syms.push_back({"Py_Initialize"});
    v.Put("../../../bin/python3.12", py.Build());
    absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {}, NoHost());
    EXPECT_THAT(r, StatusIs(absl::StatusCode::kFailedPrecondition,
                            "_C.cpython-312-x86_64-linux-gnu.so: built for x86-64, but the "
                            "environment's interpreter"));
  }
  {
    Venv v;
    v.Put("torch/lib/libc10.so", std::string("not an ELF file, and named .so"));
    // torch's library is now unreadable as ELF: a directory skips it, so _C misses libc10.so.
    absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {}, NoHost());
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->torch_imports[0].loads);
  }
}

// `env --against WHEEL` asks what happens if that torch is installed here: the wheel and what its
// Requires-Dist pins, laid over the environment as pip would leave it (docs/loader-model.md E11)
// — a pinned distribution installed at another version is replaced (its files gone, the new
// ones in their place), one not installed is added, what is not pinned stays.
TEST(EnvTest, AgainstAWheelIsTheWorldPipWouldMakeHere) {
  Venv v;
  v.Dist("helper", "1.0", "",
         {{"helper/libhelper.so", Lib("libhelper.so", {"helper_old"})},
          {"helper/libgone.so", Lib("libgone.so", {"gone"})}});
  auto with_rpath = [](std::vector<std::string> needed, std::vector<std::string> refs) {
    ElfBuilder b;
    b.needed = std::move(needed);
    b.rpath = "$ORIGIN/../helper";
    for (size_t i = 0; i < refs.size(); ++i) {
      b.syms.push_back({refs[i], false});
      b.relocs.push_back(static_cast<uint32_t>(i + 1));
    }
    b.syms.push_back({"PyInit_mod"});
    return b.Build();
  };
  v.Dist("user", "1.0", "",
         {{"user/_new.so", with_rpath({"libhelper.so"}, {"helper_new"})},
          {"user/_gone.so", with_rpath({"libgone.so"}, {"gone"})}});
  TempDir wheels;
  ElfBuilder c10;
  c10.soname = "libc10.so";
  c10.needed = {"libcudart_like.so.99"};
  c10.rpath = "$ORIGIN/../../nvidia/rt/lib";
  c10.syms.push_back({"c10_kept"});
  const std::string torch = testing::WriteZip(
      wheels, "torch-9.0.0-cp312-cp312-manylinux_2_28_x86_64.whl",
      {{"torch-9.0.0.dist-info/METADATA",
        Bytes("Metadata-Version: 2.1\nName: torch\nVersion: 9.0.0\n"
              "Requires-Dist: nvidia-rt-cu99==1.2.3; platform_system == \"Linux\"\n"
              "Requires-Dist: helper==2.0\n\n")},
       {"torch/version.py", Bytes("__version__ = '9.0.0'\n")},
       {"torch/lib/libc10.so", c10.Build()},
       {"torch/_C.cpython-312-x86_64-linux-gnu.so", Mod({"libc10.so"}, {"c10_kept"})}});
  testing::WriteZip(wheels, "helper-2.0-py3-none-any.whl",
                    {{"helper-2.0.dist-info/METADATA",
                      Bytes("Metadata-Version: 2.1\nName: helper\nVersion: 2.0\n\n")},
                     {"helper/libhelper.so", Lib("libhelper.so", {"helper_new"})}});
  auto check = [&] { return CheckEnvironment(v.root, {torch}, NoHost()); };
  {  // The runtime it pins is not given: import torch cannot be told, never "loads".
    absl::StatusOr<EnvironmentReport> r = check();
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->torch_imports[0].verdict(), Verdict::kUnknown)
        << RenderText(r->torch_imports[0], false);
    EXPECT_THAT(r->build_changes.at(0), HasSubstr("not given: nvidia-rt-cu99==1.2.3"));
  }
  testing::WriteZip(wheels, "nvidia_rt_cu99-1.2.3-py3-none-manylinux2014_x86_64.whl",
                    {{"nvidia_rt_cu99-1.2.3.dist-info/METADATA",
                      Bytes("Metadata-Version: 2.1\nName: nvidia-rt-cu99\nVersion: 1.2.3\n\n")},
                     {"nvidia/rt/lib/libcudart_like.so.99", Lib("libcudart_like.so.99", {})}});
  absl::StatusOr<EnvironmentReport> r = check();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->torch_imports[0].verdict(), Verdict::kLoads)
      << RenderText(r->torch_imports[0], false);
  EXPECT_EQ(r->build_changes.at(0),
            "replaces torch 2.9.1 -> 9.0.0, helper 1.0 -> 2.0; adds 1: nvidia-rt-cu99 1.2.3");
  const std::string text_report = RenderEnvironmentText(*r, false);
  EXPECT_THAT(text_report,
              HasSubstr("installing torch 9.0.0 here: replaces torch 2.9.1 -> 9.0.0, helper 1.0 "
                        "-> 2.0; adds 1: nvidia-rt-cu99 1.2.3\n"));
  // helper is part of what the build installs: no row of its own.
  EXPECT_EQ(Package(*r, "helper"), nullptr) << text_report;
  const EnvironmentPackage* user = Package(*r, "user");
  ASSERT_NE(user, nullptr);
  for (size_t row : user->modules) {
    const Report& cell = r->matrix.cells[row].report;
    if (absl::EndsWith(r->matrix.modules[row], "_new.so")) {
      EXPECT_EQ(cell.verdict(), Verdict::kLoads) << "helper 2.0's libhelper.so, not 1.0's\n"
                                                 << RenderText(cell, false);
    } else {
      EXPECT_EQ(cell.verdict(), Verdict::kFails) << "pip removes helper 1.0's libgone.so\n"
                                                 << RenderText(cell, false);
      EXPECT_THAT(RenderText(cell, false),
                  HasSubstr("import fails with: libgone.so: cannot open shared object file"));
    }
  }
}

// E12: over an environment, a library the build's own object finds among the environment's
// files, where a wheel it pins and that is not given may install the same path (a CUDA 12 cuDNN
// left where the CUDA 13 one installs), is not known to be the install's: import torch cannot
// be told. A file of a distribution that satisfies one of its pins is kept by pip, and decides.
TEST(EnvTest, AFileAWheelNotGivenMayReplaceDecidesNothing) {
  auto torch_wheel = [](const TempDir& wheels, const std::string& pins, bool preloads) {
    ElfBuilder c10;
    c10.soname = "libc10.so";
    c10.needed = {"libcudnn_like.so.9"};
    c10.rpath = "$ORIGIN/../../nvidia/cudnn/lib";
    c10.syms.push_back({"c10_kept"});
    std::vector<testing::Member> members = {
        {"torch-9.0.0.dist-info/METADATA",
         Bytes("Metadata-Version: 2.1\nName: torch\nVersion: 9.0.0\n" + pins + "\n")},
        {"torch/version.py", Bytes("__version__ = '9.0.0'\ncuda = '13.0'\n")},
        {"torch/lib/libc10.so", c10.Build()},
        {"torch/_C.cpython-312-x86_64-linux-gnu.so", Mod({"libc10.so"}, {"c10_kept"})}};
    if (preloads) {
      members.push_back({"torch/lib/libtorch_global_deps.so", Lib("libtorch_global_deps.so", {})});
      members.push_back({"torch/__init__.py", Bytes(R"(
def _preload_cuda_deps(err: OSError | None = None, required: bool = True) -> None:
    cuda_libs: list[tuple[str, str]] = [
        ("cudnn", "libcudnn_like.so.*[0-9]"),
    ]
    for lib_folder, lib_name in cuda_libs:
        _preload_cuda_lib(lib_folder, lib_name, required=required)
def _load_global_deps() -> None:
    try:
        ctypes.CDLL(global_deps_lib_path, mode=ctypes.RTLD_GLOBAL)
        _preload_cuda_deps(required=False)
    except OSError as err:
        pass
)")});
    }
    return testing::WriteZip(wheels, "torch-9.0.0-cp312-cp312-manylinux_2_28_x86_64.whl", members);
  };
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> cudnn = {
      {"nvidia/cudnn/lib/libcudnn_like.so.9", Lib("libcudnn_like.so.9", {})}};
  for (bool preloads : {false, true}) {
    SCOPED_TRACE(preloads ? "preloaded by import torch" : "found through libc10's RPATH");
    {  // A CUDA 12 cuDNN the build does not pin: the CUDA 13 one it pins may replace its file.
      Venv v;
      v.Dist("nvidia-cudnn-cu12", "9.1", "", cudnn);
      TempDir wheels;
      const std::string torch =
          torch_wheel(wheels, "Requires-Dist: nvidia-cudnn-cu13==9.2", preloads);
      absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {torch}, NoHost());
      ASSERT_TRUE(r.ok()) << r.status();
      const Report& import = r->torch_imports.at(0);
      EXPECT_EQ(import.verdict(), Verdict::kUnknown) << RenderText(import, false);
      EXPECT_THAT(import.unknown_because, ElementsAre("nvidia-cudnn-cu13==9.2"));
      EXPECT_THAT(RenderText(import, false),
                  HasSubstr(preloads ? "import torch preloads nvidia/cudnn/lib/libcudnn_like.so.9, "
                                       "a file of the environment, which the wheels the build "
                                       "pins and that are not given (nvidia-cudnn-cu13==9.2) may "
                                       "replace"
                                     : "/nvidia/cudnn/lib/libcudnn_like.so.9, a file of the "
                                       "environment, which the wheels the build pins and that are "
                                       "not given (nvidia-cudnn-cu13==9.2) may replace"));
    }
    // The installed cuDNN satisfies the pin: pip keeps its file. Another pin not given changes
    // nothing it rests on.
    Venv v;
    v.Dist("nvidia-cudnn-cu13", "9.2", "", cudnn);
    TempDir wheels;
    const std::string torch = torch_wheel(
        wheels, "Requires-Dist: nvidia-cudnn-cu13==9.2\nRequires-Dist: other==1.0", preloads);
    absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {torch}, NoHost());
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_THAT(r->build_changes.at(0), HasSubstr("not given: other==1.0"));
    EXPECT_EQ(r->torch_imports.at(0).verdict(), Verdict::kLoads)
        << RenderText(r->torch_imports.at(0), false);
  }
}

// A torch wheel of `version` in `wheels` whose METADATA pins helper==`helper_version` (E11: a
// build that keeps the installed helper, or replaces it).
std::string TorchWheelPinningHelper(const TempDir& wheels, const std::string& version,
                                    const std::string& helper_version) {
  return testing::WriteZip(
      wheels, "torch-" + version + "-cp312-cp312-manylinux_2_28_x86_64.whl",
      {{"torch-" + version + ".dist-info/METADATA",
        Bytes("Metadata-Version: 2.1\nName: torch\nVersion: " + version +
              "\nRequires-Dist: helper==" + helper_version + "\n\n")},
       {"torch/version.py", Bytes("__version__ = '" + version + "'\n")},
       {"torch/lib/libc10.so", Lib("libc10.so", {"c10_kept"})},
       {"torch/_C.cpython-312-x86_64-linux-gnu.so", Mod({"libc10.so"}, {"c10_kept"})}});
}

// Issue 32 item 4: a failure no torch choice fixes (a system library such as FFmpeg's
// libavutil.so.60 missing with every build) is said apart from those the choice decides.
// A package one build replaces with the version it pins and another keeps (triton, E11) has a
// row per installed file; what the pinned version installs besides (triton 3.7's plugins/) is
// checked with them. When one of those would not load, the rows that load with that build are
// unknown, naming it — not "loads" on the files that happened to have rows.
TEST(EnvTest, WhatAReplacementInstallsBesidesItsRowsIsChecked) {
  Venv v;
  v.Dist("helper", "1.0", "", {{"helper/libhelper.so", Lib("libhelper.so", {"helper_api"})}});
  TempDir wheels;
  const std::string keeps = TorchWheelPinningHelper(wheels, "9.0.0", "1.0");
  const std::string replaces = TorchWheelPinningHelper(wheels, "9.1.0", "2.0");
  auto helper_wheel = [&](std::vector<uint8_t> plugin) {
    testing::WriteZip(wheels, "helper-2.0-py3-none-any.whl",
                      {{"helper-2.0.dist-info/METADATA",
                        Bytes("Metadata-Version: 2.1\nName: helper\nVersion: 2.0\n\n")},
                       {"helper/libhelper.so", Lib("libhelper.so", {"helper_api"})},
                       {"helper/plugins/libplugin.so", std::move(plugin)}});
  };
  auto helper_cells = [&](const EnvironmentReport& r) {
    const EnvironmentPackage* helper = Package(r, "helper");
    EXPECT_NE(helper, nullptr) << "kept by one build: a row";
    std::vector<const Report*> cells;
    if (helper == nullptr || helper->modules.size() != 1) return cells;
    for (size_t b = 0; b < 2; ++b)
      cells.push_back(&r.matrix.cells[helper->modules[0] * 2 + b].report);
    return cells;
  };
  helper_wheel(Lib("libplugin.so", {"p"}, {"libhelper.so"}));
  {
    absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {keeps, replaces}, NoHost());
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<const Report*> cells = helper_cells(*r);
    ASSERT_EQ(cells.size(), 2u);
    EXPECT_EQ(cells[0]->verdict(), Verdict::kLoads) << RenderText(*cells[0], false);
    EXPECT_EQ(cells[1]->verdict(), Verdict::kLoads) << RenderText(*cells[1], false);
  }
  helper_wheel(Lib("libplugin.so", {"p"}, {"libnowhere.so"}));
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {keeps, replaces}, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<const Report*> cells = helper_cells(*r);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0]->verdict(), Verdict::kLoads) << "torch 9.0.0 keeps helper 1.0";
  EXPECT_EQ(cells[1]->verdict(), Verdict::kUnknown) << RenderText(*cells[1], false);
  EXPECT_THAT(RenderText(*cells[1], false),
              HasSubstr("installing torch 9.1.0 replaces helper with the version it pins, which "
                        "also installs "));
  EXPECT_THAT(RenderText(*cells[1], false),
              HasSubstr("helper-2.0-py3-none-any.whl!helper/plugins/libplugin.so, which would not "
                        "load: libnowhere.so: cannot open shared object file"));
}

// E11: a file the installed version has and the replacing version does not install is gone
// once pip installs the build: nothing loads it. Its row is "not installed" with that build —
// not unknown, which would count against the build (triton 3.7 drops a file 3.6 has: the
// recommendation then fell to an older torch), and not "loads".
TEST(EnvTest, ARowTheReplacementDoesNotInstallDecidesNothing) {
  Venv v;
  v.Dist("helper", "1.0", "",
         {{"helper/libhelper.so", Lib("libhelper.so", {"helper_api"})},
          {"helper/libold.so", Lib("libold.so", {"old_api"}, {"libhelper.so"})}});
  TempDir wheels;
  const std::string keeps = TorchWheelPinningHelper(wheels, "9.0.0", "1.0");
  const std::string replaces = TorchWheelPinningHelper(wheels, "9.1.0", "2.0");
  testing::WriteZip(wheels, "helper-2.0-py3-none-any.whl",
                    {{"helper-2.0.dist-info/METADATA",
                      Bytes("Metadata-Version: 2.1\nName: helper\nVersion: 2.0\n\n")},
                     {"helper/libhelper.so", Lib("libhelper.so", {"helper_api"})}});
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {keeps, replaces}, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  const EnvironmentPackage* helper = Package(*r, "helper");
  ASSERT_NE(helper, nullptr);
  ASSERT_EQ(helper->modules.size(), 2u);
  const size_t old_row = r->matrix.modules[helper->modules[0]] == v.site + "/helper/libold.so"
                             ? helper->modules[0]
                             : helper->modules[1];
  ASSERT_EQ(r->matrix.modules[old_row], v.site + "/helper/libold.so");
  const Report& kept = r->matrix.cells[old_row * 2].report;
  const Report& gone = r->matrix.cells[old_row * 2 + 1].report;
  EXPECT_EQ(kept.verdict(), Verdict::kLoads) << RenderText(kept, false);
  EXPECT_EQ(gone.verdict(), Verdict::kNotInstalled) << RenderText(gone, false);
  EXPECT_FALSE(gone.loads);
  EXPECT_TRUE(gone.unknown_because.empty());
  // It decides nothing: helper loads with both builds, nothing is unknown (the exit code), and
  // both builds leave only `bad` failing (with the row unknown, 9.1.0 failed helper too). The
  // tie goes to the build that replaces fewer installed packages (docs/suggest.md): 9.0.0 keeps
  // helper 1.0, 9.1.0 replaces it.
  for (const MatrixCell& c : r->matrix.cells)
    EXPECT_NE(c.report.verdict(), Verdict::kUnknown) << RenderText(c.report, false);
  const Recommendation& rec = r->matrix.recommendation;
  EXPECT_EQ(rec.label, "torch 9.0.0") << rec.summary;
  EXPECT_EQ(rec.unknown_modules, 0) << rec.summary;
  EXPECT_THAT(rec.summary, HasSubstr("leaves the fewest failing, 1 of 3: bad;"));
  absl::StatusOr<std::string> json = Render(*r, {Format::kJson});
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("\"verdict\": \"not_installed\""));
  absl::StatusOr<std::string> junit = Render(r->matrix, {Format::kJunit});
  ASSERT_TRUE(junit.ok()) << junit.status();
  EXPECT_THAT(*junit, HasSubstr("<skipped message=\"not installed with this build\"/>"));
  absl::StatusOr<std::string> table = Render(*r, {Format::kText});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table, Not(HasSubstr("CANNOT TELL")));
  EXPECT_THAT(*table, ContainsRegex("helper +1\\.0 +pins no torch +loads +loads"));
  EXPECT_THAT(*table, Not(HasSubstr("libold.so (helper) with")));  // nothing to explain
}

// E12: a build that replaces a package by a version whose wheel is not given leaves its rows
// unknown, naming the requirement — not "not installed", and not without a row when every build
// replaces it: what that version installs was not read.
TEST(EnvTest, AReplacementNotGivenLeavesItsRowsUnknown) {
  Venv v;
  v.Dist("helper", "1.0", "", {{"helper/libhelper.so", Lib("libhelper.so", {"helper_api"})}});
  TempDir wheels;
  const std::string keeps = TorchWheelPinningHelper(wheels, "9.0.0", "1.0");
  const std::string replaces = TorchWheelPinningHelper(wheels, "9.1.0", "2.0");
  for (const std::vector<std::string>& against :
       {std::vector<std::string>{keeps, replaces}, std::vector<std::string>{replaces}}) {
    absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, against, NoHost());
    ASSERT_TRUE(r.ok()) << r.status();
    const EnvironmentPackage* helper = Package(*r, "helper");
    ASSERT_NE(helper, nullptr) << RenderEnvironmentText(*r, false);
    ASSERT_EQ(helper->modules.size(), 1u);
    const size_t nb = against.size();
    const Report& cell = r->matrix.cells[helper->modules[0] * nb + nb - 1].report;
    EXPECT_EQ(cell.verdict(), Verdict::kUnknown) << RenderText(cell, false);
    EXPECT_THAT(cell.unknown_because, ElementsAre("helper==2.0"));
    EXPECT_THAT(RenderText(cell, false),
                HasSubstr("installing torch 9.1.0 replaces helper with the version it requires "
                          "(helper==2.0), whose wheel is not given"));
    if (nb == 2) {
      EXPECT_EQ(r->matrix.cells[helper->modules[0] * nb].report.verdict(), Verdict::kLoads);
    }
  }
}

TEST(EnvTest, AFailureNoTorchFixesIsSaidApart) {
  Venv v;
  v.Dist("media", "1.0", "", {{"media/_ext.so", Mod({"libavutil_x.so.60"}, {})}});
  TempDir other;
  TwoTorchDirectories(other);
  const std::vector<std::string> builds = {other.path() + "/torch-2.10.0/torch",
                                           other.path() + "/torch-2.9.0/torch"};
  absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, builds, NoHost());
  ASSERT_TRUE(r.ok()) << r.status();
  const Recommendation& rec = r->matrix.recommendation;
  EXPECT_EQ(rec.label, "torch 2.10.0");
  EXPECT_THAT(rec.fail_with_every_build, ElementsAre("media"));
  EXPECT_THAT(rec.summary,
              HasSubstr("leaves the fewest failing, 1 of 3: media; 1 of them fails with every "
                        "build given, the same way, so no torch choice fixes it: media "
                        "(libavutil_x.so.60: cannot open shared object file"));
  // The same in a matrix of modules: `bad` is decided by the choice, `media` is not.
  absl::StatusOr<Matrix> m =
      CheckMatrix({v.site + "/media/_ext.so", v.site + "/bad/_ext.so"}, builds, NoHost());
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->recommendation.failing_modules, 1);
  EXPECT_THAT(m->recommendation.fail_with_every_build, ElementsAre(v.site + "/media/_ext.so"));
  EXPECT_THAT(m->recommendation.summary, HasSubstr("so no torch choice fixes it"));
}

// Issue 32 item 5 (E7): the first error is the one the import meets. auditwheel's vendored
// libraries (`vis.libs/`) are loaded only as what another object needs — `import vis` loads
// _C.so first, whose libcudart_x.so.12 no search reaches: that is its error, not an undefined
// symbol met once image.so had brought the vendored copy in by its hashed name. And a module
// that names one of its package's own libraries (codec's libcore.so, which its Python code loads
// first) is judged once that library loaded.
TEST(EnvTest, TheFirstErrorIsTheOneTheImportMeets) {
  Venv v;
  ElfBuilder cudart;
  cudart.soname = "libcudart_x.so.12";
  cudart.syms.push_back({"cudaMalloc_x"});
  ElfBuilder image;
  image.needed = {"libcudart_x-1a2b3c4d.so.12"};
  image.rpath = "$ORIGIN/../vis.libs";
  image.syms.push_back({"PyInit_image"});
  v.Dist("vis", "0.23", "",
         {{"vis.libs/libcudart_x-1a2b3c4d.so.12", cudart.Build()},
          {"vis/image.so", image.Build()},
          {"vis/_C.so", Mod({"libcudart_x.so.12", "libc10.so"}, {"cudaMalloc_x", "c10_gone"})}});
  ElfBuilder core;
  core.soname = "libcore.so";
  core.needed = {"libc10.so"};
  core.syms.push_back({"core_fn"});
  v.Dist("codec", "1.0", "",
         {{"codec/libcore.so", core.Build()},
          {"codec/_ops.so", Mod({"libcore.so", "libc10.so"}, {"core_fn", "c10_gone"})}});
  for (bool diagnose : {false, true}) {
    CheckOptions o = NoHost();
    o.diagnose = diagnose;
    absl::StatusOr<EnvironmentReport> r = CheckEnvironment(v.root, {}, o);
    ASSERT_TRUE(r.ok()) << r.status();
    auto cell = [&](const std::string& rel) -> const Report& {
      for (size_t i = 0; i < r->matrix.modules.size(); ++i) {
        if (r->matrix.modules[i] == v.site + "/" + rel) return r->matrix.cells[i].report;
      }
      ADD_FAILURE() << rel << " has no row";
      static const Report none;
      return none;
    };
    EXPECT_EQ(cell("vis/image.so").verdict(), Verdict::kLoads);
    EXPECT_THAT(RenderText(cell("vis/_C.so"), false),
                HasSubstr("import fails with: libcudart_x.so.12: cannot open shared object file"))
        << "diagnose=" << diagnose;
    EXPECT_THAT(RenderText(cell("codec/_ops.so"), false),
                HasSubstr("import fails with: " + v.site +
                          "/codec/_ops.so: undefined symbol: "
                          "c10_gone"))
        << "diagnose=" << diagnose;
  }
}

TEST(EnvTest, MetadataAndPreloadsAreReadNotRun) {
  PackageMetadata md = ParseMetadata(
      "Metadata-Version: 2.1\r\nName: torchvision\r\nVersion: 0.24.1\r\n"
      "Requires-Dist: torch (==2.9.1)\r\nRequires-Dist: torchx; extra == 'x'\r\n"
      "Requires-Dist: Torch>=2.10 ; python_version >= \"3.12\"\r\n\r\nRequires-Dist: torch==1\r\n");
  EXPECT_EQ(md.name, "torchvision");
  EXPECT_EQ(md.version, "0.24.1");
  EXPECT_THAT(md.torch_requirements, ElementsAre("torch (==2.9.1)", "Torch>=2.10"));
  EXPECT_EQ(NormalizeDistName("Sgl_Kernel.x"), "sgl-kernel-x");
  // torch 2.9's success path names its preloads; 2.12's calls _preload_cuda_deps() for a list.
  EXPECT_THAT(TorchCudaPreloads(R"(
def _load_global_deps() -> None:
    try:
        ctypes.CDLL(global_deps_lib_path, mode=ctypes.RTLD_GLOBAL)
        try:
            _preload_cuda_deps("cuda_nvrtc", "libnvrtc.so.*[0-9]")
            _preload_cuda_deps("nvjitlink", "libnvJitLink.so.*[0-9]")
        except Exception:
            pass
    except OSError as err:
        cuda_libs = {"cublas": "libcublas.so.*[0-9]"}
)"),
              ElementsAre(CudaPreload{"cuda_nvrtc", "libnvrtc.so.*[0-9]"},
                          CudaPreload{"nvjitlink", "libnvJitLink.so.*[0-9]"}));
  EXPECT_THAT(TorchCudaPreloads(R"(
def _preload_cuda_deps(err: OSError | None = None) -> None:
    cuda_libs: list[tuple[str, str]] = [
        ("cublas", "libcublasLt.so.*[0-9]"),
        ("cudnn", "libcudnn.so.*[0-9]"),
    ]
def _load_global_deps() -> None:
    try:
        ctypes.CDLL(global_deps_lib_path, mode=ctypes.RTLD_GLOBAL)
        _preload_cuda_deps()
    except OSError as err:
        pass
)"),
              ElementsAre(CudaPreload{"cublas", "libcublasLt.so.*[0-9]"},
                          CudaPreload{"cudnn", "libcudnn.so.*[0-9]"}));
  // 2.15 calls it with required=False: every one best-effort (the optional nvtx call always is).
  const char k215[] = R"(
def _preload_cuda_deps(err: OSError | None = None, required: bool = True) -> None:
    cuda_libs: list[tuple[str, str]] = [
        ("cudnn", "libcudnn.so.*[0-9]"),
        ("cuda_runtime", "libcudart.so.*[0-9]"),
    ]
    for lib_folder, lib_name in cuda_libs:
        _preload_cuda_lib(lib_folder, lib_name, required=required)
    _preload_cuda_lib("nvtx", "libnvToolsExt.so.*[0-9]", required=False)
def _load_global_deps() -> None:
    try:
        ctypes.CDLL(global_deps_lib_path, mode=ctypes.RTLD_GLOBAL)
        try:
            _preload_cuda_deps(required=False)
        except Exception:
            pass
    except OSError as err:
        pass
)";
  const std::vector<CudaPreload> best_effort = TorchCudaPreloads(k215);
  EXPECT_THAT(best_effort, ElementsAre(CudaPreload{"cudnn", "libcudnn.so.*[0-9]", false},
                                       CudaPreload{"cuda_runtime", "libcudart.so.*[0-9]", false},
                                       CudaPreload{"nvtx", "libnvToolsExt.so.*[0-9]", false}));
  TempDir d;
  fs::create_directories(d.path() + "/nvidia/cu13/lib");
  fs::create_directories(d.path() + "/nvidia/cuda_runtime/lib");
  d.Write("nvidia/cu13/lib/libcublasLt.so.13", std::string("x"));
  d.Write("nvidia/cuda_runtime/lib/libcudart.so.12", std::string("x"));
  d.Write("nvidia/cu13/lib/libcudart.so.13", std::string("x"));
  EXPECT_THAT(
      ResolveCudaPreloads(d.path(), "13",
                          {{"cublas", "libcublasLt.so.*[0-9]"}, {"cudnn", "libcudnn.so.*[0-9]"}}),
      ElementsAre(d.path() + "/nvidia/cu13/lib/libcublasLt.so.13"));
  // A required one not found (no cudnn) ends the preloading: libcudart is not reached.
  EXPECT_THAT(ResolveCudaPreloads(
                  d.path(), "13",
                  {{"cudnn", "libcudnn.so.*[0-9]"}, {"cuda_runtime", "libcudart.so.*[0-9]"}}),
              ::testing::IsEmpty());
  // Best-effort, it is; and nvidia/<folder>/lib comes before nvidia/cu13/lib (a CUDA 12 runtime
  // left beside a CUDA 13 torch is the one preloaded, as _get_cuda_dep_paths orders them).
  EXPECT_THAT(ResolveCudaPreloads(d.path(), "13", best_effort),
              ElementsAre(d.path() + "/nvidia/cuda_runtime/lib/libcudart.so.12"));
}

}  // namespace
}  // namespace abicheck
