// Differential tests: for every fixtures/loader scenario, abicheck's verdict and its first error
// must equal what the real loader's dlopen says, and its problem list must equal `ldd -r`'s.
#include <sys/wait.h>

#include <algorithm>
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
#include "lib/index/index_file.h"
#include "lib/io/blob.h"
#include "lib/io/mapped_file.h"
#include "lib/report/render.h"
#include "tests/support/fixtures.h"

namespace fs = std::filesystem;

namespace abicheck {
namespace {

using ::abicheck::testing::BuildScenario;
using ::abicheck::testing::ListScenarios;
using ::abicheck::testing::RunShell;
using ::abicheck::testing::Scenario;
using ::abicheck::testing::ShellQuote;

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
        // ldd names the module "not a dynamic executable"; a dependency it refuses, by the
        // message (its name as ld.so gives it, reduced to the file name).
        if (p.object == r.module && r.libraries.empty()) {
          s.insert("not_loadable");
        } else {
          s.insert("refused " + Base(p.message.substr(0, p.message.find(": "))));
        }
        break;
      case ProblemKind::kLoaderAssertion:
        s.insert("assertion");
        break;
      case ProblemKind::kNoKernelImage:
      case ProblemKind::kUnsupportedPtx:
      case ProblemKind::kInsufficientDriver:
        break;  // after loading: not the loader's to judge
    }
  }
  return s;
}

