// Golden outputs of the abicheck command on fixtures built at test time: the text and JSON
// reports a user and a CI job read, byte for byte. Regenerate with ABICHECK_UPDATE_GOLDEN=1.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
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

void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.scenario << " --format " << c.format;
}

class GoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenTest, MatchesGoldenFile) {
  const GoldenCase& c = GetParam();
  Scenario sc;
  // A folder per case: ctest runs cases of the same scenario in parallel.
  ASSERT_TRUE(BuildScenario(c.scenario, std::string(ABICHECK_GOLDEN_OUT) + "/" + c.format, &sc))
      << sc.log;
  if (sc.skipped) GTEST_SKIP() << sc.log;
  // Paths relative to the scenario folder, as a user in that folder would type them.
  auto rel = [&](const std::string& p) { return fs::relative(p, sc.out).string(); };
  // The caller's LD_LIBRARY_PATH would be searched (and noted): goldens are of a clean environment.
  std::string cmd = "cd " + ShellQuote(sc.out) + " && NO_COLOR=1 env -u LD_LIBRARY_PATH " +
                    ShellQuote(ABICHECK_TOOL) + " " + ShellQuote(rel(sc.module));
  for (const std::string& p : sc.providers) cmd += " " + ShellQuote(rel(p));
  if (c.format != "text") cmd += " --format " + c.format;
  std::string out;
  const int rc = RunShellStdout(cmd, &out);
  EXPECT_EQ(rc, c.exit_code) << out;
  // Objects found by search are reported by absolute path: make them independent of the checkout.
  for (size_t at; (at = out.find(sc.out)) != std::string::npos;)
    out.replace(at, sc.out.size(), "$FIXTURE");
  const fs::path golden = fs::path(ABICHECK_GOLDEN_DIR) / (c.scenario + "." + c.format);
  if (std::getenv("ABICHECK_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << out;
    GTEST_SKIP() << "wrote " << golden;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with ABICHECK_UPDATE_GOLDEN=1";
  EXPECT_EQ(out, ReadFile(golden)) << "golden: " << golden;
}

INSTANTIATE_TEST_SUITE_P(Cli, GoldenTest,
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
                                           GoldenCase{"return_type_holds_string", "text", 1},
                                           GoldenCase{"return_type_holds_string", "json", 1},
                                           GoldenCase{"glibcxx_too_new", "text", 1},
                                           GoldenCase{"glibcxx_too_new", "json", 1},
                                           GoldenCase{"defined_in_unlisted_library", "sarif", 1},
                                           GoldenCase{"removed_data_object", "json", 1},
                                           GoldenCase{"cuda_runtime_soname", "text", 1},
                                           GoldenCase{"headline_signature_change", "junit", 1},
                                           GoldenCase{"provider_dependency_not_given", "text", 4},
                                           GoldenCase{"provider_dependency_not_given", "json", 4},
                                           GoldenCase{"provider_dependency_not_given", "sarif", 4},
                                           GoldenCase{"provider_dependency_not_given", "junit", 4}),
                         [](const ::testing::TestParamInfo<GoldenCase>& p) {
                           return p.param.scenario + "_" + p.param.format;
                         });

}  // namespace
}  // namespace abicheck

namespace abicheck {
namespace {

using ::abicheck::testing::RunShell;

std::string Tool() { return ShellQuote(ABICHECK_TOOL); }

// The report with its wrapped notes joined again: a note wraps at 120 columns, so where a line
// breaks depends on how long the checkout's path is (CI's is longer than a developer's).
std::string Unwrapped(const std::string& out) {
  std::string joined;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\n' && i + 1 < out.size() && out[i + 1] == ' ') {
      while (i + 1 < out.size() && out[i + 1] == ' ') ++i;
      joined += ' ';
    } else {
      joined += out[i];
    }
  }
  return joined;
}

// The CI contract (issue 36): -q silences stdout, not -o; bad input in a machine format is a
// document that says so, on stdout or in -o, as well as the line on stderr.
TEST(CliTest, QuietStillWritesTheOutputFileAndErrorsAreDocuments) {
  Scenario sc;
  ASSERT_TRUE(
      BuildScenario("headline_signature_change", std::string(ABICHECK_GOLDEN_OUT) + "/q", &sc))
      << sc.log;
  const std::string json = sc.out + "/report.json";
  std::string args = " " + ShellQuote(sc.module);
  for (const std::string& p : sc.providers) args += " " + ShellQuote(p);
  std::string out;
  EXPECT_EQ(RunShellStdout(Tool() + args + " -q --format json -o " + ShellQuote(json), &out), 1);
  EXPECT_EQ(out, "");
  std::ifstream in(json);
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_NE(doc.str().find("\"verdict\": \"fails\""), std::string::npos) << doc.str();
  EXPECT_EQ(RunShellStdout(Tool() + " " + ShellQuote(sc.out + "/nope.so") + " " +
                               ShellQuote(sc.providers.front()) + " --format json",
                           &out),
            3);
  EXPECT_NE(out.find("\"error\": \"abicheck: "), std::string::npos) << out;
  EXPECT_NE(out.find("nope.so: No such file or directory"), std::string::npos) << out;
}

TEST(CliTest, NoArgumentsPrintsUsageAndExits2) {
  std::string out;
  EXPECT_EQ(RunShell(Tool(), &out), 2);
  EXPECT_NE(out.find("usage: abicheck MODULE PROVIDER..."), std::string::npos) << out;
  EXPECT_NE(out.find("exit codes: 0 the module loads, 1 it will not load, 2 usage error"),
            std::string::npos);
}

TEST(CliTest, MistypedCommandSuggests) {
  std::string out;
  EXPECT_EQ(RunShell(Tool() + " dif a b", &out), 2);
  EXPECT_EQ(
      out,
      "abicheck: unknown command 'dif'; did you mean 'diff'? (`abicheck --help` lists them)\n");
}

