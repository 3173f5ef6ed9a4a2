// On real PyTorch builds from Debian's archive (bench/fetch-corpus.sh, bench/make-wheels.sh):
// the answers issue 3 and 4 ask for, and the same answers from wheels and from directories.
// Skipped, with the reason, only when the corpus could not be fetched.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "abicheck/abicheck.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/render.h"
#include "lib/results/results.h"
#include "tests/support/fast_read.h"

namespace fs = std::filesystem;

namespace abicheck {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

const std::string kCorpus = ABICHECK_CORPUS_DIR;
const std::string kLib = "usr/lib/x86_64-linux-gnu";

class CorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path marker = fs::path(kCorpus) / "UNAVAILABLE";
    if (fs::exists(marker)) {
      std::ifstream in(marker);
      std::string why((std::istreambuf_iterator<char>(in)), {});
      GTEST_SKIP() << "the Debian archive could not be reached when fetching the corpus: " << why;
    }
    ASSERT_TRUE(fs::exists(fs::path(kCorpus) / "wheels" / "torch-2.14.1-sid.whl"))
        << "corpus not prepared in " << kCorpus << " (the corpus.prepare test sets it up)";
  }
  static std::string Dir(const std::string& rel) { return kCorpus + "/" + rel; }
  static std::string Wheel(const std::string& name) { return kCorpus + "/wheels/" + name; }
};

CheckOptions ProvidersOf(std::vector<std::string> providers) {
  CheckOptions o;
  o.providers = std::move(providers);
  return o;
}

// kind + mangled symbol / library / version: what must agree between equivalent inputs.
std::set<std::string> Problems(const Report& r) {
  std::set<std::string> s;
  for (const Problem& p : r.problems) {
    std::string lib = p.library.substr(p.library.rfind('/') + 1);
    s.insert(std::string(ProblemKindName(p.kind)) + " " + p.symbol + " " + p.version + " " + lib);
  }
  return s;
}

// What the diagnosis found for each problem, without paths: the candidates' names and the cause.
std::set<std::string> Diagnoses(const Report& r) {
  std::set<std::string> s;
  for (const Problem& p : r.problems) {
    std::string d = p.symbol + " cause=" + p.cause + " candidates:";
    for (const Candidate& c : p.candidates) d += " " + c.symbol + "@" + c.version;
    s.insert(d);
  }
  return s;
}

const Report* Cell(const Matrix& m, const std::string& module_suffix, size_t build) {
  for (size_t i = 0; i < m.modules.size(); ++i) {
    if (m.modules[i].ends_with(module_suffix)) return &m.cells[i * m.builds.size() + build].report;
  }
  return nullptr;
}

std::set<std::string> Symbols(const Report& r, ProblemKind kind) {
  std::set<std::string> s;
  for (const Problem& p : r.problems) {
    if (p.kind == kind) s.insert(p.kind == ProblemKind::kUndefinedSymbol ? p.symbol : p.library);
  }
  return s;
}

TEST_F(CorpusTest, TorchvisionAgainstThreeBuilds) {
  const std::string tv =
      Dir("trixie/python3-torchvision/usr/lib/python3/dist-packages/torchvision");
  absl::StatusOr<Matrix> m =
      CheckMatrix({tv},
                  {Dir("trixie/libtorch2.6/" + kLib), Dir("sid/libtorch-cuda-2.6/" + kLib),
                   Dir("sid/libtorch2.14/" + kLib)},
                  CheckOptions{});
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string c = "/_C.cpython-313-x86_64-linux-gnu.so";
  for (size_t b : {0u, 1u}) {
    const Report* r = Cell(*m, c, b);
    ASSERT_NE(r, nullptr);
    // Every torch reference resolves against both 2.6.0 builds: what remains is the host's
    // libstdc++ being older than the one the module was built with.
    for (const Problem& p : r->problems) {
      EXPECT_TRUE(p.kind == ProblemKind::kVersionNotFound || p.version.rfind("CXXABI_", 0) == 0 ||
                  p.version.rfind("GLIBCXX_", 0) == 0)
          << m->builds[b] << ": " << p.message;
    }
  }
  const Report* r = Cell(*m, c, 2);
  ASSERT_NE(r, nullptr);
  EXPECT_THAT(Symbols(*r, ProblemKind::kMissingLibrary),
              IsSupersetOf({"libc10.so.2.6", "libtorch_cpu.so.2.6"}));
  EXPECT_THAT(Symbols(*r, ProblemKind::kUndefinedSymbol),
              IsSupersetOf({"_ZN5torch8autograd10deleteNodeEPNS0_4NodeE",
                            "_ZNR5torch7Library4_defEON3c1014FunctionSchemaEPNS1_"
                            "12OperatorNameERKSt6vectorIN2at3TagESaIS8_EENS_17_RegisterOrVerifyE",
                            "_ZNR5torch7Library4_defEOSt7variantIJN3c1012OperatorNameENS2_"
                            "14FunctionSchemaEEEONS_11CppFunctionERKSt6vectorIN2at3TagESaISB_EE"}));
  bool wrap_outputs = false;
  for (const Problem& p : r->problems) {
    wrap_outputs = wrap_outputs || p.symbol.rfind("_ZN5torch8autograd13_wrap_outputs", 0) == 0;
    // Issue 4: both _def overloads explained as parameter 3 at::Tag -> torch::headeronly::Tag.
    if (p.symbol.rfind("_ZNR5torch7Library4_def", 0) == 0) {
      ASSERT_FALSE(p.candidates.empty()) << p.demangled;
      EXPECT_EQ(p.candidates[0].relation, Relation::kSignatureChanged);
      EXPECT_THAT(
          DifferenceTexts(p.candidates[0].differences),
          Contains(HasSubstr("parameter 3: std::vector<at::Tag, std::allocator<at::Tag> > const& → "
                             "std::vector<torch::headeronly::Tag")));
    }
    if (p.symbol == "_ZN5torch8autograd10deleteNodeEPNS0_4NodeE") {
      EXPECT_TRUE(p.candidates.empty()) << "deleteNode was removed: no candidate";
    }
  }
  EXPECT_TRUE(wrap_outputs);
}