std::set<std::string> FromLdd(const std::string& text) {
  std::set<std::string> s;
  static const std::regex missing(R"(^\s+(\S+) => not found$)");
  static const std::regex undefined(
      R"(^undefined symbol: ([^,\s]+)(, version (\S+))?\s+\((.*)\)$)");
  static const std::regex version(R"(version `([^']+)' not found \(required by (.*)\)$)");
  static const std::regex refused(R"(error while loading shared libraries: ([^:]+): )");
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (line == "\tnot a dynamic executable") {  // ldd's word for what dlopen cannot load
      s.insert("not_loadable");
    } else if (line.starts_with("Inconsistency detected by ld.so: ")) {
      s.insert("assertion");
    } else if (std::regex_search(line, m, refused)) {
      s.insert("refused " + Base(m[1].str()));
    } else if (std::regex_match(line, m, missing)) {
      s.insert("missing " + m[1].str());
    } else if (std::regex_match(line, m, undefined)) {
      s.insert("undefined " + Base(m[4].str()) + " " + m[1].str() + " " + m[3].str());
    } else if (std::regex_search(line, m, version) &&
               line.find("weak version") == std::string::npos) {
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
  Scenario sc;
  ASSERT_TRUE(BuildScenario(name, ABICHECK_FIXTURE_OUT, &sc))
      << "building fixture " << name << " failed:\n"
      << sc.log;
  if (sc.skipped) GTEST_SKIP() << name << ": " << sc.log;
  ASSERT_TRUE(sc.expect == "loads" || sc.expect == "fails" || sc.expect == "aborts" ||
              sc.expect == "unknown")
      << "scenario.txt: expect loads|fails|aborts|unknown";

  // The real loader, once through dlopen (verdict and first error) and once through ldd -r.
  std::string probe_cmd = ShellQuote(ABICHECK_PROBE);
  for (const std::string& g : sc.preloads) probe_cmd += " -g " + ShellQuote(g);
  for (const std::string& p : sc.providers) probe_cmd += " " + ShellQuote(p);
  probe_cmd += " -- " + ShellQuote(sc.module);
  std::string probe_out;
  int probe_rc = RunShell(probe_cmd, &probe_out);
  if (sc.expect == "unknown") {
    // C2c: what the files given leave open is unknown, never "loads" — and the real loader,
    // given the same files, cannot even load the provider whose dependency is missing.
    EXPECT_EQ(probe_rc, 2) << "the provider loads, so nothing is missing: " << probe_out;
    CheckOptions options;
    options.providers = sc.providers;
    options.preload = sc.preloads;
    absl::StatusOr<Report> report = Check(sc.module, options);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->verdict(), Verdict::kUnknown) << RenderText(*report, false);
    EXPECT_FALSE(report->loads);
    EXPECT_FALSE(report->unknown_because.empty());
    return;
  }
  ASSERT_NE(probe_rc, 2) << "a provider of the fixture does not load: " << probe_out;
  while (!probe_out.empty() && probe_out.back() == '\n') probe_out.pop_back();
  ASSERT_EQ(probe_rc == 0, sc.expect == "loads")
      << "the fixture no longer shows what it was built for; dlopen says: " << probe_out;
  // ld.so's assertions end the process with _exit(127) (_dl_fatal_printf).
  ASSERT_EQ(probe_rc == 127, sc.expect == "aborts") << "dlopen says: " << probe_out;

  std::string lib_path = sc.out;
  for (const std::string& p : sc.providers) lib_path += ":" + fs::path(p).parent_path().string();
  std::string preload;
  for (const std::string& g : sc.preloads) preload += (preload.empty() ? "" : ":") + g;
  std::string ldd_out;
  RunShell("cd " + ShellQuote(sc.out) + " && LD_LIBRARY_PATH=" + ShellQuote(lib_path) +
               (preload.empty() ? "" : " LD_PRELOAD=" + ShellQuote(preload)) + " ldd -r " +
               ShellQuote(sc.module),
           &ldd_out);

  CheckOptions options;
  options.providers = sc.providers;
  options.preload = sc.preloads;
  options.same_stem_stand_ins = false;  // the pure loader model, symbol for symbol like ldd -r
  absl::StatusOr<Report> report = Check(sc.module, options);
  ASSERT_TRUE(report.ok()) << report.status();

  EXPECT_EQ(report->loads, probe_rc == 0) << "dlopen says: " << probe_out << "\n"
                                          << RenderText(*report, false);
  if (probe_rc != 0) {
    std::string first;
    for (const Problem& p : report->problems) {
      if (p.first) first = p.message;
    }
    EXPECT_EQ(first, probe_out) << RenderText(*report, false);
  }
  if (sc.expect == "aborts") {
    EXPECT_TRUE(std::any_of(report->problems.begin(), report->problems.end(), [](const Problem& p) {
      return p.first && p.kind == ProblemKind::kLoaderAssertion;
    })) << RenderText(*report, false);
  }
  if (!sc.ldd_differs) {
    std::set<std::string> ours = FromReport(*report), ldds = FromLdd(ldd_out);
    // A refused library or an assertion ends ldd too: it lists nothing after it, while we go on
    // and list what else the load would miss.
    auto fatal = [](const std::string& x) { return x.starts_with("refused ") || x == "assertion"; };
    if (std::any_of(ldds.begin(), ldds.end(), fatal))
      std::erase_if(ours, [&](const std::string& x) { return !fatal(x); });
    EXPECT_EQ(Join(ours), Join(ldds)) << "ldd -r says:\n" << ldd_out;
  }
}

