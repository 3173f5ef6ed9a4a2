// Differential tests: for every fixtures/loader scenario, abicheck's verdict and its first error
// must equal what the real loader's dlopen says, and its problem list must equal `ldd -r`'s.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "gtest/gtest.h"

namespace fs = std::filesystem;

namespace abicheck {
namespace {

struct Scenario {
  fs::path out;
  std::string module;
  std::vector<std::string> providers, preloads;
  std::string expect;
};

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs a shell command, returns its exit code and its stdout+stderr.
int RunShell(const std::string& cmd, std::string* output) {
  output->clear();
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) output->append(buf, n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::vector<std::string> ListScenarios() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(ABICHECK_FIXTURES)) {
    if (e.is_directory() && fs::exists(e.path() / "build.sh")) names.push_back(e.path().filename());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string Abs(const fs::path& out, const std::string& p) {
  return p.starts_with("/") ? p : (out / p).string();
}

std::string Base(const std::string& p) { return fs::path(p).filename().string(); }

// One normalized line per problem, as `ldd -r` can show it.
std::set<std::string> FromReport(const Report& r) {
  std::set<std::string> s;
  for (const Problem& p : r.problems) {
    switch (p.kind) {
      case ProblemKind::kUndefinedSymbol:
        s.insert("undefined " + Base(p.object) + " " + p.symbol + " " + p.version);
        break;
      case ProblemKind::kVersionNotFound:
        s.insert("version " + Base(p.object) + " " + p.version);
        break;
      case ProblemKind::kMissingLibrary:
      case ProblemKind::kWrongElfClass:
      case ProblemKind::kWrongMachine:
        s.insert("missing " + p.library);
        break;
      case ProblemKind::kNotLoadable:
        s.insert("not_loadable");
        break;
    }
  }
  return s;
}

std::set<std::string> FromLdd(const std::string& text) {
  std::set<std::string> s;
  static const std::regex missing(R"(^\s+(\S+) => not found$)");
  static const std::regex undefined(R"(^undefined symbol: ([^,\s]+)(, version (\S+))?\s+\((.*)\)$)");
  static const std::regex version(R"(version `([^']+)' not found \(required by (.*)\)$)");
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, missing)) {
      s.insert("missing " + m[1].str());
    } else if (std::regex_match(line, m, undefined)) {
      s.insert("undefined " + Base(m[4].str()) + " " + m[1].str() + " " + m[3].str());
    } else if (std::regex_search(line, m, version) && line.find("weak version") == std::string::npos) {
      s.insert("version " + Base(m[2].str()) + " " + m[1].str());
    }
  }
  return s;
}

std::string Join(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) out += "  " + x + "\n";
  return out.empty() ? "  (none)\n" : out;
}

class LoaderDifferential : public ::testing::TestWithParam<std::string> {};

TEST_P(LoaderDifferential, MatchesRealLoader) {
  const std::string name = GetParam();
  const fs::path src = fs::path(ABICHECK_FIXTURES) / name;
  Scenario sc;
  sc.out = fs::path(ABICHECK_FIXTURE_OUT) / name;
  fs::remove_all(sc.out);
  fs::create_directories(sc.out);
  std::string log;
  int rc = RunShell("cd " + Quote(sc.out) + " && SRC=" + Quote(src) + " sh -c '. \"$0\" && . \"$SRC/build.sh\"' " +
                   Quote((fs::path(ABICHECK_FIXTURES) / "lib.sh").string()),
               &log);
  if (rc == 77) GTEST_SKIP() << name << ": " << log;
  ASSERT_EQ(rc, 0) << "building fixture " << name << " failed:\n" << log;

  std::ifstream in(sc.out / "scenario.txt");
  std::string role, file;
  while (in >> role >> file) {
    if (role == "module") sc.module = Abs(sc.out, file);
    if (role == "provider") sc.providers.push_back(Abs(sc.out, file));
    if (role == "preload") sc.preloads.push_back(Abs(sc.out, file));
    if (role == "expect") sc.expect = file;
  }
  ASSERT_FALSE(sc.module.empty()) << "scenario.txt names no module";
  ASSERT_TRUE(sc.expect == "loads" || sc.expect == "fails") << "scenario.txt: expect loads|fails";

  // The real loader, once through dlopen (verdict and first error) and once through ldd -r.
  std::string probe_cmd = Quote(ABICHECK_PROBE);
  for (const std::string& g : sc.preloads) probe_cmd += " -g " + Quote(g);
  for (const std::string& p : sc.providers) probe_cmd += " " + Quote(p);
  probe_cmd += " -- " + Quote(sc.module);
  std::string probe_out;
  int probe_rc = RunShell(probe_cmd, &probe_out);
  ASSERT_NE(probe_rc, 2) << "a provider of the fixture does not load: " << probe_out;
  while (!probe_out.empty() && probe_out.back() == '\n') probe_out.pop_back();
  ASSERT_EQ(probe_rc == 0, sc.expect == "loads")
      << "the fixture no longer shows what it was built for; dlopen says: " << probe_out;

  std::string lib_path = sc.out.string();
  for (const std::string& p : sc.providers) lib_path += ":" + fs::path(p).parent_path().string();
  std::string preload;
  for (const std::string& g : sc.preloads) preload += (preload.empty() ? "" : ":") + g;
  std::string ldd_out;
  RunShell("cd " + Quote(sc.out) + " && LD_LIBRARY_PATH=" + Quote(lib_path) +
          (preload.empty() ? "" : " LD_PRELOAD=" + Quote(preload)) + " ldd -r " + Quote(sc.module),
      &ldd_out);

  CheckOptions options;
  options.providers = sc.providers;
  options.preload = sc.preloads;
  absl::StatusOr<Report> report = Check(sc.module, options);
  ASSERT_TRUE(report.ok()) << report.status();

  EXPECT_EQ(report->loads, probe_rc == 0) << "dlopen says: " << probe_out << "\n" << RenderText(*report, false);
  if (probe_rc != 0) {
    std::string first;
    for (const Problem& p : report->problems) {
      if (p.first) first = p.message;
    }
    EXPECT_EQ(first, probe_out) << RenderText(*report, false);
  }
  EXPECT_EQ(Join(FromReport(*report)), Join(FromLdd(ldd_out))) << "ldd -r says:\n" << ldd_out;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LoaderDifferential, ::testing::ValuesIn(ListScenarios()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace abicheck
