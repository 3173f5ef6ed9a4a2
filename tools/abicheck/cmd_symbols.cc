// `abicheck symbols FILE`: the dynamic symbols of one library, with versions (nm -D alike).
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "tools/abicheck/commands.h"

namespace abicheck::cli {

int RunSymbols(const std::string& prog, std::vector<std::string> args) {
  CLI::App app{"Lists the dynamic symbols of FILE as the loader reads them, with versions "
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
  absl::StatusOr<std::string> listing = ListSymbols(file, options);
  if (!listing.ok()) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), std::string(listing.status().message()).c_str());
    return ExitCodeForStatus(listing.status());
  }
  return Emit(prog, *listing, out) ? 0 : kExitBadInput;
}

}  // namespace abicheck::cli