// The same scenario with its providers read back from an index: the index keeps, per library,
// the entries each name's hash chain leads to (lib/index/name_blocks.h) and binding runs on them
// through the same Loader::LookupIn — this proves the two give the same answer, rule by rule.
TEST_P(LoaderDifferential, IndexBindsLikeTheFiles) {
  const std::string name = GetParam();
  Scenario sc;
  // A folder of its own: ctest may run MatchesRealLoader on the same scenario at the same time,
  // and a build starts by emptying its folder.
  ASSERT_TRUE(BuildScenario(name, std::string(ABICHECK_FIXTURE_OUT) + "/index", &sc))
      << "building fixture " << name << " failed:\n"
      << sc.log;
  if (sc.skipped) GTEST_SKIP() << name << ": " << sc.log;
  if (sc.providers.empty()) GTEST_SKIP() << name << ": no providers given";
  IndexedBuild build{"fixture", {}, {}, {}};
  for (const std::string& p : sc.providers) {
    absl::StatusOr<MappedFile> f = MappedFile::Open(p);
    ASSERT_TRUE(f.ok()) << f.status();
    build.objects.push_back(InputFile{p, p, std::make_shared<MappedBlob>(*std::move(f)), nullptr});
  }
  const std::string index = sc.out + "/providers.abix";
  absl::StatusOr<IndexStats> st = WriteIndex({build}, index);
  ASSERT_TRUE(st.ok()) << st.status();

  CheckOptions options;
  options.preload = sc.preloads;
  options.same_stem_stand_ins = false;
  options.providers = sc.providers;
  absl::StatusOr<Report> files = Check(sc.module, options);
  options.providers = {index + "#fixture"};
  absl::StatusOr<Report> indexed = Check(sc.module, options);
  // And once more through a merged index: `abicheck index a.abix -o b.abix` reads the entries
  // back through the index and writes them again, chain order included.
  const std::string merged = sc.out + "/merged.abix";
  absl::StatusOr<IndexSummary> m = BuildIndex({index}, {}, merged, InputLimits{});
  ASSERT_TRUE(m.ok()) << m.status();
  options.providers = {merged + "#fixture"};
  absl::StatusOr<Report> remerged = Check(sc.module, options);
  ASSERT_TRUE(files.ok()) << files.status();
  for (const absl::StatusOr<Report>* r : {&indexed, &remerged}) {
    ASSERT_TRUE(r->ok()) << r->status();
    const Report& got = **r;
    EXPECT_EQ(got.loads, files->loads) << RenderText(got, false);
    EXPECT_EQ(got.references_checked, files->references_checked);
    ASSERT_EQ(got.problems.size(), files->problems.size())
        << RenderText(got, false) << RenderText(*files, false);
    for (size_t i = 0; i < files->problems.size(); ++i) {
      EXPECT_EQ(got.problems[i].message, files->problems[i].message);
      EXPECT_EQ(got.problems[i].first, files->problems[i].first);
      EXPECT_EQ(got.problems[i].hint, files->problems[i].hint);
    }
  }
}

// docs/loader-model.md A12: the host (2.36) loads an object that needs an executable stack, and
// the fixture proves that against the real loader; glibc 2.41 refuses it in dlopen, which only
// --glibc can show here.
TEST(GlibcRelease, ExecStackRefusedFrom241) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("execstack_module", ABICHECK_FIXTURE_OUT, &sc)) << sc.log;
  CheckOptions options;
  options.glibc = "2.36";
  absl::StatusOr<Report> old_glibc = Check(sc.module, options);
  ASSERT_TRUE(old_glibc.ok()) << old_glibc.status();
  EXPECT_TRUE(old_glibc->loads) << RenderText(*old_glibc, false);
  options.glibc = "2.41";
  absl::StatusOr<Report> new_glibc = Check(sc.module, options);
  ASSERT_TRUE(new_glibc.ok()) << new_glibc.status();
  EXPECT_FALSE(new_glibc->loads);
  ASSERT_EQ(new_glibc->problems.size(), 1u) << RenderText(*new_glibc, false);
  EXPECT_EQ(new_glibc->problems[0].message,
            sc.module +
                ": cannot enable executable stack as shared object requires: Invalid "
                "argument");
  // The dependency without the flag is fine on both: only the object that asks is refused.
  EXPECT_EQ(new_glibc->problems[0].kind, ProblemKind::kNotLoadable);
}