TEST_F(CorpusTest, HostLibstdcxxTooOld) {
  // On Debian 12 the host's libstdc++ stops at GLIBCXX_3.4.30: trixie's modules need 3.4.32.
  std::ifstream probe("/lib/x86_64-linux-gnu/libstdc++.so.6", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(probe)), {});
  if (bytes.find("GLIBCXX_3.4.32") != std::string::npos)
    GTEST_SKIP() << "this host's libstdc++ is new enough";
  absl::StatusOr<Report> r =
      Check(Dir("trixie/python3-torchvision/usr/lib/python3/dist-packages/torchvision/"
                "_C.cpython-313-x86_64-linux-gnu.so"),
            ProvidersOf({Dir("trixie/libtorch2.6/" + kLib)}));
  ASSERT_TRUE(r.ok()) << r.status();
  std::set<std::string> versions;
  for (const Problem& p : r->problems) {
    if (p.kind == ProblemKind::kVersionNotFound) versions.insert(p.version);
  }
  EXPECT_THAT(versions, IsSupersetOf({"GLIBCXX_3.4.32", "CXXABI_1.3.15"}));
  ASSERT_FALSE(r->problems.empty());
  EXPECT_THAT(r->problems[0].message,
              HasSubstr("libstdc++.so.6: version `GLIBCXX_3.4.32' not found"));
  EXPECT_THAT(r->problems[0].hint, HasSubstr("provides up to GLIBCXX_3.4.30"));
}

TEST_F(CorpusTest, WheelsAndDirectoriesGiveTheSameAnswers) {
  const std::string tv_dir =
      Dir("trixie/python3-torchvision/usr/lib/python3/dist-packages/torchvision");
  absl::StatusOr<Matrix> dirs =
      CheckMatrix({tv_dir}, {Dir("trixie/libtorch2.6/" + kLib), Dir("sid/libtorch2.14/" + kLib)},
                  CheckOptions{});
  absl::StatusOr<Matrix> wheels =
      CheckMatrix({Wheel("torchvision-0.21.0-trixie.whl")},
                  {Wheel("torch-2.6.0-trixie.whl"), Wheel("torch-2.14.1-sid.whl")}, CheckOptions{});
  ASSERT_TRUE(dirs.ok()) << dirs.status();
  ASSERT_TRUE(wheels.ok()) << wheels.status();
  ASSERT_EQ(dirs->cells.size(), wheels->cells.size());
  for (size_t i = 0; i < dirs->cells.size(); ++i) {
    EXPECT_EQ(dirs->cells[i].report.loads, wheels->cells[i].report.loads) << dirs->cells[i].module;
    EXPECT_EQ(Problems(dirs->cells[i].report), Problems(wheels->cells[i].report))
        << dirs->cells[i].module << " vs " << wheels->cells[i].module << " against "
        << wheels->cells[i].build;
  }
}

