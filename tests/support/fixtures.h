// Building fixtures/loader scenarios at test time, and running commands, for the tests that need
// real .so files (differential and golden CLI tests).
#ifndef ABICHECK_TESTS_SUPPORT_FIXTURES_H_
#define ABICHECK_TESTS_SUPPORT_FIXTURES_H_

#include <string>
#include <vector>

namespace abicheck::testing {

// Runs `cmd` with sh; returns its exit code (-1 if it did not exit) and its stdout+stderr.
int RunShell(const std::string& cmd, std::string* output);
// Runs `cmd` with sh; stdout only in `out`, stderr discarded.
int RunShellStdout(const std::string& cmd, std::string* out);
std::string ShellQuote(const std::string& s);

struct Scenario {
  std::string name;
  std::string out;  // the folder the scenario was built in
  std::string module;
  std::vector<std::string> providers, preloads;
  std::string expect;  // "loads", "fails" or "aborts" (ld.so dies on an assertion)
  // `ldd differs`: ldd's trace mode answers otherwise than dlopen (it skips DF_1_NOOPEN and the
  // ISA-level check, loads no providers...), so its problem list is not compared.
  bool ldd_differs = false;
  bool skipped = false;  // its build.sh exited 77 (e.g. no CUDA toolkit)
  std::string log;       // the build's output
};

// Every fixtures/loader/* folder with a build.sh, sorted.
std::vector<std::string> ListScenarios();
// Builds scenario `name` into `out_root`/name (emptied first). False with `log` on failure.
bool BuildScenario(const std::string& name, const std::string& out_root, Scenario* sc);

}  // namespace abicheck::testing

#endif  // ABICHECK_TESTS_SUPPORT_FIXTURES_H_