// docs/loader-model.md C2a (issue 15): a provider's own dependency that is not among the files
// was loaded with the provider, so a module's DT_NEEDED of the same name is satisfied by name,
// as dlopen satisfies it — the verdict depends on that library, and says so.
TEST(ProviderDependency, SatisfiesTheSameDtNeededByName) {
  const std::string dir = std::string(ABICHECK_FIXTURE_OUT) + "/provider_dependency";
  std::string log;
  ASSERT_EQ(RunShell("rm -rf " + ShellQuote(dir) + " && mkdir -p " + ShellQuote(dir + "/q") +
                         " && cd " + ShellQuote(dir) +
                         " && printf 'int q(void) { return 1; }\\n' > q.c"
                         " && printf 'Q_1 { global: q; local: *; };\\n' > q.map"
                         " && printf 'int q(void); int p(void) { return q(); }\\n' > p.c"
                         " && printf 'int p(void); int q(void); int use(void) { return p() + q(); "
                         "}\\n' > mod.c"
                         // Versioned, so the module also has a version requirement on libq.so.
                         " && cc -shared -fPIC -o q/libq.so q.c -Wl,-soname,libq.so "
                         "-Wl,--version-script=q.map"
                         " && cc -shared -fPIC -o libp.so p.c -Wl,-soname,libp.so -Lq -lq "
                         "-Wl,-rpath,'$ORIGIN/q'"
                         " && cc -shared -fPIC -o mod.so mod.c -L. -Lq -lp -lq",
                     &log),
            0)
      << log;
  // The real loader, with everything there: the provider loads libq.so, the module matches it.
  std::string probe;
  ASSERT_EQ(RunShell(ShellQuote(ABICHECK_PROBE) + " " + ShellQuote(dir + "/libp.so") + " -- " +
                         ShellQuote(dir + "/mod.so"),
                     &probe),
            0)
      << probe;
  // The user's situation: the provider is given, its dependency is not among the files.
  ASSERT_EQ(RunShell("mv " + ShellQuote(dir + "/q") + " " + ShellQuote(dir + "/q.gone"), &log), 0);
  CheckOptions options;
  options.providers = {dir + "/libp.so"};
  options.use_host = true;
  absl::StatusOr<Report> r = Check(dir + "/mod.so", options);
  ASSERT_TRUE(r.ok()) << r.status();
  // No missing library is reported (libq.so matches by name), but q() may be defined only in
  // the file that is not there: the verdict is unknown, never "loads" (C2c).
  EXPECT_FALSE(r->loads) << RenderText(*r, false);
  EXPECT_TRUE(r->problems.empty()) << RenderText(*r, false);
  EXPECT_EQ(r->verdict(), Verdict::kUnknown);
  EXPECT_EQ(r->assumed_loaded, std::vector<std::string>{"libq.so"});
  EXPECT_EQ(r->unknown_because, std::vector<std::string>{"libq.so"});
  EXPECT_EQ(r->unverified_references, 1) << "q() may be defined by libq.so";
  EXPECT_NE(RenderText(*r, false).find("CANNOT TELL: " + dir + "/mod.so (libq.so not given)"),
            std::string::npos)
      << RenderText(*r, false);
  // Given back, the same check is decided, as the real loader decided it.
  ASSERT_EQ(RunShell("mv " + ShellQuote(dir + "/q.gone") + " " + ShellQuote(dir + "/q"), &log), 0);
  r = Check(dir + "/mod.so", options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict(), Verdict::kLoads) << RenderText(*r, false);
}

// Issue 15: a load that brings in a second copy of a library the build provides succeeds, as
// dlopen's does (fixture second_copy_same_stem) — and says so up front, in JSON and in SARIF.
TEST(SecondCopy, IsWarnedInEveryFormat) {
  Scenario sc;
  ASSERT_TRUE(BuildScenario("second_copy_same_stem", ABICHECK_FIXTURE_OUT, &sc)) << sc.log;
  CheckOptions options;
  options.providers = sc.providers;
  absl::StatusOr<Report> r = Check(sc.module, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->loads);
  ASSERT_EQ(std::count_if(r->warnings.begin(), r->warnings.end(),
                          [](const Warning& w) { return w.kind == WarningKind::kSecondCopy; }),
            1)
      << RenderText(*r, false);
  const std::string text = RenderText(*r, false);
  EXPECT_LT(text.find("hazard: a second copy of libc10.so"), text.find("warnings ("))
      << "said up front, not only among the notes:\n"
      << text;
  EXPECT_NE(RenderJson(*r).find("\"kind\": \"second_copy\""), std::string::npos);
  EXPECT_NE(RenderSarif({*r}).find("\"ruleId\": \"second_copy\""), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LoaderDifferential, ::testing::ValuesIn(ListScenarios()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace abicheck
