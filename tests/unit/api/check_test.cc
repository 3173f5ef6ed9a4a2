// Check() on inputs that are not what they should be, and where the loader model searches: every
// error names the file and the structure.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "abicheck/abicheck.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/api/limits.h"
#include "lib/report/render.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::SmallLibrary;
using ::abicheck::testing::StatusIs;
using ::abicheck::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

CheckOptions NoHost(std::vector<std::string> providers) {
  CheckOptions o;
  o.providers = std::move(providers);
  o.use_host = false;
  return o;
}

// Whether `path` is mapped into this process now.
bool Mapped(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream all;
  all << maps.rdbuf();
  return all.str().find(path) != std::string::npos;
}

// release_at_exit leaves the check's inputs mapped for the process's exit; without it the check
// unmaps them before it returns. The report is the same either way.
// Issue 34: the reading stages take ReadLimits, not the public InputLimits; api/ converts. The
// two keep the same defaults, field for field, and the conversion carries every field.
TEST(LimitsTest, ReadLimitsAreTheInputLimits) {
  const ReadLimits d = ToReadLimits(InputLimits{}), r{};
  EXPECT_EQ(d.max_member_bytes, r.max_member_bytes);
  EXPECT_EQ(d.max_total_inflated, r.max_total_inflated);
  EXPECT_EQ(d.max_members, r.max_members);
  EXPECT_EQ(d.max_files, r.max_files);
  EXPECT_EQ(d.max_depth, r.max_depth);
  EXPECT_EQ(d.threads, r.threads);
  EXPECT_EQ(d.whole_members, r.whole_members);
  EXPECT_EQ(d.verify_crc, r.verify_crc);
  EXPECT_EQ(d.verify_remote, r.verify_remote);
  EXPECT_EQ(d.offline, r.offline);
  InputLimits l;
  l.max_member_bytes = 1;
  l.max_total_inflated = 2;
  l.max_members = 3;
  l.max_files = 4;
  l.max_depth = 5;
  l.threads = 6;
  l.whole_members = true;
  l.verify_crc = false;
  l.verify_remote = true;
  l.offline = true;
  int called = 0;
  l.progress = [&called](uint64_t, uint64_t) { ++called; };
  const ReadLimits c = ToReadLimits(l);
  EXPECT_EQ(c.max_member_bytes, 1u);
  EXPECT_EQ(c.max_total_inflated, 2u);
  EXPECT_EQ(c.max_members, 3u);
  EXPECT_EQ(c.max_files, 4u);
  EXPECT_EQ(c.max_depth, 5);
  EXPECT_EQ(c.threads, 6);
  EXPECT_TRUE(c.whole_members);
  EXPECT_FALSE(c.verify_crc);
  EXPECT_TRUE(c.verify_remote);
  EXPECT_TRUE(c.offline);
  ASSERT_TRUE(c.progress);
  c.progress(1, 2);
  EXPECT_EQ(called, 1);
  // input_progress is the api's own: a reading stage reads one input.
  static_assert(sizeof(InputLimits) == sizeof(ReadLimits) + sizeof(InputLimits::input_progress),
                "a field added to InputLimits is added to ReadLimits and ToReadLimits");
}

TEST(CheckReleaseTest, ReleaseAtExitLeavesTheInputsMapped) {
  TempDir d;
  std::string mod = d.Write("mod.so", SmallLibrary("", {"libp.so"}, {}, {"p_function"}));
  // 2 MiB: above the sizes MappedFile reads into memory instead of mapping (at most 1 MiB).
  std::vector<uint8_t> lib = SmallLibrary("libp.so", {}, {"p_function"}, {});
  lib.resize(size_t{2} << 20);
  std::string prov = d.Write("libp.so", lib);
  absl::StatusOr<Report> freed = Check(mod, NoHost({prov}));
  ASSERT_TRUE(freed.ok()) << freed.status();
  EXPECT_FALSE(Mapped(prov));
  CheckOptions keep = NoHost({prov});
  keep.release_at_exit = true;
  absl::StatusOr<Report> kept = Check(mod, keep);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_TRUE(Mapped(prov));
  EXPECT_TRUE(kept->loads);
  EXPECT_EQ(RenderText(*kept, false), RenderText(*freed, false));
}

