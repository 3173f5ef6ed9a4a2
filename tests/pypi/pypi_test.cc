// Real PyPI wheels and the environments built from them (tests/pypi/make-venvs.sh): the headline
// break of sgl-kernel 0.3.21 on the real torch releases, and the same answers from wheels and
// from an index of them. Skipped, saying why, only when the corpus could not be fetched.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/render.h"
#include "lib/results/results.h"
#include "tests/support/base_names.h"
#include "tests/support/fast_read.h"

namespace abicheck {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

class PypiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path unavailable = fs::path(cache_) / "UNAVAILABLE";
    if (fs::exists(unavailable)) {
      std::ifstream in(unavailable);
      std::stringstream why;
      why << in.rdbuf();
      GTEST_SKIP() << "PyPI corpus unavailable: " << why.str();
    }
  }
  std::string Venv(const std::string& v) const { return cache_ + "/venvs/torch-" + v; }
  // The cached wheel whose file name starts with `prefix`.
  std::string Wheel(const std::string& prefix) const {
    for (const auto& e : fs::directory_iterator(cache_ + "/wheels")) {
      if (e.path().filename().string().rfind(prefix, 0) == 0) return e.path().string();
    }
    ADD_FAILURE() << "no wheel " << prefix << "* in " << cache_ << "/wheels";
    return "";
  }
  CheckOptions Options() const {
    CheckOptions o;
    o.library_path = {cache_ + "/driver-stub"};  // the CUDA toolkit's libcuda.so.1 stub
    return o;
  }
  const std::string cache_ = ABICHECK_PYPI_CACHE;
};

size_t Row(const Matrix& m, const std::string& label) {
  for (size_t i = 0; i < m.module_info.size(); ++i) {
    if (m.module_info[i].label == label) return i;
  }
  ADD_FAILURE() << "no row " << label;
  return 0;
}

// --fast reads the end of a large member from the end of its deflate stream
// (lib/io/deflate_tail.h): on every wheel of the corpus, every byte it keeps is the one a whole
// inflate gives (tests/support/fast_read.h), and torch's largest libraries are read that way.
TEST_F(PypiTest, FastReadsTheBytesAWholeInflateGives) {
  const testing::FastReadCount all = testing::ExpectFastReadsExactIn(cache_ + "/wheels");
  EXPECT_GE(all.compared, 8u);
  EXPECT_GE(all.from_the_end, 4u);  // at least each torch release's libtorch_cuda.so
}

TEST_F(PypiTest, SglKernelLoadsOnTorch291AndBreaksOn2100) {
  absl::StatusOr<EnvironmentReport> r =
      CheckEnvironment(Venv("2.9.1"), {Wheel("torch-2.9.1-"), Wheel("torch-2.10.0-")}, Options());
  ASSERT_TRUE(r.ok()) << r.status();
  const Matrix& m = r->matrix;
  ASSERT_EQ(m.builds.size(), 2u);
  EXPECT_TRUE(r->torch_imports[0].loads) << RenderText(r->torch_imports[0], false);
  EXPECT_TRUE(r->torch_imports[1].loads) << RenderText(r->torch_imports[1], false);
  const size_t row = Row(m, "sgl_kernel/sm90/common_ops.abi3.so");
  EXPECT_THAT(m.module_info[row].torch_requirements, ::testing::IsEmpty())
      << "sgl-kernel 0.3.21 names torch 2.9.1 only in its description";
  const Report& on291 = m.cells[row * 2].report;
  const Report& on2100 = m.cells[row * 2 + 1].report;
  EXPECT_TRUE(on291.loads) << RenderText(on291, false);
  ASSERT_FALSE(on2100.loads);
  bool headline = false;
  for (const Problem& p : on2100.problems) {
    if (p.symbol != "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib") continue;
    headline = true;
    EXPECT_EQ(p.demangled,
              "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)");
    ASSERT_FALSE(p.candidates.empty());
    EXPECT_EQ(p.candidates[0].demangled,
              "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, unsigned "
              "int, bool)");
    EXPECT_THAT(DifferenceTexts(p.candidates[0].differences),
                Contains("parameter 4: int → unsigned int"));
  }
  EXPECT_TRUE(headline) << RenderText(on2100, false);
  // The recommendation is the build with the fewest failing packages, as counted here; among
  // equals 2.9.1, which the installed packages' pins allow and which replaces fewer of them
  // (docs/suggest.md).
  ASSERT_TRUE(m.has_recommendation);
  size_t fail[2] = {0, 0};
  for (const EnvironmentPackage& p : r->packages) {
    for (int b = 0; b < 2; ++b) {
      bool ok = true;
      for (size_t each : p.modules) ok = ok && m.cells[each * 2 + b].report.loads;
      fail[b] += ok ? 0 : 1;
    }
  }
  EXPECT_EQ(m.recommendation.build, m.builds[fail[1] < fail[0] ? 1 : 0]);
  EXPECT_THAT(m.recommendation.summary, HasSubstr(std::to_string(std::min(fail[0], fail[1])) +
                                                  " of " + std::to_string(r->packages.size())));
}

