// Golden outputs of the abicheck command on fixtures built at test time: the text and JSON
// reports a user and a CI job read, byte for byte. Regenerate with ABICHECK_UPDATE_GOLDEN=1.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/support/fixtures.h"

namespace fs = std::filesystem;

namespace abicheck {
namespace {

using ::abicheck::testing::BuildScenario;
using ::abicheck::testing::RunShellStdout;
using ::abicheck::testing::Scenario;
using ::abicheck::testing::ShellQuote;

struct GoldenCase {
  std::string scenario;
  std::string format;  // text | json
  int exit_code;
};

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.scenario << " --format " << c.format; }

class GoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenTest, MatchesGoldenFile) {
  const GoldenCase& c = GetParam();
  Scenario sc;
  // A folder per case: ctest runs cases of the same scenario in parallel.
  ASSERT_TRUE(BuildScenario(c.scenario, std::string(ABICHECK_GOLDEN_OUT) + "/" + c.format, &sc)) << sc.log;
  if (sc.skipped) GTEST_SKIP() << sc.log;
  // Paths relative to the scenario folder, as a user in that folder would type them.
  auto rel = [&](const std::string& p) { return fs::relative(p, sc.out).string(); };
  std::string cmd = "cd " + ShellQuote(sc.out) + " && NO_COLOR=1 " + ShellQuote(ABICHECK_TOOL) + " " +
                    ShellQuote(rel(sc.module));
  for (const std::string& p : sc.providers) cmd += " " + ShellQuote(rel(p));
  if (c.format != "text") cmd += " --format " + c.format;
  std::string out;
  const int rc = RunShellStdout(cmd, &out);
  EXPECT_EQ(rc, c.exit_code) << out;
  // Objects found by search are reported by absolute path: make them independent of the checkout.
  for (size_t at; (at = out.find(sc.out)) != std::string::npos;) out.replace(at, sc.out.size(), "$FIXTURE");
  const fs::path golden = fs::path(ABICHECK_GOLDEN_DIR) / (c.scenario + "." + c.format);
  if (std::getenv("ABICHECK_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << out;
    GTEST_SKIP() << "wrote " << golden;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with ABICHECK_UPDATE_GOLDEN=1";
  EXPECT_EQ(out, ReadFile(golden)) << "golden: " << golden;
}

INSTANTIATE_TEST_SUITE_P(
    Cli, GoldenTest,
    ::testing::Values(GoldenCase{"headline_signature_change", "text", 1},
                      GoldenCase{"headline_signature_change", "json", 1},
                      GoldenCase{"headline_matching_build", "text", 0},
                      GoldenCase{"cxx11_string_abi", "text", 1},
                      GoldenCase{"defined_in_unlisted_library", "text", 1},
                      GoldenCase{"defined_in_unlisted_library", "json", 1},
                      GoldenCase{"version_not_found", "text", 1},
                      GoldenCase{"version_not_found", "json", 1},
                      GoldenCase{"missing_library_before_symbols", "text", 1},
                      GoldenCase{"removed_data_object", "text", 1},
                      GoldenCase{"undefined_in_dependency_first", "text", 1},
                      GoldenCase{"soname_bump_same_stem", "text", 1},
                      GoldenCase{"soname_bump_same_stem", "json", 1},
                      GoldenCase{"headline_signature_change", "sarif", 1},
                      GoldenCase{"setdevice_signed_char", "text", 1},
                      GoldenCase{"setdevice_signed_char", "sarif", 1},
                      GoldenCase{"cxx11_string_abi", "json", 1},
                      GoldenCase{"cxx11_string_abi", "sarif", 1},
                      GoldenCase{"glibcxx_too_new", "text", 1},
                      GoldenCase{"glibcxx_too_new", "json", 1},
                      GoldenCase{"defined_in_unlisted_library", "sarif", 1},
                      GoldenCase{"removed_data_object", "json", 1},
                      GoldenCase{"cuda_runtime_soname", "text", 1}),
    [](const ::testing::TestParamInfo<GoldenCase>& p) { return p.param.scenario + "_" + p.param.format; });

}  // namespace
}  // namespace abicheck