TEST(CliTest, HelpAndVersion) {
  std::string out;
  EXPECT_EQ(RunShell(Tool() + " --help", &out), 0);
  EXPECT_NE(out.find("commands:"), std::string::npos);
  EXPECT_EQ(RunShell(Tool() + " help check", &out), 0);
  EXPECT_NE(out.find("--against"), std::string::npos) << out;
  EXPECT_NE(out.find("--cuda-driver"), std::string::npos) << out;
  EXPECT_NE(
      out.find(
          "exit codes: 0 loads (and, with --gpu/--cuda-driver, can run), 1 will not load or run, "
          "2 usage error, 3 unreadable or invalid input"),
      std::string::npos);
  EXPECT_EQ(RunShell(Tool() + " diff --help", &out), 0);
  EXPECT_NE(out.find("breaking"), std::string::npos);
  EXPECT_EQ(RunShell(Tool() + " --version", &out), 0);
  EXPECT_EQ(out, "abicheck 0.5.0\n");
}

TEST(CliTest, UnknownOptionIsAUsageError) {
  std::string out;
  EXPECT_EQ(RunShell(Tool() + " a.so b.so --no-such-option", &out), 2);
  EXPECT_EQ(RunShell(Tool() + " a.so b.so --format xml", &out), 2);
  EXPECT_NE(out.find("--format"), std::string::npos) << out;
}

// Issue 15: options that contradict each other or name nothing are usage errors, said in our words.
TEST(CliTest, ContradictoryOptionsAreUsageErrors) {
  std::string out;
  EXPECT_EQ(RunShell(Tool() + " check a.so --host-only --sysroot /no/such/root", &out), 2);
  EXPECT_NE(out.find("--sysroot: Directory does not exist: /no/such/root"), std::string::npos)
      << out;
  EXPECT_TRUE(out.starts_with("abicheck: ")) << out;
  EXPECT_EQ(RunShell(Tool() + " check a.so b.so --host-only", &out), 2);
  EXPECT_EQ(out,
            "abicheck: --host-only checks against the host's libraries alone: it cannot be "
            "combined with PROVIDER arguments, -p or --against\n");
  EXPECT_EQ(RunShell(Tool() + " check a.so b.so -p c.so", &out), 2);
  EXPECT_NE(out.find("-p/--provider adds a library to every --against column"), std::string::npos)
      << out;
  EXPECT_EQ(RunShell(Tool() + " check a.so b.so --glibc two", &out), 2);
  EXPECT_EQ(out,
            "abicheck: --glibc: give a release such as 2.36 or 2.41\n"
            "Run 'abicheck check --help' for more information.\n");
}

// Issue 15: LD_LIBRARY_PATH in the environment is searched as the loader searches it, and the
// report says so; --ignore-env leaves it out.
TEST(CliTest, LdLibraryPathFromTheEnvironment) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("missing_function", std::string(ABICHECK_GOLDEN_OUT) + "/env", &sc))
      << sc.log;
  const std::string dir = fs::path(sc.providers[0]).parent_path().string();
  const std::string args = " " + ShellQuote(sc.module) + " --host-only --no-diagnose";
  std::string out;
  EXPECT_EQ(RunShell("env -u LD_LIBRARY_PATH " + Tool() + args, &out), 1);
  EXPECT_NE(out.find("missing library: libfoo.so"), std::string::npos) << out;
  EXPECT_EQ(RunShell("LD_LIBRARY_PATH=/nonexistent:" + ShellQuote(dir) + " " + Tool() + args, &out),
            1);
  EXPECT_EQ(out.find("missing library"), std::string::npos) << "libfoo.so is found:\n" << out;
  EXPECT_NE(out.find("undefined symbol: foo_removed"), std::string::npos) << out;
  EXPECT_NE(out.find("LD_LIBRARY_PATH from the environment is searched"), std::string::npos) << out;
  EXPECT_EQ(
      RunShell("LD_LIBRARY_PATH=" + ShellQuote(dir) + " " + Tool() + args + " --ignore-env", &out),
      1);
  EXPECT_NE(out.find("missing library: libfoo.so"), std::string::npos) << out;
}

// Issue 36 item 12: an option typo gets a did-you-mean as a command typo does; `check --version`
// is the version (it demanded a MODULE); the usage line reads "MODULE PROVIDER..." once.
TEST(CliTest, OptionTypoSuggestsAndSubcommandVersion) {
  std::string out;
  EXPECT_EQ(RunShell(Tool() + " check a.so --agains b.so", &out), 2);
  EXPECT_EQ(out,
            "abicheck: The following argument was not expected: --agains; did you mean "
            "--against?\nRun 'abicheck check --help' for more information.\n");
  EXPECT_EQ(RunShell(Tool() + " env --max-member-sise 5", &out), 2);
  EXPECT_NE(out.find("did you mean --max-member-size?"), std::string::npos) << out;
  EXPECT_EQ(RunShell(Tool() + " check a.so b.so --zzz", &out), 2);
  EXPECT_EQ(out.find("did you mean"), std::string::npos) << out;
  for (const char* c : {"check", "env", "gpu", "diff", "symbols", "index", "cache"}) {
    EXPECT_EQ(RunShell(Tool() + " " + c + " --version", &out), 0) << c;
    EXPECT_EQ(out, "abicheck 0.5.0\n") << c;
  }
  EXPECT_EQ(RunShell(Tool() + " check --help", &out), 0);
  EXPECT_NE(out.find("Usage: abicheck check [OPTIONS] MODULE PROVIDER...\n"), std::string::npos)
      << out;
}

