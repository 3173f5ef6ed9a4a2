// docs/loader-model.md E7 at scale: CheckMatrix checks every module of a package in one world
// (the package's objects and the build loaded once) with the module's own object set aside. Each
// verdict, problem, warning and diagnosis must be what a world made for that module alone gives.
#include <filesystem>
#include <iterator>
#include <memory>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/api/check_internal.h"
#include "lib/api/findings.h"
#include "lib/inputs/inputs.h"
#include "lib/report/render.h"
#include "lib/resolve/loader.h"
#include "lib/util/paths.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

constexpr auto Elf = ::abicheck::testing::SmallLibrary;
using ::abicheck::testing::TempDir;

class PackageWorldTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* dir : {"pkg", "site/one", "site/one-1.0.dist-info", "site/two", "build"})
      std::filesystem::create_directories(d_.path() + "/" + dir);
    // A package: a library two modules need, modules that fail in several ways, two files of one
    // soname, a module whose nearest candidate is its own definition.
    for (const std::string& at : {std::string("pkg/"), std::string("site/one/")}) {
      d_.Write(at + "libhub.so", Elf("libhub.so", {"libt.so"}, {"hub_fn"}, {"t_fn"}));
      d_.Write(at + "a.so", Elf("", {"libhub.so", "libmissing.so"}, {"PyInit_a"},
                                {"hub_fn", "t_fn", "nowhere_fn"}));
      d_.Write(at + "b.so", Elf("", {"libhub.so"}, {"PyInit_b"}, {"hub_fn"}));
      d_.Write(at + "c.so", Elf("", {"libgone.so", "libt.so"}, {}, {"t_fn2"}));
      d_.Write(at + "d.so", Elf("", {"libt.so"}, {}, {"t_fn"}));
      d_.Write(at + "g.so", Elf("", {}, {"_ZN2ns1fEl"}, {"_ZN2ns1fEi"}));
      d_.Write(at + "libdup.so", Elf("libdup.so", {}, {"dup_fn"}, {}));
      d_.Write(at + "libdup2.so", Elf("libdup.so", {}, {"dup_fn"}, {}));
      d_.Write(at + "e.so", Elf("", {"libdup.so", "libnope.so"}, {}, {"dup_fn", "t_fn"}));
      // The first to walk a build library (its own dependency missing): set aside, its walk
      // would put that failure before the others' in the world's order.
      d_.Write(at + "0first.so", Elf("", {"libt3.so"}, {}, {}));
      // Three that miss one library: each fails on it itself, none warns of the others' need.
      for (const char* h : {"h1.so", "h2.so", "h3.so"})
        d_.Write(at + h, Elf("", {"libshared_gone.so"}, {}, {}));
    }
    // Another package beside them in the site directory: it needs `one`'s libhub (E9).
    d_.Write("site/two/m.so", Elf("", {"libhub.so", "libt.so"}, {}, {"hub_fn"}));
    d_.Write("build/libt3.so", Elf("libt3.so", {"libabsent3.so"}, {"t3_fn"}, {}));
    d_.Write("build/libt.so",
             Elf("libt.so", {"libabsent.so"}, {"t_fn", "_ZN2ns1fEl"}, {"absent_fn"}));
    options_.use_host = false;
  }

  // The module's report from a world made for it alone: its package's other objects, then the
  // build, as CheckMatrix gives them.
  Report Alone(const std::string& input, const std::string& module) {
    absl::StatusOr<ExpandedInput> in = ExpandInput(input, ReadLimits{});
    absl::StatusOr<ExpandedInput> build = ExpandInput(d_.path() + "/build", ReadLimits{});
    EXPECT_TRUE(in.ok() && build.ok());
    const std::vector<std::string> package = PackagesOf(*in);
    std::optional<InputFile> self;
    std::string own;
    for (size_t i = 0; i < in->objects.size(); ++i) {
      if (in->objects[i].name == module) {
        self = in->objects[i];
        own = package[i];
      }
    }
    EXPECT_TRUE(self.has_value()) << module;
    std::vector<InputFile> providers;
    for (size_t i = 0; i < in->objects.size(); ++i) {
      if (package[i] == own && in->objects[i].name != module) providers.push_back(in->objects[i]);
    }
    const size_t own_package = providers.size();
    providers.insert(providers.end(), build->objects.begin(), build->objects.end());
    absl::StatusOr<Report> r = CheckObjects(*self, providers, {}, nullptr, options_,
                                            ModuleAlreadyLoaded::kIsAnError, nullptr, own_package);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : Report{};
  }

  void ExpectEachModuleAsAlone(const std::string& input) {
    absl::StatusOr<Matrix> m = CheckMatrix({input}, {d_.path() + "/build"}, options_);
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_GE(m->cells.size(), 9u);
    int failing = 0, order_dependent = 0;
    for (const MatrixCell& c : m->cells) {
      Report in_matrix = c.report, alone = Alone(input, c.module);
      // E9's mark (another package's library) is the matrix's own, made after the check.
      for (size_t i = 0; i < in_matrix.problems.size() && i < alone.problems.size(); ++i) {
        if (!absl::StartsWith(in_matrix.problems[i].hint, "order-dependent: ")) continue;
        ++order_dependent;
        in_matrix.problems[i].hint = alone.problems[i].hint;
      }
      EXPECT_EQ(RenderJson(in_matrix), RenderJson(alone)) << c.module;
      failing += c.report.loads ? 0 : 1;
    }
    EXPECT_GE(failing, 4) << "a, c, e and g do not load";
    EXPECT_EQ(order_dependent, absl::StrContains(input, "site") ? 1 : 0);
  }

  TempDir d_;
  CheckOptions options_;
};

