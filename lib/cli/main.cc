// `abicheck ARGS...` as a table of subcommands (ninja's ChooseTool shape); `abicheck MODULE
// PROVIDER...` is `abicheck check ...`. The program's main and the C API's abicheck_run call Main.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lib/cli/commands.h"
#include "lib/report/text_util.h"

namespace {

struct Command {
  const char* name;
  int (*run)(const abicheck::cli::Invocation&, std::vector<std::string>);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"check", abicheck::cli::RunCheck,
     "will MODULE load against PROVIDER libraries? (the default)"},
    {"env", abicheck::cli::RunEnv,
     "which packages of an installed Python environment will not load with its torch"},
    {"gpu", abicheck::cli::RunGpu,
     "the CUDA device code of shared objects, and whether a GPU can run it"},
    {"symbols", abicheck::cli::RunSymbols,
     "list a library's dynamic symbols with versions (like nm -D)"},
    {"diff", abicheck::cli::RunDiff, "exports removed, changed and added between two builds"},
    {"index", abicheck::cli::RunIndex, "store what builds export in one file, for fast checks"},
    {"cache", abicheck::cli::RunCache,
     "list or clear what was kept of published wheels read before (pip: builds, URLs)"},
};

void Usage(FILE* out) {
  std::fprintf(
      out,
      "usage: abicheck MODULE PROVIDER...            same as: abicheck check MODULE PROVIDER...\n"
      "       abicheck COMMAND [ARGS...]\n\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-9s %s\n", c.name, c.summary);
  std::fprintf(out,
               "\nexit codes: 0 the module loads, 1 it will not load, 2 usage error,\n"
               "            3 unreadable or invalid input, 4 cannot tell (a verdict rests on a\n"
               "            library that was not given)\n"
               "`abicheck COMMAND --help` describes a command.\n");
}

}  // namespace

bool abicheck::cli::UseColor(const std::string& mode, FILE* out) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return ::isatty(::fileno(out)) == 1;
}

int abicheck::cli::Main(const Invocation& io, std::vector<std::string> args) {
  if (args.empty()) {
    Usage(io.err);
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    if (args[0] == "help" && args.size() > 1) {
      for (const Command& c : kCommands) {
        if (args[1] == c.name) return c.run(io, {"--help"});
      }
      std::fprintf(io.err, "%s: help: no command '%s' (`abicheck --help` lists them)\n",
                   io.prog.c_str(), abicheck::Printable(args[1]).c_str());
      return 2;
    }
    Usage(io.out);
    return 0;
  }
  if (args[0] == "--version") {
    std::fprintf(io.out, "abicheck %s\n", abicheck::Version());
    return 0;
  }
  for (const Command& c : kCommands) {
    if (args[0] == c.name) {
      args.erase(args.begin());
      // `abicheck check --version` is the version, not a usage error for want of a MODULE.
      for (const std::string& a : args) {
        if (a == "--") break;
        if (a == "--version") {
          std::fprintf(io.out, "abicheck %s\n", abicheck::Version());
          return 0;
        }
      }
      return c.run(io, std::move(args));
    }
  }
  // Not a command: the headline form `abicheck MODULE PROVIDER...`, unless it looks like a
  // mistyped command and is no file.
  if (args[0][0] != '-' && ::access(args[0].c_str(), F_OK) != 0) {
    for (const Command& c : kCommands) {
      if (EditDistance(args[0], c.name) <= 2) {
        std::fprintf(
            io.err, "%s: unknown command '%s'; did you mean '%s'? (`abicheck --help` lists them)\n",
            io.prog.c_str(), abicheck::Printable(args[0]).c_str(), c.name);
        return 2;
      }
    }
  }
  return abicheck::cli::RunCheck(io, std::move(args));
}