// A virtualenv at `venv` (Python 3.12) laid out as pip lays it out: each distribution's files
// copied to their places under site-packages, with its METADATA and a RECORD listing them.
struct Distribution {
  std::string name, version;
  std::vector<std::pair<std::string, std::string>> files;  // source file, path under site-packages
};
void WriteVenv(const fs::path& venv, const std::vector<Distribution>& dists) {
  const fs::path site = venv / "lib/python3.12/site-packages";
  fs::remove_all(venv);
  fs::create_directories(site);
  std::ofstream(venv / "pyvenv.cfg") << "version_info = 3.12.1\n";
  for (const Distribution& d : dists) {
    std::string dir = d.name, record;
    std::replace(dir.begin(), dir.end(), '-', '_');
    const fs::path info = site / (dir + "-" + d.version + ".dist-info");
    fs::create_directories(info);
    for (const auto& [from, rel] : d.files) {
      fs::create_directories((site / rel).parent_path());
      fs::copy_file(from, site / rel);
      record += rel + ",,\n";
    }
    std::ofstream(info / "METADATA") << "Name: " << d.name << "\nVersion: " << d.version << "\n";
    std::ofstream(info / "RECORD") << record;
  }
}

// Issue 36 item 3: SARIF says against which build each result was found. With two failing
// builds (the headline's libc10_cuda.so as a file and in a directory) and one that loads, every
// result names its build, in a property and in its message, and each failing build has its own.
TEST(CliTest, SarifResultsNameTheirBuild) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("headline_signature_change",
                            std::string(ABICHECK_GOLDEN_OUT) + "/sarif_builds", &sc))
      << sc.log;
  const fs::path dir = fs::path(sc.out) / "new_dir";
  fs::create_directories(dir);
  fs::copy_file(sc.providers[0], dir / "libc10_cuda.so", fs::copy_options::overwrite_existing);
  const std::string old_dir = (fs::path(sc.out) / "old").string();
  std::string out;
  EXPECT_EQ(
      RunShellStdout(Tool() + " check " + ShellQuote(sc.module) + " --against " +
                         ShellQuote(sc.providers[0]) + " --against " + ShellQuote(dir.string()) +
                         " --against " + ShellQuote(old_dir) + " --format sarif",
                     &out),
      1);
  const nlohmann::json sarif = nlohmann::json::parse(out);
  std::multiset<std::string> builds;
  for (const nlohmann::json& r : sarif["runs"][0]["results"]) {
    ASSERT_TRUE(r["properties"].contains("build")) << r.dump();
    const std::string b = r["properties"]["build"];
    builds.insert(b);
    EXPECT_NE(r["message"]["text"].get<std::string>().find("[against " + b + "]"),
              std::string::npos)
        << r.dump();
  }
  EXPECT_EQ(builds.count(sc.providers[0]), 1u) << out;
  EXPECT_EQ(builds.count(dir.string()), 1u) << out;
  EXPECT_EQ(builds.count(old_dir), 0u) << out;
}

// Issue 36 item 11: --gpu refuses architectures no GPU has (sm_12 was answered with "rebuild with
// TORCH_CUDA_ARCH_LIST=1.2"), accepts the spellings people type, and gpu --list prints the table
// the refusal points to.
TEST(CliTest, GpuNamesAreValidatedAndListed) {
  std::string out;
  EXPECT_EQ(RunShell(Tool() + " gpu --list", &out), 0);
  EXPECT_NE(out.find("sm_90     9.0  h100, h200, gh200\n"), std::string::npos) << out;
  EXPECT_NE(out.find("sm_121    12.1 dgx spark, gb10\n"), std::string::npos) << out;
  for (const char* bad : {"sm_12", "sm_999", "99.9"}) {
    EXPECT_EQ(RunShell(Tool() + " check a.so --host-only --gpu " + bad, &out), 2) << bad;
    EXPECT_EQ(out, "abicheck: --gpu: unknown GPU '" + std::string(bad) +
                       "' (give an architecture, sm_90 or 9.0, or a product name such as H100; "
                       "`abicheck gpu --list` lists them)\n");
  }
  const std::string so = std::string(ABICHECK_TOOL);  // an object without device code
  for (const char* good : {"sm90", "'H100 SXM'", "'GeForce RTX 4090'", "'NVIDIA H100 SXM5 80GB'"}) {
    EXPECT_EQ(RunShell(Tool() + " gpu --gpu " + good + " " + ShellQuote(so), &out), 0)
        << good << ": " << out;
    EXPECT_NE(out.find("no device code (nothing for sm_"), std::string::npos) << out;
  }
}