TEST_F(PackageWorldTest, EachModuleIsReportedAsIfCheckedAlone) {
  ExpectEachModuleAsAlone(d_.path() + "/pkg");
}

TEST_F(PackageWorldTest, EachPackageOfASiteDirectoryHasItsOwnWorld) {
  ExpectEachModuleAsAlone(d_.path() + "/site");
}

// What the package's own objects miss fails their own rows; it is not a dependency "of the given
// libraries ... loaded with them" in every other module's warnings (sgl-kernel: thirteen copies
// of its modules' missing CUDA 12 libraries). What the build's libraries miss still is.
TEST_F(PackageWorldTest, WhatThePackagesOwnObjectsMissIsNotAWarningOfTheOthers) {
  absl::StatusOr<Matrix> m = CheckMatrix({d_.path() + "/pkg"}, {d_.path() + "/build"}, options_);
  ASSERT_TRUE(m.ok()) << m.status();
  int seen = 0;
  for (const MatrixCell& c : m->cells) {
    const std::string base = Basename(c.module);
    if (base != "d.so" && base != "h1.so") continue;
    ++seen;
    std::string warnings;
    for (const Warning& w : c.report.warnings) warnings += w.message + "\n";
    EXPECT_THAT(warnings, ::testing::HasSubstr("libabsent.so (needed by libt.so)")) << base;
    for (const char* own : {"libmissing.so", "libgone.so", "libnope.so", "libshared_gone.so"})
      EXPECT_THAT(warnings, ::testing::Not(::testing::HasSubstr(own))) << base;
    if (base == "h1.so") {
      ASSERT_FALSE(c.report.problems.empty());
      EXPECT_EQ(c.report.problems[0].library, "libshared_gone.so") << "its own row says it";
    }
  }
  EXPECT_EQ(seen, 2);
}