// An empty search-path element is the current directory (fillin_rpath), also for the search
// that skips directories it has tried or that do not exist (docs/loader-model.md C7, C8).
TEST(CheckSearchTest, EmptyLibraryPathElementIsTheCurrentDirectory) {
  TempDir d;
  std::string mod = d.Write("mod.so", SmallLibrary("", {"libp.so"}, {}, {"p_function"}));
  d.Write("libp.so", SmallLibrary("libp.so", {}, {"p_function"}, {}));
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(d.path());
  CheckOptions o = NoHost({});
  o.library_path = {"", d.path() + "/nowhere"};
  absl::StatusOr<Report> r = Check(mod, o);
  std::filesystem::current_path(cwd);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->loads) << RenderText(*r, false);
}

// `check libcublas.so.13 /usr/local/cuda/lib64` was exit 3, "is also given as a provider"
// (issue 36): the module found among a directory's libraries is the module, left out of them and
// said; found again as what a provider needs (libcusolver needs libcublas), dlopen returns the
// loaded one: it loads, said as such. Given itself as a provider by name, it stays a usage error.
TEST(CheckSearchTest, TheModuleInsideTheProviderDirectory) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/lib");
  const std::string mod = d.Write(
      "lib/libmod.so", SmallLibrary("libmod.so", {"libp.so"}, {"m"}, {"p_function", "p_gone"}));
  d.Write("lib/libp.so", SmallLibrary("libp.so", {}, {"p_function"}, {}));
  absl::StatusOr<Report> r = Check(mod, NoHost({d.path() + "/lib"}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->loads) << RenderText(*r, false);
  ASSERT_EQ(r->problems.size(), 1u) << RenderText(*r, false);
  EXPECT_EQ(r->problems[0].symbol, "p_gone");
  EXPECT_THAT(RenderText(*r, false), HasSubstr("libmod.so is the module itself: left out"));

  ElfBuilder user;  // a provider that needs the module, found beside it
  user.soname = "libuser.so";
  user.needed = {"libmod.so"};
  user.rpath = "$ORIGIN";
  d.Write("lib/libuser.so", user.Build());
  r = Check(mod, NoHost({d.path() + "/lib"}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->loads) << RenderText(*r, false);
  EXPECT_THAT(RenderText(*r, false), HasSubstr("already loaded (" + d.path() +
                                               "/lib/libuser.so, loaded before it, needs it)"));

  EXPECT_THAT(Check(mod, NoHost({mod, d.path() + "/lib/libp.so"})),
              StatusIs(absl::StatusCode::kInvalidArgument, "is also given as a provider"));
}

// Issue 56: a module against given libraries that cannot load themselves never loads — libc10
// with a reference defined nowhere makes `import torch` fail before any module. In every mode:
// Check with providers, Check against an opened build (the C API's), and the matrix, which says
// it once. A given library that misses a library not given is assumed loaded (C2a), and one the
// module's load does not rely on decides nothing.
TEST(GivenLoadsTest, ALibraryGivenThatCannotLoadFailsTheModule) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/build");
  const std::string mod =
      d.Write("mod.so", SmallLibrary("mod.so", {"libc10.so"}, {"m"}, {"c10_f"}));
  d.Write("build/libc10.so", SmallLibrary("libc10.so", {}, {"c10_f"}, {"nowhere"}));
  d.Write("build/libother.so", SmallLibrary("libother.so", {}, {"o"}, {"elsewhere"}));
  const std::string build = d.path() + "/build";

  absl::StatusOr<Report> r = Check(mod, NoHost({build}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict(), Verdict::kFails) << RenderText(*r, false);
  ASSERT_FALSE(r->problems.empty());
  EXPECT_TRUE(r->problems[0].first);
  EXPECT_EQ(r->problems[0].message, build + "/libc10.so: undefined symbol: nowhere");
  EXPECT_THAT(RenderText(*r, false), HasSubstr("cannot load itself"));
  EXPECT_THAT(RenderText(*r, false), Not(HasSubstr("elsewhere")));

  absl::StatusOr<Build> opened = OpenBuild(build);
  ASSERT_TRUE(opened.ok()) << opened.status();
  CheckOptions o = NoHost({});
  r = Check(mod, *opened, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict(), Verdict::kFails) << RenderText(*r, false);

  absl::StatusOr<Matrix> m = CheckMatrix({mod, mod}, {build}, o);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->cells.size(), 1u);
  EXPECT_EQ(m->cells[0].report.verdict(), Verdict::kFails);
  int said = 0;
  for (const Warning& w : m->notes)
    said += w.message.find("cannot load itself") != std::string::npos;
  EXPECT_EQ(said, 1);

  // What libc10 misses may be in a library it needs that is not given (C2a): the module loads.
  d.Write("build/libc10.so", SmallLibrary("libc10.so", {"libnotgiven.so"}, {"c10_f"}, {"nowhere"}));
  r = Check(mod, NoHost({build}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict(), Verdict::kLoads) << RenderText(*r, false);
}

// Issue 56 (torchcodec): libpython3.X.so.1.0 in DT_NEEDED is the interpreter's (E5a). Without an
// interpreter it is assumed loaded, said once, and leaves nothing unknown; with one that is not
// built shared (its Py* functions in the executable), the search decides, as in that process.
TEST(InterpreterLibraryTest, LibpythonIsTheInterpretersWithoutPython) {
  TempDir d;
  const std::string mod = d.Write(
      "mod.so", SmallLibrary("mod.so", {"libpython3.12.so.1.0"}, {"PyInit_mod"}, {"PyList_New"}));
  absl::StatusOr<Report> r = Check(mod, NoHost({}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict(), Verdict::kLoads) << RenderText(*r, false);
  EXPECT_THAT(RenderText(*r, false), HasSubstr("needs libpython3.12.so.1.0, the Python "
                                               "interpreter's library"));
  EXPECT_TRUE(r->assumed_loaded.empty());

  // A module that also misses a C++ name: it fails; libpython is not where that name may be.
  const std::string misses =
      d.Write("misses.so", SmallLibrary("misses.so", {"libpython3.12.so.1.0"}, {"PyInit_misses"},
                                        {"PyList_New", "_ZN3c104gone"}));
  r = Check(misses, NoHost({}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict(), Verdict::kFails) << RenderText(*r, false);

  CheckOptions o = NoHost({});
  o.python = d.Write("python3.12", SmallLibrary("", {}, {"PyList_New"}, {}));
  r = Check(mod, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict(), Verdict::kFails) << RenderText(*r, false);
  ASSERT_FALSE(r->problems.empty());
  EXPECT_THAT(r->problems[0].message,
              ::testing::StartsWith("libpython3.12.so.1.0: cannot open shared object file"));
}

// A search that found nothing is remembered with the directories it tried (a build's libraries
// ask for the same missing soname many times), never as the answer for another object's search
// path: libb finds libx in its RUNPATH after liba did not find it in its own, and libc_again,
// searched between them along liba's directories, misses it as liba did.
TEST(CheckSearchTest, AMissedSearchIsNotTheAnswerAlongOtherDirectories) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/empty");
  std::filesystem::create_directories(d.path() + "/x");
  d.Write("x/libx.so", SmallLibrary("libx.so", {}, {"x_function"}, {}));
  ElfBuilder a;
  a.soname = "liba.so";
  a.needed = {"libx.so"};
  a.runpath = d.path() + "/empty";
  d.Write("liba.so", a.Build());
  ElfBuilder b = a;
  b.soname = "libb.so";
  b.runpath = d.path() + "/x";
  d.Write("libb.so", b.Build());
  ElfBuilder c = a;  // the same directories as liba: the same miss
  c.soname = "libc_again.so";
  d.Write("libc_again.so", c.Build());
  ElfBuilder m;
  m.needed = {"liba.so", "libc_again.so", "libb.so"};
  m.syms = {{"x_function", false}};
  m.relocs = {1};
  CheckOptions o = NoHost({});
  o.library_path = {d.path()};
  absl::StatusOr<Report> r = Check(d.Write("mod.so", m.Build()), o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->loads);
  std::vector<std::string> missing;
  for (const Problem& p : r->problems) {
    if (p.kind == ProblemKind::kMissingLibrary) missing.push_back(p.object + " " + p.message);
  }
  EXPECT_THAT(missing, ::testing::ElementsAre(
                           HasSubstr("liba.so libx.so: cannot open shared object file: No such"),
                           HasSubstr("libc_again.so libx.so: cannot open shared object file")))
      << RenderText(*r, false);
  bool loaded = false;
  for (const LoadedLibrary& l : r->libraries) loaded |= l.path == d.path() + "/x/libx.so";
  EXPECT_TRUE(loaded) << RenderText(*r, false);
}

// The given libraries' own missing dependencies are one warning, worded by their number.
TEST(CheckSearchTest, MissingDependenciesOfTheGivenLibrariesAreOneWarning) {
  TempDir d;
  std::string mod = d.Write("mod.so", SmallLibrary("", {"libp.so"}, {}, {"p_function"}));
  std::string one = d.Write("libp.so", SmallLibrary("libp.so", {"liba.so"}, {"p_function"}, {}));
  std::string two =
      d.Write("libq.so", SmallLibrary("libp.so", {"liba.so", "libb.so"}, {"p_function"}, {}));
  std::vector<std::string> texts;
  for (const std::string& provider : {one, two}) {
    absl::StatusOr<Report> r = Check(mod, NoHost({provider}));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->loads);
    ASSERT_EQ(r->warnings.size(), 1u) << RenderText(*r, false);
    texts.push_back(r->warnings[0].message);
  }
  EXPECT_EQ(texts[0],
            "1 dependency of the given libraries not found here, so not checked (it was loaded "
            "with them): liba.so (needed by libp.so). Give it too (or --sysroot) to check symbols "
            "it defines.");
  EXPECT_EQ(texts[1],
            "2 dependencies of the given libraries not found here, so not checked (they were "
            "loaded with them): liba.so (needed by libq.so), libb.so (needed by libq.so). Give "
            "them too (or --sysroot) to check symbols they define.");
}

// A library the providers load but that is not among the files (C2a) may define what no file
// does — except that the NVIDIA driver, libcuda.so.1, defines no C++ name (C2b): a C++ reference
// no file defines fails on the GPU machine, with or without the driver here; a C one is left to
// the driver, and the verdict stands. Any other such library may define either: the verdict is
// unknown (C2c), never "loads".
TEST(AssumedLibraryTest, TheCudaDriverDefinesNoCxxName) {
  for (const std::string driver : {"libcuda.so.1", "libnvidia-ml.so.1", "libfoo.so.1"}) {
    TempDir d;
    const std::string mod =
        d.Write("mod.so", SmallLibrary("", {"libp.so", driver}, {},
                                       {"p_function", "_ZN3c104cuda5checkEi", "cuInit"}));
    const std::string prov =
        d.Write("libp.so", SmallLibrary("libp.so", {driver}, {"p_function"}, {}));
    absl::StatusOr<Report> r = Check(mod, NoHost({prov}));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_THAT(r->assumed_loaded, ::testing::ElementsAre(driver));
    if (driver != "libfoo.so.1") {
      EXPECT_THAT(r->driver_libraries, ::testing::ElementsAre(driver));
      EXPECT_FALSE(r->loads);
      ASSERT_EQ(r->problems.size(), 1u) << RenderText(*r, false);
      EXPECT_EQ(r->problems[0].kind, ProblemKind::kUndefinedSymbol);
      EXPECT_EQ(r->problems[0].symbol, "_ZN3c104cuda5checkEi");
      EXPECT_EQ(r->driver_references, 1);  // cuInit
      EXPECT_EQ(r->unverified_references, 0);
      EXPECT_EQ(r->verdict(), Verdict::kFails);
    } else {
      EXPECT_FALSE(r->loads) << RenderText(*r, false);
      EXPECT_TRUE(r->problems.empty()) << RenderText(*r, false);
      EXPECT_EQ(r->verdict(), Verdict::kUnknown);
      EXPECT_EQ(r->unverified_references, 2);
      EXPECT_EQ(r->driver_references, 0);
      EXPECT_THAT(r->unknown_because, ::testing::ElementsAre(driver));
    }
  }
}

// Issue 37: a reference nested 30,000 deep (120 KB) crashed every command that demangles it
// (check even with --no-diagnose, symbols -C, diff, index). Now the report has it, demangled on a
// stack that grows with the name, and the diagnosis and the listing read it too.
TEST(CheckInputTest, ADeeplyNestedNameDoesNotCrash) {
  std::string deep = "_Z1fI";
  for (int i = 0; i < 30000; ++i) deep += "1AI";
  deep += "i";
  for (int i = 0; i < 30000; ++i) deep += "E";
  deep += "Evv";
  TempDir d;
  const std::string mod = d.Write("mod.so", SmallLibrary("", {"libp.so"}, {}, {deep}));
  const std::string prov = d.Write("libp.so", SmallLibrary("libp.so", {}, {deep + "x"}, {}));
  for (bool diagnose : {false, true}) {
    CheckOptions o = NoHost({prov});
    o.diagnose = diagnose;
    absl::StatusOr<Report> r = Check(mod, o);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->problems.size(), 1u);
    EXPECT_EQ(r->problems[0].demangled.substr(0, 16), "void f<A<A<A<A<A");
  }
  SymbolListOptions listing;
  listing.demangle = true;
  absl::StatusOr<std::vector<SymbolRow>> rows = ListSymbols(prov, listing);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_FALSE(rows->empty());
  EXPECT_EQ(rows->back().name, deep + "x");
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

// Issue 55: every library the NVIDIA driver installs is the driver's (C2b), needed by the module
// itself or by a provider: absent here, it is assumed present as on the GPU machine — not a
// missing library for libnvidia-ml.so.1 while libcuda.so.1 passes. Said once in the text.
TEST(CheckInputTest, TheDriversLibrariesAreAssumedPresent) {
  TempDir d;
  ElfBuilder m;
  m.needed = {"libcuda.so.1", "libnvidia-ml.so.1", "libnvidia-ptxjitcompiler.so.1"};
  absl::StatusOr<Report> r = Check(d.Write("mod.so", m.Build()), NoHost({}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->problems.empty()) << RenderText(*r, false);
  EXPECT_EQ(r->verdict(), Verdict::kLoads);
  EXPECT_THAT(r->driver_libraries, ::testing::ElementsAre("libcuda.so.1", "libnvidia-ml.so.1",
                                                          "libnvidia-ptxjitcompiler.so.1"));
  const std::string text = RenderText(*r, false);
  EXPECT_THAT(text, HasSubstr("depends on libcuda.so.1, libnvidia-ml.so.1, "
                              "libnvidia-ptxjitcompiler.so.1: the GPU driver's, assumed present"));
  EXPECT_EQ(text.find("depends on"), text.rfind("depends on")) << text;
  // A library whose name only starts like the driver's is not one of them.
  ElfBuilder n;
  n.needed = {"libcudart.so.13"};
  r = Check(d.Write("mod2.so", n.Build()), NoHost({}));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_EQ(r->problems[0].kind, ProblemKind::kMissingLibrary);
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

}  // namespace
}  // namespace abicheck