// Issue 36 item 10: WHEEL!MEMBER, the name abicheck prints for a wheel's object, is taken wherever
// a path is (check, gpu, diff, as a provider), not by `symbols` alone ("No such file or
// directory" before).
TEST(CliTest, WheelMemberIsAPathEverywhere) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("headline_signature_change",
                            std::string(ABICHECK_GOLDEN_OUT) + "/wheel_member", &sc))
      << sc.log;
  const std::string whl = sc.out + "/sgl_kernel-0.1-cp310-abi3-linux_x86_64.whl";
  std::string out;
  ASSERT_EQ(RunShell("python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], \"w\"); "
                     "z.write(sys.argv[2], \"sgl_kernel/common_ops.abi3.so\"); "
                     "z.write(sys.argv[3], \"torch/lib/libc10_cuda.so\")' " +
                         ShellQuote(whl) + " " + ShellQuote(sc.module) + " " +
                         ShellQuote(sc.providers[0]),
                     &out),
            0)
      << out;
  const std::string mod = ShellQuote(whl + "!sgl_kernel/common_ops.abi3.so");
  const std::string lib = ShellQuote(whl + "!torch/lib/libc10_cuda.so");
  EXPECT_EQ(RunShell(Tool() + " check " + mod + " " + ShellQuote(sc.providers[0]), &out), 1) << out;
  EXPECT_NE(out.find("undefined symbol: c10::cuda::c10_cuda_check_implementation"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunShell(Tool() + " check " + ShellQuote(sc.module) + " " + lib, &out), 1) << out;
  EXPECT_NE(out.find("parameter 4: int → unsigned int"), std::string::npos) << out;
  EXPECT_EQ(RunShell(Tool() + " gpu " + mod, &out), 0) << out;
  EXPECT_EQ(RunShell(Tool() + " diff " + lib + " " + ShellQuote(sc.providers[0]), &out), 0) << out;
  // diff --filter scopes the listing and the exit code; an invalid expression is a usage error.
  const std::string old_new =
      ShellQuote(sc.out + "/old/libc10_cuda.so") + " " + ShellQuote(sc.providers[0]);
  EXPECT_EQ(RunShell(Tool() + " diff " + old_new, &out), 1) << out;
  EXPECT_EQ(RunShell(Tool() + " diff " + old_new + " --filter 'c10::cuda::' --summary", &out), 1)
      << out;
  EXPECT_NE(out.find("changed signatures:\n  c10::cuda::c10_cuda_check_implementation(int, char "
                     "const*, char const*, int, bool)\n      parameter 4: int → unsigned int\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunShell(Tool() + " diff " + old_new + " --filter '^at::' --filter 'torch'", &out), 0)
      << out;
  EXPECT_NE(out.find(": 0 removed, 0 changed, 0 added\n"), std::string::npos) << out;
  EXPECT_EQ(RunShell(Tool() + " diff " + old_new + " --filter '('", &out), 2) << out;
  EXPECT_NE(out.find("--filter '(': not a regular expression"), std::string::npos) << out;
  EXPECT_EQ(RunShell(Tool() + " check " + ShellQuote(whl + "!nope.so") + " x.so", &out), 3);
  EXPECT_NE(out.find("!nope.so: no shared object of that name in "), std::string::npos) << out;
}

// Issue 36 item 8: env --package / --ignore scope the exit code, so a package broken for a reason
// torch cannot change does not fail a job forever; the report still shows it.
TEST(CliTest, EnvPackageAndIgnoreScopeTheGate) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("headline_signature_change",
                            std::string(ABICHECK_GOLDEN_OUT) + "/env_scope", &sc))
      << sc.log;
  const fs::path venv = fs::path(sc.out) / "venv";
  WriteVenv(venv, {{"torch", "2.10.0", {{sc.providers[0], "torch/lib/libc10_cuda.so"}}},
                   {"sgl-kernel", "0.3.21", {{sc.module, "sgl_kernel/common_ops.abi3.so"}}},
                   {"fine", "1.0", {{sc.providers[0], "fine/libfine.so"}}}});
  const std::string env = Tool() + " env " + ShellQuote(venv.string());
  std::string out;
  EXPECT_EQ(RunShell(env, &out), 1) << out;
  EXPECT_EQ(RunShell(env + " --ignore sgl-kernel", &out), 0) << out;
  EXPECT_NE(out.find("FAILS"), std::string::npos) << "the report still shows it:\n" << out;
  EXPECT_NE(out.find("exit code: import torch and 1 of 2 packages (sgl-kernel not counted)\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunShell(env + " --package fine", &out), 0) << out;
  EXPECT_EQ(RunShell(env + " --package SGL_Kernel", &out), 1) << out;
  EXPECT_EQ(RunShell(env + " --package nothere", &out), 2) << out;
  EXPECT_NE(out.find("env --package nothere: no such package is installed here"), std::string::npos)
      << out;
}

// Issue 36 item 8: with one build, a package that only misses libraries neither torch nor CUDA
// ships (torchcodec without FFmpeg) is said to fail whatever torch is, with the --ignore that
// scopes it out; one that misses a CUDA library (another torch build brings it) is not.
TEST(CliTest, EnvSaysAFailureNoTorchBuildChanges) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("headline_signature_change",
                            std::string(ABICHECK_GOLDEN_OUT) + "/env_independent", &sc))
      << sc.log;
  const fs::path dir(sc.out);
  std::string out;
  ASSERT_EQ(RunShell("cd " + ShellQuote(sc.out) +
                         " && echo 'int f(void){return 0;}' > m.c"
                         " && cc -shared -fPIC -o libavutil.so.58 -Wl,-soname,libavutil.so.58 m.c"
                         " && cc -shared -fPIC -o libcudart.so.12 -Wl,-soname,libcudart.so.12 m.c"
                         " && cc -shared -fPIC -o codec.so m.c -Wl,--no-as-needed ./libavutil.so.58"
                         " && cc -shared -fPIC -o xf.so m.c -Wl,--no-as-needed ./libcudart.so.12",
                     &out),
            0)
      << out;
  const fs::path venv = dir / "venv";
  WriteVenv(venv, {{"torch", "2.10.0", {{sc.providers[0], "torch/lib/libc10_cuda.so"}}},
                   {"codec", "1.0", {{(dir / "codec.so").string(), "codec/_core.so"}}},
                   {"xf", "1.0", {{(dir / "xf.so").string(), "xf/_C.so"}}}});
  EXPECT_EQ(RunShell(Tool() + " env " + ShellQuote(venv.string()), &out), 1) << out;
  EXPECT_NE(out.find("note: codec fails for a reason no torch build changes: it needs "
                     "libavutil.so.58, which neither torch nor CUDA ships (install it, or leave "
                     "codec out of the exit code: --ignore codec)\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("note: xf fails"), std::string::npos) << out;
}

// Issue 56: a build whose own library cannot load (libc10 references a function defined
// nowhere) gives no module a `loads`, in any mode: check with the libraries, check --against the
// directory (the matrix says it once), and env, where import torch fails first.
TEST(CliTest, ABuildThatCannotLoadItselfLoadsNothing) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("headline_signature_change",
                            std::string(ABICHECK_GOLDEN_OUT) + "/broken_build", &sc))
      << sc.log;
  const fs::path dir(sc.out);
  std::string out;
  ASSERT_EQ(RunShell("cd " + ShellQuote(sc.out) + " && mkdir -p b" +
                         " && echo 'extern int nowhere(void); int c10_f(void){return nowhere();}'"
                         " > c10.c && cc -shared -fPIC -o b/libc10.so -Wl,-soname,libc10.so c10.c"
                         " && echo 'extern int c10_f(void); int PyInit_m(void){return c10_f();}'"
                         " > m.c && cc -shared -fPIC -o m.so m.c -Wl,--no-as-needed b/libc10.so"
                         " && cc -shared -fPIC -o C.so m.c -Wl,--no-as-needed b/libc10.so",
                     &out),
            0)
      << out;
  const std::string lib = (dir / "b/libc10.so").string(), mod = (dir / "m.so").string();
  const std::string said = "cannot load itself (" + lib + ": undefined symbol: nowhere)";
  EXPECT_EQ(RunShell(Tool() + " check " + ShellQuote(mod) + " " + ShellQuote(lib), &out), 1) << out;
  EXPECT_NE(out.find("import fails with: " + lib + ": undefined symbol: nowhere"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunShell(Tool() + " check " + ShellQuote(mod) + " --against " +
                         ShellQuote((dir / "b").string()) + " --format json",
                     &out),
            1)
      << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["cells"][0]["verdict"], "fails") << out;
  int notes = 0;
  for (const auto& n : j["notes"])
    notes += n["message"].get<std::string>().find(said) != std::string::npos;
  EXPECT_EQ(notes, 1) << out;

  const fs::path venv = dir / "venv";
  WriteVenv(venv, {{"torch",
                    "2.10.0",
                    {{lib, "torch/lib/libc10.so"},
                     {(dir / "C.so").string(), "torch/_C.cpython-312-x86_64-linux-gnu.so"}}},
                   {"pkg", "1.0", {{mod, "pkg/_m.so"}}}});
  EXPECT_EQ(RunShell(Tool() + " env " + ShellQuote(venv.string()), &out), 1) << out;
  EXPECT_NE(Unwrapped(out).find("cannot load itself"), std::string::npos) << out;
  EXPECT_NE(
      out.find("import torch with torch 2.10.0 (installed): FAILS: " + std::string(venv) +
               "/lib/python3.12/site-packages/torch/lib/libc10.so: undefined symbol: nowhere"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("FAILS (1 of 1)"), std::string::npos) << out;
}

// Issue 56 (torchcodec): a package's own library that cannot load (its FFmpeg is missing) is not
// loaded before the package's modules (E7): a module naming it meets the module's own search —
// `libcore.so: cannot open shared object file` — as the real import did, not what a loaded
// core would have brought. Its libpython3.12.so.1.0 is the interpreter's (E5a).
TEST(CliTest, APackageLibraryThatCannotLoadIsNotLoadedFirst) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("headline_signature_change",
                            std::string(ABICHECK_GOLDEN_OUT) + "/core_fails", &sc))
      << sc.log;
  std::string out;
  ASSERT_EQ(
      RunShell("cd " + ShellQuote(sc.out) + " && rm -rf pkg stub && mkdir -p pkg stub" +
                   " && echo 'int x(void){return 0;}' > s.c"
                   " && cc -shared -fPIC -o stub/libavutil.so.57 -Wl,-soname,libavutil.so.57"
                   " s.c && cc -shared -fPIC -o stub/libpython3.12.so.1.0"
                   " -Wl,-soname,libpython3.12.so.1.0 s.c"
                   " && echo 'extern int x(void); int core_f(void){return x();}' > core.c"
                   " && cc -shared -fPIC -o pkg/libcore.so -Wl,-soname,libcore.so core.c"
                   " -Wl,--no-as-needed stub/libavutil.so.57"
                   " && echo 'extern int core_f(void); int PyInit_ops(void){return core_f();}'"
                   " > ops.c && cc -shared -fPIC -o pkg/ops.so ops.c -Wl,--no-as-needed"
                   " stub/libpython3.12.so.1.0 pkg/libcore.so && rm -rf stub",
               &out),
      0)
      << out;
  const std::string pkg = sc.out + "/pkg";
  EXPECT_EQ(RunShell(Tool() + " check " + ShellQuote(pkg) + " --host-only --format json", &out), 1)
      << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  std::map<std::string, std::string> first;
  for (const auto& c : j["cells"]) {
    first[fs::path(c["module"].get<std::string>()).filename().string()] =
        c["report"]["first_error"].is_string() ? c["report"]["first_error"].get<std::string>() : "";
  }
  EXPECT_EQ(first["libcore.so"],
            "libavutil.so.57: cannot open shared object file: No such file or directory")
      << out;
  EXPECT_EQ(first["ops.so"],
            "libcore.so: cannot open shared object file: No such file or directory")
      << out;
  // The same objects as a wheel: a load names its members `x.whl!pkg/libcore.so`.
  const std::string whl = sc.out + "/pkg-1.0-py3-none-any.whl";
  ASSERT_EQ(RunShell("cd " + ShellQuote(sc.out) + " && rm -f " + ShellQuote(whl) +
                         " && python3 -m zipfile -c " + ShellQuote(whl) + " pkg",
                     &out),
            0)
      << out;
  EXPECT_EQ(RunShell(Tool() + " check " + ShellQuote(whl) + " --host-only --format json", &out), 1)
      << out;
  const nlohmann::json w = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(w.is_discarded()) << out;
  int ops = 0;
  for (const auto& c : w["cells"]) {
    if (!c["module"].get<std::string>().ends_with("ops.so")) continue;
    ++ops;
    EXPECT_EQ(c["report"]["first_error"],
              "libcore.so: cannot open shared object file: No such file or directory")
        << out;
  }
  EXPECT_EQ(ops, 1) << out;
}