TEST_F(PackageWorldTest, OnlyWhatNothingElseNeedsIsSetAside) {
  absl::StatusOr<ExpandedInput> in = ExpandInput(d_.path() + "/pkg", ReadLimits{});
  ASSERT_TRUE(in.ok());
  LoadFindings refused;
  absl::StatusOr<std::optional<ElfFile>> probe = ProbeModule(in->objects.front(), &refused);
  ASSERT_TRUE(probe.ok() && probe->has_value());
  absl::StatusOr<World> w = PrepareWorld(**probe, in->objects, {}, nullptr, ToLoadOptions(options_),
                                         nullptr, in->objects.size());
  ASSERT_TRUE(w.ok()) << w.status();
  std::vector<std::string> aside, not_aside;
  for (size_t i = 0; i < in->objects.size(); ++i) {
    (w->set_aside_ok[i] ? aside : not_aside).push_back(Basename(in->objects[i].name));
  }
  // libhub: a and b need it; libdup: e binds to it by soname (the first of the two files); a:
  // the first to walk libhub's dependencies (libhub comes later in the load order).
  EXPECT_THAT(not_aside, ::testing::UnorderedElementsAre("a.so", "libhub.so", "libdup.so"));
  EXPECT_THAT(aside, ::testing::Contains("d.so"));
  EXPECT_EQ(aside.size() + not_aside.size(), in->objects.size());
}

// An environment's passes (E7): the package's objects join the providers one at a time, and the
// world is made larger each time where that gives the world made anew of them (ExtendWorld) —
// every module's report, checked in each, is the same as from a new world. Here some are made
// larger (b.so, ...) and some anew: libhub.so is what a.so, a provider by then, missed; libdup2.so
// has libdup.so's soname.
TEST_F(PackageWorldTest, AWorldMadeLargerIsTheWorldMadeAnew) {
  absl::StatusOr<ExpandedInput> in = ExpandInput(d_.path() + "/pkg", ReadLimits{});
  absl::StatusOr<ExpandedInput> build = ExpandInput(d_.path() + "/build", ReadLimits{});
  ASSERT_TRUE(in.ok() && build.ok());
  ParseCache grown_parses, new_parses;
  ReusedWorld grown;
  std::vector<InputFile> providers = build->objects;
  int compared = 0, failing = 0;
  for (size_t k = 0; k <= in->objects.size(); ++k) {
    for (size_t m = k; m < in->objects.size(); ++m) {
      absl::StatusOr<Report> a = grown.Check(in->objects[m], providers, {}, nullptr, options_,
                                             ModuleAlreadyLoaded::kLoads, &grown_parses);
      absl::StatusOr<Report> b = CheckObjects(in->objects[m], providers, {}, nullptr, options_,
                                              ModuleAlreadyLoaded::kLoads, &new_parses);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(RenderJson(*a), RenderJson(*b))
          << Basename(in->objects[m].name) << " with " << k << " of the package's objects";
      ++compared;
      failing += b->loads ? 0 : 1;
    }
    if (k < in->objects.size()) providers.push_back(in->objects[k]);
  }
  EXPECT_GT(compared, 60);
  EXPECT_GT(failing, 10);
  EXPECT_GE(grown.grown(), 4u);
  EXPECT_LT(grown.grown(), in->objects.size()) << "some are made anew";
}

// A world is not made larger by a library one of its providers asked for and missed: made anew,
// that provider finds it (as the given object of that soname) and the module reaches it through
// that provider; made larger, it would have missed it for good.
TEST_F(PackageWorldTest, ALibraryAProviderMissedMakesTheWorldAnew) {
  std::filesystem::create_directories(d_.path() + "/late");
  d_.Write("late/p.so", Elf("libp.so", {"libq.so"}, {"p_fn"}, {"q_fn"}));
  d_.Write("late/q.so", Elf("libq.so", {}, {"q_fn"}, {}));
  d_.Write("late/m.so", Elf("", {"libp.so"}, {}, {"p_fn", "q_fn"}));
  std::vector<InputFile> in;
  for (const char* f : {"p.so", "q.so", "m.so"}) {
    absl::StatusOr<InputFile> i = SingleFile(d_.path() + "/late/" + f, "test input");
    ASSERT_TRUE(i.ok()) << i.status();
    in.push_back(*i);
  }
  ParseCache grown_parses, new_parses;
  ReusedWorld grown;
  std::vector<InputFile> providers{in[0]};
  for (int step = 0; step < 2; ++step) {
    absl::StatusOr<Report> a = grown.Check(in[2], providers, {}, nullptr, options_,
                                           ModuleAlreadyLoaded::kLoads, &grown_parses);
    absl::StatusOr<Report> b = CheckObjects(in[2], providers, {}, nullptr, options_,
                                            ModuleAlreadyLoaded::kLoads, &new_parses);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(RenderJson(*a), RenderJson(*b)) << "with " << providers.size() << " providers";
    EXPECT_EQ(b->verdict(), step == 0 ? Verdict::kFails : Verdict::kLoads);
    providers.push_back(in[1]);
  }
  EXPECT_EQ(grown.grown(), 0u);
}

