// The output options shared by check, diff and symbols.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tools/abicheck/commands.h"

namespace abicheck::cli {

void OutputOptions::AddTo(CLI::App& app, std::vector<std::string> formats) {
  std::string list;
  for (const std::string& f : formats) list += (list.empty() ? "" : ", ") + f;
  app.add_option("--format", format, "report format: " + list)->check(CLI::IsMember(formats));
  app.add_option("-o,--output", output, "write the report to this file instead of stdout");
  app.add_flag("-q,--quiet", quiet, "print no report: the exit code is the answer");
  app.add_option("--color", color, "auto (a terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

bool Emit(const std::string& prog, const std::string& text, const OutputOptions& out) {
  if (out.quiet) return true;
  if (out.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return true;
  }
  FILE* f = std::fopen(out.output.c_str(), "wb");
  if (f == nullptr || std::fwrite(text.data(), 1, text.size(), f) != text.size() ||
      std::fclose(f) != 0) {
    std::fprintf(stderr, "%s: %s: %s\n", prog.c_str(), out.output.c_str(), std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace abicheck::cli
