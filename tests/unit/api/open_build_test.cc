// Issue 13: a build is opened once. A matrix of modules x builds expands each build input once
// and reads an index of several builds once; merging an index reads it once; a Build opened by
// OpenBuild gives the answer Check() gives with the same libraries as providers, from any
// number of threads at once.
#include <filesystem>
#include <thread>

#include "abicheck/abicheck.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/api/build.h"
#include "lib/report/render.h"
#include "lib/util/read_trace.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

constexpr auto Elf = ::abicheck::testing::SmallLibrary;
using ::abicheck::testing::TempDir;

class OpenBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* dir : {"old", "new", "mods"})
      std::filesystem::create_directories(d_.path() + "/" + dir);
    d_.Write("old/libt.so", Elf("libt.so", {}, {"t_fn", "t_old"}, {}));
    d_.Write("new/libt.so", Elf("libt.so", {}, {"t_fn", "t_new"}, {}));
    d_.Write("mods/a.so", Elf("", {"libt.so"}, {"PyInit_a"}, {"t_fn"}));
    d_.Write("mods/b.so", Elf("", {"libt.so"}, {"PyInit_b"}, {"t_old"}));
    d_.Write("mods/c.so", Elf("", {"libt.so"}, {"PyInit_c"}, {"t_new", "t_gone"}));
    options_.use_host = false;
    index_ = d_.path() + "/two.abix";
    absl::StatusOr<IndexSummary> built =
        BuildIndex({d_.path() + "/old", d_.path() + "/new"}, {"old", "new"}, index_, InputLimits{});
    ASSERT_TRUE(built.ok()) << built.status();
  }

  std::vector<std::string> Modules() const {
    return {d_.path() + "/mods/a.so", d_.path() + "/mods/b.so", d_.path() + "/mods/c.so"};
  }

  TempDir d_;
  CheckOptions options_;
  std::string index_;
};

TEST_F(OpenBuildTest, MatrixExpandsEachBuildOnceAndReadsAnIndexOnce) {
  ReadTrace& t = GlobalReadTrace();
  const uint64_t expansions = t.expansions, index_reads = t.index_reads;
  absl::StatusOr<Matrix> m = CheckMatrix(Modules(), {d_.path() + "/old", index_}, options_);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->builds.size(), 3u);  // old, two.abix#old, two.abix#new
  EXPECT_EQ(m->cells.size(), 9u);
  // Three module inputs, the directory and the index: one expansion each, for nine cells.
  EXPECT_EQ(t.expansions - expansions, 5u);
  EXPECT_EQ(t.index_reads - index_reads, 1u);
  // The index's columns are its builds: b loads against old only, c against new only (not
  // t_gone: nowhere).
  EXPECT_TRUE(m->cells[0].report.loads && m->cells[1].report.loads && m->cells[2].report.loads);
  EXPECT_TRUE(m->cells[3].report.loads && m->cells[4].report.loads);
  EXPECT_FALSE(m->cells[5].report.loads);
  EXPECT_FALSE(m->cells[8].report.loads);
}

// A Python environment given as a build is the torch installed there, as `abicheck env` reads
// it (site-packages/torch), not every shared object of every package in it: another package's
// vendored library is not loaded by import torch. The column keeps the name given.
TEST_F(OpenBuildTest, AVirtualenvIsTheTorchInstalledThere) {
  const std::string venv = d_.path() + "/venv", site = venv + "/lib/python3.12/site-packages";
  for (const std::string& dir :
       {site + "/torch/lib", site + "/torch-2.0.0.dist-info", site + "/other.libs"})
    std::filesystem::create_directories(dir);
  d_.Write("venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.1\n");
  d_.Write("venv/lib/python3.12/site-packages/torch-2.0.0.dist-info/METADATA",
           "Metadata-Version: 2.1\nName: torch\nVersion: 2.0.0\n");
  d_.Write("venv/lib/python3.12/site-packages/torch/lib/libt.so", Elf("libt.so", {}, {"t_fn"}, {}));
  d_.Write("venv/lib/python3.12/site-packages/other.libs/libvendored.so",
           Elf("libvendored.so", {}, {"t_old"}, {}));
  for (const std::string& given : {venv, site}) {
    absl::StatusOr<Build> b = OpenBuild(given);
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(b->name(), given);
    EXPECT_EQ(b->library_count(), 1u) << given;
    absl::StatusOr<Report> r = Check(d_.path() + "/mods/b.so", *b, options_);  // needs t_old
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->loads) << given;
  }
  // Without torch it is a directory like any other.
  std::filesystem::remove_all(site + "/torch");
  absl::StatusOr<Build> plain = OpenBuild(venv);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->library_count(), 1u);  // other.libs/libvendored.so
}

TEST_F(OpenBuildTest, MergingAnIndexReadsItOnce) {
  ReadTrace& t = GlobalReadTrace();
  const uint64_t index_reads = t.index_reads;
  absl::StatusOr<IndexSummary> merged =
      BuildIndex({index_, d_.path() + "/new"}, {}, d_.path() + "/merged.abix", InputLimits{});
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(t.index_reads - index_reads, 1u);
  absl::StatusOr<std::vector<Build>> builds = OpenBuilds(d_.path() + "/merged.abix");
  ASSERT_TRUE(builds.ok()) << builds.status();
  ASSERT_EQ(builds->size(), 3u);
  EXPECT_EQ((*builds)[0].name(), d_.path() + "/merged.abix#old");
}

TEST_F(OpenBuildTest, AnOpenedBuildAnswersAsItsLibrariesDoFromManyThreads) {
  absl::StatusOr<Build> build = OpenBuild(d_.path() + "/new");
  ASSERT_TRUE(build.ok()) << build.status();
  EXPECT_EQ(build->library_count(), 1u);
  std::vector<std::string> expected;
  for (const std::string& mod : Modules()) {
    CheckOptions with = options_;
    with.providers = {d_.path() + "/new"};
    absl::StatusOr<Report> r = Check(mod, with);
    ASSERT_TRUE(r.ok()) << r.status();
    expected.push_back(RenderJson(*r));
  }
  EXPECT_THAT(expected[2], ::testing::HasSubstr("t_gone"));
  std::vector<std::vector<std::string>> got(4);
  std::vector<std::thread> threads;
  for (size_t k = 0; k < got.size(); ++k) {
    threads.emplace_back([&, k] {
      for (int round = 0; round < 5; ++round) {
        for (const std::string& mod : Modules()) {
          absl::StatusOr<Report> r = Check(mod, *build, options_);
          got[k].push_back(r.ok() ? RenderJson(*r) : std::string(r.status().message()));
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const std::vector<std::string>& g : got) {
    ASSERT_EQ(g.size(), 15u);
    for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g[i], expected[i % 3]);
  }
  // The build keeps its own library's parse, not the sixty checked modules'.
  EXPECT_EQ(build->state().parses.parsed(), 1u);
  // An index of several builds is one Build each; OpenBuild wants one named.
  EXPECT_FALSE(OpenBuild(index_).ok());
  absl::StatusOr<Build> one = OpenBuild(index_ + "#old");
  ASSERT_TRUE(one.ok()) << one.status();
  absl::StatusOr<Report> b = Check(Modules()[1], *one, options_);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->loads);
}

}  // namespace
}  // namespace abicheck