// Issue 36 item 14: --summary is the table, the recommendation and one line per failing object
// (its first error, demangled), not every failing object's report.
TEST(CliTest, SummaryIsTheTableAndOneLinePerFailure) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("headline_signature_change",
                            std::string(ABICHECK_GOLDEN_OUT) + "/summary", &sc))
      << sc.log;
  const std::string old_dir = (fs::path(sc.out) / "old").string();
  const std::string args = " check " + ShellQuote(sc.module) + " --against " +
                           ShellQuote(sc.providers[0]) + " --against " + ShellQuote(old_dir);
  std::string full, out;
  EXPECT_EQ(RunShell(Tool() + args, &full), 1);
  EXPECT_EQ(RunShell(Tool() + args + " --summary", &out), 1);
  EXPECT_LT(out.size(), full.size()) << out;
  EXPECT_NE(out.find("recommendation: "), std::string::npos) << out;
  EXPECT_NE(out.find("  common_ops.abi3.so with libc10_cuda.so: FAILS (1): " + sc.module +
                     ": undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib "
                     "(c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, "
                     "int, bool))\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("nearest:"), std::string::npos) << "no per-object report:\n" << out;
}

// Issue 36 item 9: env says "... 1 more of this cause (--all lists them)", and env --all lists
// them (it was an unknown option, exit 2). An environment whose torch/lib has CUDA 13's runtime
// and a package built for CUDA 12 (the cuda_runtime_soname scenario: four symbols of one cause).
TEST(CliTest, EnvAllListsEveryProblemOfACause) {
  Scenario sc;
  ASSERT_TRUE(
      BuildScenario("cuda_runtime_soname", std::string(ABICHECK_GOLDEN_OUT) + "/env_all", &sc))
      << sc.log;
  if (sc.skipped) GTEST_SKIP() << sc.log;
  const fs::path venv = fs::path(sc.out) / "venv";
  WriteVenv(venv, {{"torch", "2.10.0", {{sc.providers[0], "torch/lib/libcudart.so.13"}}},
                   {"modpkg", "1.0", {{sc.module, "modpkg/mod.so"}}}});
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  std::string out;
  EXPECT_EQ(RunShell(Tool() + " env " + ShellQuote(venv.string()), &out), 1) << out;
  EXPECT_EQ(count(out, "... 1 more of this cause (--all lists them)"), 1u) << out;
  EXPECT_EQ(count(out, "undefined symbol: cuda"), 3u) << out;
  EXPECT_EQ(RunShell(Tool() + " env " + ShellQuote(venv.string()) + " --all", &out), 1) << out;
  EXPECT_EQ(count(out, "more of this cause"), 0u) << out;
  EXPECT_EQ(count(out, "undefined symbol: cuda"), 4u) << out;
}

// Issue 15: an unreadable input (exit 3) with --format sarif|junit -o FILE still writes a valid
// FILE that records the error, so a CI upload step shows it.
TEST(CliTest, InputErrorStillWritesSarifAndJunit) {
  const std::string dir = std::string(ABICHECK_GOLDEN_OUT) + "/error_docs";
  std::string out;
  ASSERT_EQ(RunShell("mkdir -p " + ShellQuote(dir) + " && printf 'not elf' > " +
                         ShellQuote(dir + "/bad.so"),
                     &out),
            0);
  const std::string sarif = dir + "/r.sarif", xml = dir + "/r.xml";
  EXPECT_EQ(RunShell(Tool() + " check " + ShellQuote(dir + "/bad.so") +
                         " --host-only --format sarif -o " + ShellQuote(sarif),
                     &out),
            3);
  EXPECT_NE(out.find("bad.so"), std::string::npos) << out;
  EXPECT_EQ(RunShell("python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
                     "inv=d[\"runs\"][0][\"invocations\"][0]; "
                     "assert inv[\"executionSuccessful\"] is False; "
                     "print(inv[\"toolExecutionNotifications\"][0][\"message\"][\"text\"])' " +
                         ShellQuote(sarif),
                     &out),
            0)
      << out;
  EXPECT_NE(out.find("bad.so"), std::string::npos) << out;
  EXPECT_EQ(RunShell(Tool() + " check " + ShellQuote(dir + "/bad.so") +
                         " --host-only --format junit -o " + ShellQuote(xml),
                     &out),
            3);
  EXPECT_EQ(RunShell("python3 -c 'import sys, xml.etree.ElementTree as E; r=E.parse(sys.argv[1])."
                     "getroot(); e=r.find(\"testsuite/testcase/error\"); assert r.get(\"errors\")"
                     " == \"1\"; print(e.get(\"message\"))' " +
                         ShellQuote(xml),
                     &out),
            0)
      << out;
  EXPECT_NE(out.find("bad.so"), std::string::npos) << out;
}

// Issue 15: `symbols x.whl` names the wheel's members to choose from, and WHEEL!MEMBER lists one;
// a wheel given where one file is needed is "an archive", in English.
TEST(CliTest, SymbolsOfAWheelMember) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("missing_function", std::string(ABICHECK_GOLDEN_OUT) + "/whl", &sc))
      << sc.log;
  const std::string whl = sc.out + "/pkg-1.0-py3-none-any.whl";
  std::string out;
  ASSERT_EQ(RunShell("python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], \"w\"); "
                     "z.write(sys.argv[2], \"pkg/libfoo.so\"); z.close()' " +
                         ShellQuote(whl) + " " + ShellQuote(sc.providers[0]),
                     &out),
            0)
      << out;
  EXPECT_EQ(RunShell(Tool() + " symbols " + ShellQuote(whl), &out), 3);
  EXPECT_NE(out.find("a zip archive (wheel), not an ELF file: name one of its 1 shared object as " +
                     whl + "!pkg/libfoo.so"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunShell(Tool() + " symbols " + ShellQuote(whl + "!pkg/libfoo.so"), &out), 0) << out;
  EXPECT_NE(out.find(" T foo_keep"), std::string::npos) << out;
  // A wheel against the host alone: each of its modules, a matrix of one column (issue 54 item 16).
  EXPECT_EQ(RunShell(Tool() + " check " + ShellQuote(whl) + " --host-only", &out), 0) << out;
  EXPECT_NE(out.find("pkg/libfoo.so  loads"), std::string::npos) << out;
  EXPECT_NE(out.find("(the host's libraries)"), std::string::npos) << out;
}