// Checkpoint() and Rollback() leave the loader as it was: the objects a check loaded are gone,
// the names it gave older objects are taken back, and the object set aside is found again.
TEST(LoaderRollbackTest, UndoesWhatACheckLoadedAndNamed) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/search");
  d.Write("libp.so.1", Elf("libp.so", {}, {"p_fn"}, {}));
  d.Write("search/liby.so", Elf("liby.so", {}, {"y_fn"}, {}));
  d.Write("m.so", Elf("", {"libp.so", "liby.so"}, {}, {"p_fn", "y_fn"}));
  LoadOptions o;
  o.use_host = false;
  o.library_path = {d.path() + "/search"};
  auto input = [&](const std::string& name) {
    absl::StatusOr<ExpandedInput> in = ExpandInput(d.path() + "/" + name, ReadLimits{});
    EXPECT_TRUE(in.ok() && in->objects.size() == 1) << name;
    return in->objects.front();
  };
  const InputFile p = input("libp.so.1"), mod = input("m.so");
  Loader loader(o, 62, true, std::make_shared<const LdCache>());
  absl::StatusOr<Object*> provider = loader.OpenGiven(p, HowFound::kProvider, true);
  ASSERT_TRUE(provider.ok());
  const std::vector<std::string> names = (*provider)->names;
  const Loader::Mark mark = loader.Checkpoint();
  absl::StatusOr<Object*> m = loader.OpenGiven(mod, HowFound::kModule, false);
  ASSERT_TRUE(m.ok());
  std::vector<MapFailure> failures;
  absl::StatusOr<std::vector<const Object*>> list = loader.MapDeps(*m, false, &failures);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 3u) << "m.so, libp.so by soname, liby.so by search";
  EXPECT_TRUE(failures.empty());
  EXPECT_NE(loader.FirstNamed("libp.so"), nullptr) << "the soname became one of its names";
  EXPECT_EQ(std::distance(loader.loaded_since(mark).begin(), loader.loaded_since(mark).end()), 2);
  loader.Rollback(mark);
  EXPECT_EQ(loader.object_count(), 1u);
  EXPECT_EQ((*provider)->names, names);
  EXPECT_EQ(loader.FirstNamed("libp.so"), nullptr);
  EXPECT_EQ(loader.FirstNamed("liby.so"), nullptr);
  // Set aside, the provider is not the given file's object; after the rollback it is again.
  const Loader::Mark again = loader.Checkpoint();
  loader.SetAside(*provider);
  absl::StatusOr<Object*> copy = loader.OpenGiven(p, HowFound::kModule, false);
  ASSERT_TRUE(copy.ok());
  EXPECT_NE(*copy, *provider);
  EXPECT_EQ(std::distance(loader.loaded().begin(), loader.loaded().end()), 1) << "the copy only";
  loader.Rollback(again);
  absl::StatusOr<Object*> same = loader.OpenGiven(p, HowFound::kProvider, true);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, *provider);
  EXPECT_EQ(loader.object_count(), 1u);
}

}  // namespace
}  // namespace abicheck
