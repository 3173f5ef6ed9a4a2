// `abicheck symbols FILE`: the dynamic symbols of one library, with versions (nm -D alike).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "lib/cli/commands.h"
#include "lib/io/output_file.h"
#include "lib/report/text_util.h"

namespace abicheck::cli {

int RunSymbols(const Invocation& io, std::vector<std::string> args) {
  CLI::App app{
      "Lists the dynamic symbols of FILE as the loader reads them, with versions "
      "(name@@V is the default definition, name@V a non-default one or a needed version).",
      io.prog + " symbols"};
  std::string file;
  OutputOptions out;
  out.terminal = io.out;
  SymbolListOptions options;
  app.add_option("FILE", file, "an ELF shared object")->required();
  app.add_flag("-C,--demangle", options.demangle, "demangle C++ and Rust names");
  app.add_flag("--defined-only", options.defined_only, "only symbols the file defines");
  app.add_flag("-u,--undefined-only", options.undefined_only, "only symbols the file needs");
  out.AddTo(app, {"text", "json"});
  app.footer("exit codes: 0 listed, 2 usage error, 3 unreadable or invalid input");
  if (std::optional<int> done = Parse(io, app, std::move(args))) return *done;
  if (OutputIsAnInput(io, out.output, {file})) return kExitUsage;
  options.json = out.format == "json";
  // Written as it is made (a 15 MB listing is never held whole): to stdout, or to -o's file,
  // which appears only once the listing is complete.
  std::optional<OutputFile> to;
  if (!out.quiet && !out.output.empty()) {
    absl::StatusOr<OutputFile> f = OutputFile::Create(out.output);
    if (!f.ok()) {
      PrintError(io, f.status());
      return kExitBadInput;
    }
    to.emplace(std::move(*f));
  }
  absl::Status written;
  absl::Status st = ListSymbolsTo(file, options, [&](absl::string_view chunk) {
    if (out.quiet || !written.ok()) return;
    if (to) {
      written = to->Write(chunk);
    } else if (std::fwrite(chunk.data(), 1, chunk.size(), io.out) != chunk.size()) {
      written = absl::UnavailableError(absl::StrCat("stdout: ", std::strerror(errno)));
    }
  });
  if (!st.ok()) {
    PrintError(io, st);
    return ExitCodeForStatus(st);
  }
  if (written.ok() && to) written = to->Commit();
  if (!written.ok()) {
    PrintError(io, written);
    return kExitBadInput;
  }
  return 0;
}

}  // namespace abicheck::cli