TEST_F(PypiTest, StableAbiModulesNeedTheShimOfTheirTorch) {
  // xformers 0.0.35 (torch>=2.10) is built on torch's stable C shim: on 2.9.1 a shim function it
  // uses does not exist yet; on 2.10.0 it loads.
  absl::StatusOr<EnvironmentReport> r191 = CheckEnvironment(Venv("2.9.1"), {}, Options());
  absl::StatusOr<EnvironmentReport> r210 = CheckEnvironment(Venv("2.10.0"), {}, Options());
  ASSERT_TRUE(r191.ok()) << r191.status();
  ASSERT_TRUE(r210.ok()) << r210.status();
  const Report& old_torch = r191->matrix.cells[Row(r191->matrix, "xformers/_C.so")].report;
  const Report& new_torch = r210->matrix.cells[Row(r210->matrix, "xformers/_C.so")].report;
  ASSERT_FALSE(old_torch.loads);
  EXPECT_THAT(old_torch.problems.front().message, HasSubstr("undefined symbol: torch_"));
  EXPECT_TRUE(new_torch.loads) << RenderText(new_torch, false);
}

std::vector<std::string> Problems(const Report& r) {
  std::vector<std::string> out;
  for (const Problem& p : r.problems) {
    out.push_back(absl::StrCat(ProblemKindName(p.kind), " ", p.symbol, " ", p.version, " ",
                               p.first ? "first" : ""));
  }
  return out;
}

// The issue's own case on a build machine: no NVIDIA driver, no stub of it given. libcuda.so.1 is
// then assumed loaded with torch (C2a), and defines no C++ name (C2b): sgl-kernel's
// c10_cuda_check_implementation(int, ...) still fails against torch 2.10. A virtualenv given as
// the build is the torch installed there, not every shared object of every package in it:
// against 2.15 (CUDA 13), _mscclpp's libcudart.so.12 is missing — torchvision.libs' vendored
// copy is not loaded by import torch.
TEST_F(PypiTest, SglKernelBreaksOn2100WithoutTheDriver) {
  absl::StatusOr<Matrix> m =
      CheckMatrix({Wheel("sgl_kernel-0.3.21-")}, {Venv("2.10.0"), Venv("2.15.0")}, CheckOptions{});
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->builds.size(), 2u);
  const Report& on2100 = m->cells[Row(*m, "sgl_kernel/sm90/common_ops.abi3.so") * 2].report;
  ASSERT_FALSE(on2100.loads) << RenderText(on2100, false);
  EXPECT_THAT(Problems(on2100),
              Contains(HasSubstr("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib")));
  const Report& mscclpp =
      m->cells[Row(*m, "_mscclpp.cpython-310-x86_64-linux-gnu.so") * 2 + 1].report;
  ASSERT_FALSE(mscclpp.loads) << RenderText(mscclpp, false);
  EXPECT_EQ(mscclpp.problems.front().library, "libcudart.so.12");
  for (const MatrixCell& c : m->cells) {
    for (const LoadedLibrary& l : c.report.libraries)
      EXPECT_THAT(l.path, Not(HasSubstr(".libs/"))) << c.module << " x " << c.build;
  }
}