// Issue 15: matrix rows and columns can be told apart — the same module of two packages is named
// in full, an absolute --against path keeps its '/', and an input given twice is checked once.
TEST(CliTest, MatrixRowsAndColumnsAreDistinguishable) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("missing_function", std::string(ABICHECK_GOLDEN_OUT) + "/rows", &sc))
      << sc.log;
  const std::string a = sc.out + "_pkg_a", b = sc.out + "_pkg_b";  // outside the build
  std::string out;
  ASSERT_EQ(RunShell("mkdir -p " + ShellQuote(a) + " " + ShellQuote(b) + " && cp " +
                         ShellQuote(sc.module) + " " + ShellQuote(a + "/mod.so") + " && cp " +
                         ShellQuote(sc.module) + " " + ShellQuote(b + "/mod.so"),
                     &out),
            0);
  const std::string build = fs::path(sc.providers[0]).parent_path().string();
  ASSERT_TRUE(build.starts_with("/"));
  EXPECT_EQ(RunShell(Tool() + " check " + ShellQuote(a) + " " + ShellQuote(b) + " " +
                         ShellQuote(a) + " --against " + ShellQuote(build) + " --no-diagnose",
                     &out),
            1);
  EXPECT_NE(out.find(a + "/mod.so "), std::string::npos) << out;
  EXPECT_NE(out.find(b + "/mod.so "), std::string::npos) << out;
  EXPECT_NE(out.find("  " + build), std::string::npos) << "the column keeps its '/':\n" << out;
  EXPECT_NE(Unwrapped(out).find("given twice as a module input: checked once"), std::string::npos)
      << out;
  const std::string table = out.substr(0, out.find("\n\n"));
  EXPECT_EQ(table.find(a + "/mod.so ", table.find(a + "/mod.so ") + 1), std::string::npos)
      << "one row for the input given twice:\n"
      << table;
}