TEST_F(CorpusTest, IndexGivesTheSameAnswers) {
  const std::string index = kCorpus + "/test-two-builds.abix";
  absl::StatusOr<IndexSummary> built =
      BuildIndex({Wheel("torch-2.6.0-trixie.whl"), Dir("sid/libtorch2.14/" + kLib)},
                 {"torch-2.6.0", "torch-2.14.1"}, index);
  ASSERT_TRUE(built.ok()) << built.status();
  absl::StatusOr<Matrix> from_index =
      CheckMatrix({Wheel("torchvision-0.21.0-trixie.whl")}, {index}, CheckOptions{});
  absl::StatusOr<Matrix> from_wheels =
      CheckMatrix({Wheel("torchvision-0.21.0-trixie.whl")},
                  {Wheel("torch-2.6.0-trixie.whl"), Wheel("torch-2.14.1-sid.whl")}, CheckOptions{});
  ASSERT_TRUE(from_index.ok()) << from_index.status();
  ASSERT_TRUE(from_wheels.ok()) << from_wheels.status();
  ASSERT_EQ(from_index->builds.size(), 2u) << "an index of two builds is two columns";
  ASSERT_EQ(from_index->cells.size(), from_wheels->cells.size());
  for (size_t i = 0; i < from_index->cells.size(); ++i) {
    EXPECT_EQ(Problems(from_index->cells[i].report), Problems(from_wheels->cells[i].report))
        << from_index->cells[i].build;
    EXPECT_EQ(Diagnoses(from_index->cells[i].report), Diagnoses(from_wheels->cells[i].report))
        << from_index->cells[i].build;
    EXPECT_EQ(from_index->cells[i].report.references_checked,
              from_wheels->cells[i].report.references_checked);
    EXPECT_EQ(from_index->cells[i].report.providers_string_abi,
              from_wheels->cells[i].report.providers_string_abi);
  }
  // And a single build of it, as plain providers.
  absl::StatusOr<Report> one =
      Check(Dir("trixie/python3-torchvision/usr/lib/python3/dist-packages/torchvision/"
                "_C.cpython-313-x86_64-linux-gnu.so"),
            ProvidersOf({index + "#torch-2.14.1"}));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(Symbols(*one, ProblemKind::kUndefinedSymbol),
              Contains("_ZN5torch8autograd10deleteNodeEPNS0_4NodeE"));
}

// --fast decodes the end of a large member from the end of its deflate stream
// (lib/io/deflate_tail.h): every byte it keeps is the one a whole inflate gives, and the CUDA
// build's libtorch_cuda.so and libtorch_cpu.so are read that way.
TEST_F(CorpusTest, FastReadsTheBytesAWholeInflateGives) {
  const testing::FastReadCount all = testing::ExpectFastReadsExactIn(kCorpus + "/wheels");
  EXPECT_GE(all.compared, 2u);
  EXPECT_GE(all.from_the_end, 2u);
}

TEST_F(CorpusTest, EveryModuleAgainstEveryBuild) {
  std::vector<std::string> modules, builds;
  for (const char* w : {"torchvision-0.14.1-bookworm.whl", "torchvision-0.21.0-trixie.whl",
                        "torchvision-0.27.0-sid.whl", "torchaudio-2.6.0-trixie.whl",
                        "torch_scatter-2.1.2-trixie.whl"}) {
    modules.push_back(Wheel(w));
  }
  for (const char* w :
       {"torch-1.13.1-bookworm.whl", "torch-2.6.0-trixie.whl", "torch-2.14.1-sid.whl"})
    builds.push_back(Wheel(w));
  if (fs::exists(Wheel("torch-2.6.0+cuda-sid.whl")))
    builds.push_back(Wheel("torch-2.6.0+cuda-sid.whl"));
  absl::StatusOr<Matrix> m = CheckMatrix(modules, builds, CheckOptions{});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->cells.size(), m->modules.size() * builds.size());
  // Bookworm's torchvision 0.14 was built for bookworm's torch 1.13.1, on this host's toolchain:
  // it loads there, and misses libc10.so.1.13 against 2.14.1.
  const std::string bookworm_c =
      "torchvision-0.14.1-bookworm.whl!torchvision/_C.cpython-311-x86_64-linux-gnu.so";
  const Report* ok = Cell(*m, bookworm_c, 0);
  const Report* bad = Cell(*m, bookworm_c, 2);
  ASSERT_NE(ok, nullptr);
  ASSERT_NE(bad, nullptr);
  EXPECT_TRUE(ok->loads) << RenderText(*ok, false);
  EXPECT_FALSE(bad->loads);
  EXPECT_THAT(Symbols(*bad, ProblemKind::kMissingLibrary), Contains("libc10.so.1.13"));
  // And the JSON of the whole matrix keeps kind and symbol for every problem.
  const std::string json = RenderMatrixJson(*m);
  EXPECT_THAT(json, HasSubstr("\"kind\": \"missing_library\""));
  EXPECT_THAT(json, HasSubstr("\"symbol\": \"_ZN5torch8autograd10deleteNodeEPNS0_4NodeE\""));
}

TEST_F(CorpusTest, DiffBetweenReleases) {
  absl::StatusOr<AbiDiff> d =
      DiffBuilds(Dir("trixie/libtorch2.6/" + kLib), Dir("sid/libtorch2.14/" + kLib));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->breaking());
  bool delete_node_removed = false, def_changed = false;
  for (const LibraryDiff& l : d->libraries) {
    for (const ExportChange& c : l.removed)
      delete_node_removed |= c.symbol == "_ZN5torch8autograd10deleteNodeEPNS0_4NodeE";
    for (const ExportChange& c : l.changed) {
      if (c.symbol.rfind("_ZNR5torch7Library4_def", 0) == 0) {
        def_changed = true;
        EXPECT_THAT(DifferenceTexts(c.differences),
                    Contains(HasSubstr("parameter 3: std::vector<at::Tag")));
      }
    }
  }
  EXPECT_TRUE(delete_node_removed);
  EXPECT_TRUE(def_changed);
}

}  // namespace
}  // namespace abicheck