// The seed's question typed plainly: the extension wheel against the torch wheel, nothing else.
// The torch wheel's CUDA wheels sit beside it in the corpus cache: they are laid out as pip
// installs them (docs/loader-model.md E10), and common_ops fails on the headline symbol with its
// nearest candidate; nothing is left unknown but what the driver alone could define (C2b).
TEST_F(PypiTest, SglKernelWheelAgainstTorchWheelFindsItsCudaWheels) {
  CheckOptions o;
  o.use_host = true;
  absl::StatusOr<Matrix> m =
      CheckMatrix({Wheel("sgl_kernel-0.3.21-")}, {Wheel("torch-2.10.0-")}, o);
  ASSERT_TRUE(m.ok()) << m.status();
  const Report& common = m->cells[Row(*m, "sgl_kernel/sm90/common_ops.abi3.so")].report;
  ASSERT_EQ(common.verdict(), Verdict::kFails) << RenderText(common, false);
  bool headline = false;
  for (const Problem& p : common.problems) {
    if (p.symbol != "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib") continue;
    headline = p.first;
    ASSERT_FALSE(p.candidates.empty());
    EXPECT_THAT(DifferenceTexts(p.candidates[0].differences),
                Contains("parameter 4: int → unsigned int"));
  }
  EXPECT_TRUE(headline) << RenderText(common, false);
  for (const MatrixCell& c : m->cells) {
    EXPECT_NE(c.report.verdict(), Verdict::kUnknown) << RenderText(c.report, false);
    for (const std::string& a : c.report.assumed_loaded) EXPECT_EQ(a, "libcuda.so.1") << c.module;
  }
  // _mscclpp needs libcudart.so.12 itself: the runtime wheel's, found by torch's RPATH.
  const Report& mscclpp = m->cells[Row(*m, "_mscclpp.cpython-310-x86_64-linux-gnu.so")].report;
  EXPECT_EQ(mscclpp.verdict(), Verdict::kLoads) << RenderText(mscclpp, false);
  bool runtime = false;
  for (const LoadedLibrary& l : mscclpp.libraries) {
    runtime = runtime || (l.name == "libcudart.so.12" &&
                          l.path.find("nvidia_cuda_runtime_cu12-12.8.90-") != std::string::npos);
  }
  EXPECT_TRUE(runtime) << RenderText(mscclpp, false);
}

// A wheel is checked as pip lays it out (docs/loader-model.md E10): every corpus extension wheel
// that pins a corpus torch release gives, object by object, the verdicts env gives where pip
// installed the two together. torchvision's vendored libpng and libwebp find auditwheel's
// renamed libz and libsharpyuv through their $ORIGIN in torchvision.libs/ (they were FAILS).
TEST_F(PypiTest, AWheelAgainstItsPinnedTorchIsWhatTheInstallSays) {
  size_t compared = 0;
  for (const char* ext : {"torchvision-0.24.1-", "torchaudio-2.9.1-"}) {
    SCOPED_TRACE(ext);
    absl::StatusOr<Matrix> m = CheckMatrix({Wheel(ext)}, {Wheel("torch-2.9.1-")}, Options());
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_THAT(m->module_info.front().torch_requirements, Contains(HasSubstr("2.9.1")));
    absl::StatusOr<EnvironmentReport> env = CheckEnvironment(Venv("2.9.1"), {}, Options());
    ASSERT_TRUE(env.ok()) << env.status();
    for (size_t i = 0; i < m->modules.size(); ++i) {
      const std::string& label = m->module_info[i].label;
      bool found = false;
      for (size_t j = 0; j < env->matrix.module_info.size(); ++j) {
        if (env->matrix.module_info[j].label != label) continue;
        found = true;
        ++compared;
        EXPECT_EQ(VerdictName(m->cells[i].report.verdict()),
                  VerdictName(env->matrix.cells[j].report.verdict()))
            << label << "\nwheel:\n"
            << RenderText(m->cells[i].report, false) << "\ninstalled:\n"
            << RenderText(env->matrix.cells[j].report, false);
      }
      EXPECT_TRUE(found) << label << " is not among the installed objects";
    }
  }
  EXPECT_GE(compared, 12u);
}