// Issue 55 item 7: a build option takes one value per occurrence. The pre-commit hook runs
// `check --against BUILD a.so b.so`: --against took both modules as builds (exit 1 or 2 though
// both load). Two files, and an option after them.
TEST(CliTest, AgainstTakesOneValueAsThePreCommitHookPassesIt) {
  Scenario sc;
  ASSERT_TRUE(
      BuildScenario("headline_matching_build", std::string(ABICHECK_GOLDEN_OUT) + "/hook", &sc))
      << sc.log;
  const std::string a = sc.out + "_hook_a.so", b = sc.out + "_hook_b.so";
  std::string out;
  ASSERT_EQ(RunShell("cp " + ShellQuote(sc.module) + " " + ShellQuote(a) + " && cp " +
                         ShellQuote(sc.module) + " " + ShellQuote(b),
                     &out),
            0);
  const std::string build = fs::path(sc.providers[0]).parent_path().string();
  EXPECT_EQ(RunShell(Tool() + " check --against " + ShellQuote(build) + " " + ShellQuote(a) + " " +
                         ShellQuote(b),
                     &out),
            0)
      << out;
  EXPECT_NE(out.find("_hook_a.so "), std::string::npos) << out;
  EXPECT_NE(out.find("_hook_b.so "), std::string::npos) << out;
  EXPECT_EQ(RunShell(Tool() + " check --against " + ShellQuote(build) + " " + ShellQuote(a) + " " +
                         ShellQuote(b) + " --no-diagnose --format json",
                     &out),
            0)
      << out;
  const nlohmann::json doc = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out;
  EXPECT_EQ(doc["builds"].size(), 1u) << out;
  EXPECT_EQ(doc["modules"].size(), 2u) << out;
}

// Issue 15: a read that takes more than a second reports progress also when stderr is not a
// terminal (a CI log), as a line every few seconds; -q silences it. Without the delay: a line.
TEST(CliTest, ProgressLinesInALog) {
  const std::string dir = std::string(ABICHECK_GOLDEN_OUT) + "/progress";
  const std::string lib = "/lib/x86_64-linux-gnu/libstdc++.so.6";
  if (!fs::exists(lib)) GTEST_SKIP() << lib << " is not on this machine";
  std::string out;
  ASSERT_EQ(RunShell("mkdir -p " + ShellQuote(dir) +
                         " && python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], "
                         "\"w\"); z.write(sys.argv[2], \"big/libbig.so\"); z.close()' " +
                         ShellQuote(dir + "/big-1.0-py3-none-any.whl") + " " + ShellQuote(lib),
                     &out),
            0)
      << out;
  // Progress from the first update on (the read here takes under a second).
  const std::string cmd = "ABICHECK_PROGRESS_AFTER_MS=0 " + Tool() + " check " +
                          ShellQuote(dir + "/big-1.0-py3-none-any.whl") + " --against " +
                          ShellQuote(dir + "/big-1.0-py3-none-any.whl") +
                          " --no-diagnose -o /dev/null";
  std::string log;
  RunShell(cmd + " 2>&1 >/dev/null | cat", &log);
  EXPECT_NE(log.find("abicheck: reading archives: "), std::string::npos) << log;
  RunShell(cmd + " -q 2>&1 >/dev/null | cat", &log);
  EXPECT_EQ(log.find("reading archives"), std::string::npos) << log;
  // Several builds: each one's start is a line, with what was read so far (issue 33).
  ASSERT_EQ(RunShell("cp " + ShellQuote(dir + "/big-1.0-py3-none-any.whl") + " " +
                         ShellQuote(dir + "/big-2.0-py3-none-any.whl"),
                     &out),
            0)
      << out;
  RunShell(cmd + " --against " + ShellQuote(dir + "/big-2.0-py3-none-any.whl") +
               " 2>&1 >/dev/null | cat",
           &log);
  EXPECT_NE(log.find("abicheck: reading builds: 1 of 2 (big-1.0-py3-none-any.whl), 0 MB read so "
                     "far\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("abicheck: reading builds: 2 of 2 (big-2.0-py3-none-any.whl), "),
            std::string::npos)
      << log;
}

// libc, libstdc++ and every library of the CUDA toolkit (by soname: libcublasLt.so.13, ...)
// that this machine has: what `symbols` is compared with nm on.
std::vector<std::string> SystemLibraries() {
  std::vector<std::string> libs;
  for (const char* l : {"/lib/x86_64-linux-gnu/libstdc++.so.6", "/lib/x86_64-linux-gnu/libc.so.6"})
    if (fs::exists(l)) libs.push_back(l);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/local/cuda/lib64", ec)) {
    const std::string n = e.path().filename().string();
    const size_t so = n.find(".so.");
    if (so != std::string::npos && so + 6 == n.size() && fs::is_regular_file(e.path()))
      libs.push_back(e.path().string());
  }
  std::sort(libs.begin(), libs.end());
  return libs;
}

