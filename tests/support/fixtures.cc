// See fixtures.h.
#include "tests/support/fixtures.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace abicheck::testing {

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

static int Run(const std::string& cmd, std::string* output) {
  output->clear();
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) output->append(buf, n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int RunShell(const std::string& cmd, std::string* output) { return Run(cmd + " 2>&1", output); }
int RunShellStdout(const std::string& cmd, std::string* out) {
  return Run(cmd + " 2>/dev/null", out);
}

std::vector<std::string> ListScenarios() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(ABICHECK_FIXTURES)) {
    if (e.is_directory() && fs::exists(e.path() / "build.sh")) names.push_back(e.path().filename());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool BuildScenario(const std::string& name, const std::string& out_root, Scenario* sc) {
  const fs::path src = fs::path(ABICHECK_FIXTURES) / name;
  const fs::path out = fs::path(out_root) / name;
  *sc = Scenario{};
  sc->name = name;
  sc->out = out.string();
  fs::remove_all(out);
  fs::create_directories(out);
  int rc = RunShell("cd " + ShellQuote(out) + " && SRC=" + ShellQuote(src) +
                        " sh -c '. \"$0\" && . \"$SRC/build.sh\"' " +
                        ShellQuote((fs::path(ABICHECK_FIXTURES) / "lib.sh").string()),
                    &sc->log);
  if (rc == 77) {
    sc->skipped = true;
    return true;
  }
  if (rc != 0) return false;
  auto abs = [&](const std::string& p) { return p.starts_with("/") ? p : (out / p).string(); };
  std::ifstream in(out / "scenario.txt");
  std::string role, file;
  while (in >> role >> file) {
    if (role == "module") sc->module = abs(file);
    if (role == "provider") sc->providers.push_back(abs(file));
    if (role == "preload") sc->preloads.push_back(abs(file));
    if (role == "expect") sc->expect = file;
    if (role == "ldd" && file == "differs") sc->ldd_differs = true;
  }
  return !sc->module.empty();
}

}  // namespace abicheck::testing