// The torch wheel alone in its directory: its CUDA wheels are not given, so what only they could
// define is unknown — never "loads" (C2c) — and the pins are named.
TEST_F(PypiTest, TorchWheelAloneIsUnknown) {
  const fs::path alone = fs::temp_directory_path() / "abicheck_pypi_alone";
  fs::remove_all(alone);
  fs::create_directories(alone);
  const fs::path torch = alone / fs::path(Wheel("torch-2.10.0-")).filename();
  fs::create_symlink(Wheel("torch-2.10.0-"), torch);
  absl::StatusOr<Matrix> m =
      CheckMatrix({Wheel("sgl_kernel-0.3.21-")}, {torch.string()}, CheckOptions{});
  fs::remove_all(alone);
  ASSERT_TRUE(m.ok()) << m.status();
  for (const MatrixCell& c : m->cells)
    EXPECT_NE(c.report.verdict(), Verdict::kLoads) << RenderText(c.report, false);
  const Report& common = m->cells[Row(*m, "sgl_kernel/sm90/common_ops.abi3.so")].report;
  EXPECT_EQ(common.verdict(), Verdict::kUnknown) << RenderText(common, false);
  EXPECT_THAT(common.unknown_because, Contains("libcudart.so.12"));
  std::string notes;
  for (const Warning& n : m->notes) notes += n.message + "\n";
  EXPECT_THAT(notes, HasSubstr("nvidia-cuda-runtime-cu12==12.8.90"));
}

// An index holds a build's own libraries, not the wheels it pins: against it, and against the
// same wheels each alone in a directory, the answers are the same in every cell.
TEST_F(PypiTest, WheelsAndAnIndexOfThemGiveTheSameAnswers) {
  const fs::path alone = fs::temp_directory_path() / "abicheck_pypi_index_alone";
  fs::remove_all(alone);
  std::vector<std::string> builds;
  for (const char* v : {"torch-2.9.1-", "torch-2.10.0-", "torch-2.12.1-", "torch-2.15.0-"}) {
    const fs::path dir = alone / v;
    fs::create_directories(dir);
    builds.push_back((dir / fs::path(Wheel(v)).filename()).string());
    fs::create_symlink(Wheel(v), builds.back());
  }
  const std::vector<std::string> modules = {
      Wheel("sgl_kernel-0.3.21-"), Wheel("torchvision-0.24.1-"), Wheel("xformers-0.0.35-")};
  const std::string index = (fs::temp_directory_path() / "abicheck_pypi_test.abix").string();
  absl::StatusOr<IndexSummary> built = BuildIndex(builds, {}, index);
  ASSERT_TRUE(built.ok()) << built.status();
  CheckOptions o = Options();
  absl::StatusOr<Matrix> from_wheels = CheckMatrix(modules, builds, o);
  absl::StatusOr<Matrix> from_index = CheckMatrix(modules, {index}, o);
  fs::remove(index);
  fs::remove_all(alone);
  ASSERT_TRUE(from_wheels.ok()) << from_wheels.status();
  ASSERT_TRUE(from_index.ok()) << from_index.status();
  ASSERT_EQ(from_index->builds.size(), builds.size()) << "an index of four builds: four columns";
  ASSERT_EQ(from_index->cells.size(), from_wheels->cells.size());
  for (size_t i = 0; i < from_wheels->cells.size(); ++i) {
    const MatrixCell& w = from_wheels->cells[i];
    const MatrixCell& x = from_index->cells[i];
    EXPECT_EQ(w.report.verdict(), x.report.verdict()) << w.module << " x " << w.build;
    EXPECT_EQ(Problems(w.report), Problems(x.report)) << w.module << " x " << w.build;
    EXPECT_EQ(w.report.references_checked, x.report.references_checked) << w.module;
  }
  EXPECT_EQ(from_wheels->recommendation.failing_modules,
            from_index->recommendation.failing_modules);
}

// The diagnosis finds a changed function's candidates through the source names that can be a
// base name only (MayBeBaseName): on every exported function of every corpus torch release's
// libraries, none is missed that a scan of every source name would find.
TEST_F(PypiTest, DiagnosisIndexesEveryBaseName) {
  size_t libraries = 0, functions = 0;
  for (const std::string v : {"2.9.1", "2.10.0", "2.12.1", "2.15.0"}) {
    const fs::path lib = fs::path(Venv(v)) / "lib/python3.12/site-packages/torch/lib";
    ASSERT_TRUE(fs::is_directory(lib)) << lib;
    for (const auto& e : fs::directory_iterator(lib)) {
      if (e.path().extension() != ".so") continue;
      const BaseNameCheck c = CheckBaseNamesIndexed(e.path().string());
      EXPECT_THAT(c.missed, ::testing::IsEmpty()) << e.path();
      ++libraries;
      functions += c.functions;
    }
  }
  EXPECT_GE(libraries, 40u);
  EXPECT_GT(functions, 200000u);  // about 58,000 a release
}

}  // namespace
}  // namespace abicheck