// torch/lib of a virtualenv of the PyPI corpus that tests/pypi/make-venvs.sh has finished (its
// .linked-* marker: complete, and its duplicates already hard links), "" when there is none. A
// virtualenv still being made (pypi.prepare may run beside these tests on a fresh machine) has
// half-written libraries: nm fails on them.
std::string FinishedTorchLib() {
  const char* home = std::getenv("HOME");
  const fs::path venvs =
      fs::path(home != nullptr ? home : "/") / ".cache/abicheck-corpus/pypi/venvs";
  std::error_code ec;
  for (const auto& v : fs::directory_iterator(venvs, ec)) {
    bool finished = false;
    std::error_code ec2;
    for (const auto& f : fs::directory_iterator(v.path(), ec2))
      finished = finished || f.path().filename().string().rfind(".linked-", 0) == 0;
    const fs::path torch = v.path() / "lib/python3.12/site-packages/torch/lib";
    if (finished && fs::exists(torch / "libtorch_cuda.so")) return torch.string();
  }
  return "";
}

// Issue 15: `symbols` equals `nm -D` (binutils) line for line on real libraries — the type
// letter included (B, R, V, W, i, u from the program headers, as nm has them from sections).
TEST(CliTest, SymbolsEqualsNmOnRealLibraries) {
  std::vector<std::string> libs = SystemLibraries();
  // A torch build from the PyPI corpus, when tests/pypi has installed one.
  if (const std::string torch = FinishedTorchLib(); !torch.empty())
    libs.push_back(torch + "/libtorch_cpu.so");
  if (libs.empty()) GTEST_SKIP() << "none of the real libraries is on this machine";
  for (const std::string& l : libs) {
    std::string nm, ours;
    ASSERT_EQ(RunShellStdout("nm -D " + ShellQuote(l) + " | LC_ALL=C sort", &nm), 0) << l;
    ASSERT_EQ(RunShellStdout(Tool() + " symbols " + ShellQuote(l) + " | LC_ALL=C sort", &ours), 0);
    ASSERT_FALSE(nm.empty()) << l;
    EXPECT_TRUE(nm == ours) << l << ": abicheck symbols differs from nm -D (diff them to see)";
  }
}

// `symbols -C` equals `nm -DCp` byte for byte — nm's table order (-p; plain `nm -DC` sorts the
// same lines): the names are demangled by binutils' own demangler (libiberty's cplus_demangle,
// nm's options), on libc, libstdc++, every library of the CUDA toolkit, and torch's libtorch_cpu
// and libtorch_cuda from the PyPI corpus (LLVM 14's text, rewritten, differed in 17,172 of
// libtorch_cuda.so's 46,528 lines: template arguments that take a function's address).
TEST(CliTest, DemangledSymbolsEqualNm) {
  std::vector<std::string> libs = SystemLibraries();
  if (const std::string torch = FinishedTorchLib(); !torch.empty()) {
    libs.push_back(torch + "/libtorch_cpu.so");
    libs.push_back(torch + "/libtorch_cuda.so");
  }
  if (libs.empty()) GTEST_SKIP() << "none of the real libraries is on this machine";
  for (const std::string& l : libs) {
    std::string nm, ours;
    ASSERT_EQ(RunShellStdout("nm -DCp " + ShellQuote(l), &nm), 0) << l;
    ASSERT_EQ(RunShellStdout(Tool() + " symbols -C " + ShellQuote(l), &ours), 0) << l;
    ASSERT_FALSE(nm.empty()) << l;
    EXPECT_TRUE(nm == ours) << l << ": abicheck symbols -C differs from nm -DCp (diff them to see)";
  }
}

TEST(CliTest, QuietOutputAndJunit) {
  Scenario sc;
  ASSERT_TRUE(
      BuildScenario("headline_signature_change", std::string(ABICHECK_GOLDEN_OUT) + "/cli", &sc))
      << sc.log;
  const std::string args = " " + ShellQuote(sc.module) + " " + ShellQuote(sc.providers[0]);
  std::string out;
  EXPECT_EQ(RunShell(Tool() + args + " -q", &out), 1);
  EXPECT_EQ(out, "") << "-q prints nothing";
  const std::string xml = sc.out + "/report.xml";
  EXPECT_EQ(RunShell(Tool() + args + " --format junit -o " + ShellQuote(xml), &out), 1);
  EXPECT_EQ(out, "");
  std::string junit = ReadFile(xml);
  EXPECT_NE(junit.find("<testsuites name=\"abicheck\" tests=\"1\" failures=\"1\" errors=\"0\">"),
            std::string::npos)
      << junit;
  EXPECT_NE(
      junit.find("<failure type=\"will_not_load\" message=\"" + sc.module +
                 ": undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib\">"),
      std::string::npos)
      << junit;
  EXPECT_EQ(RunShell(Tool() + args + " -o /nonexistent/dir/r.txt", &out), 3);
  EXPECT_NE(out.find("/nonexistent/dir/r.txt: No such file or directory"), std::string::npos)
      << out;
}

TEST(CliTest, NoColorIsHonouredWhenColorWouldApply) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("missing_function", std::string(ABICHECK_GOLDEN_OUT) + "/cli", &sc))
      << sc.log;
  std::string out;
  RunShell("NO_COLOR=1 " + Tool() + " " + ShellQuote(sc.module) + " " + ShellQuote(sc.providers[0]),
           &out);
  EXPECT_EQ(out.find("\x1b["), std::string::npos);
  RunShell(Tool() + " --color always " + ShellQuote(sc.module) + " " + ShellQuote(sc.providers[0]),
           &out);
  EXPECT_NE(out.find("\x1b["), std::string::npos);
}

}  // namespace
}  // namespace abicheck
