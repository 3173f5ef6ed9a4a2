// `abicheck symbols FILE`: the dynamic symbols of one library, with versions (nm -D alike).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "tools/abicheck/commands.h"

namespace abicheck::cli {

int RunSymbols(const std::string& prog, std::vector<std::string> args) {
  CLI::App app{
      "Lists the dynamic symbols of FILE as the loader reads them, with versions "
      "(name@@V is the default definition, name@V a non-default one or a needed version).",
      prog + " symbols"};
  std::string file;
  OutputOptions out;
  SymbolListOptions options;
  app.add_option("FILE", file, "an ELF shared object")->required();
  app.add_flag("-C,--demangle", options.demangle, "demangle C++ and Rust names");
  app.add_flag("--defined-only", options.defined_only, "only symbols the file defines");
  app.add_flag("-u,--undefined-only", options.undefined_only, "only symbols the file needs");
  out.AddTo(app, {"text", "json"});
  app.footer("exit codes: 0 listed, 2 usage error, 3 unreadable or invalid input");
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  options.json = out.format == "json";
  // Written as it is made (a 15 MB listing is never held whole): to stdout, or to -o's file.
  FILE* to = stdout;
  if (!out.quiet && !out.output.empty() && (to = std::fopen(out.output.c_str(), "wb")) == nullptr) {
    std::fprintf(stderr, "%s: %s: %s\n", prog.c_str(), out.output.c_str(), std::strerror(errno));
    return kExitBadInput;
  }
  bool written = true;
  absl::Status st = ListSymbolsTo(file, options, [&](absl::string_view chunk) {
    if (!out.quiet) written &= std::fwrite(chunk.data(), 1, chunk.size(), to) == chunk.size();
  });
  if (to != stdout) written &= std::fclose(to) == 0;
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), std::string(st.message()).c_str());
    return ExitCodeForStatus(st);
  }
  if (!written) {
    std::fprintf(stderr, "%s: %s: %s\n", prog.c_str(),
                 out.output.empty() ? "stdout" : out.output.c_str(), std::strerror(errno));
    return kExitBadInput;
  }
  return 0;
}

}  // namespace abicheck::cli
