// `abicheck cache list|clear`: what abicheck kept of published wheels and pip's resolutions.
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "abicheck/abicheck.h"
#include "absl/strings/str_format.h"
#include "lib/cli/commands.h"
#include "lib/report/text_util.h"

namespace abicheck::cli {

int RunCache(const Invocation& io, std::vector<std::string> args) {
  CLI::App app{
      "What abicheck keeps between runs (docs/cache.md): for each published wheel read by HTTP "
      "range requests (a pip: build, or a URL whose sha256 the index gave), the bytes the loader "
      "model read, keyed by the archive's sha256, so later runs (and --offline) read nothing "
      "from the network; and what pip resolved each requirement to. In $XDG_CACHE_HOME/abicheck "
      "(default ~/.cache/abicheck); ABICHECK_NO_CACHE=1 uses none.",
      io.prog + " cache"};
  app.require_subcommand(1);
  CLI::App* list = app.add_subcommand("list", "list the entries: kind, name, size, when written");
  CLI::App* clear = app.add_subcommand("clear", "remove every entry");
  app.footer("exit codes: 0 done, 2 usage error, 3 the cache cannot be read or removed");
  if (std::optional<int> done = Parse(io, app, std::move(args))) return *done;
  const std::string dir = CacheDirectory();
  if (dir.empty()) {
    std::fprintf(io.err,
                 "%s: no cache (ABICHECK_NO_CACHE is set, or neither XDG_CACHE_HOME nor HOME)\n",
                 io.prog.c_str());
    return list->parsed() ? 0 : kExitBadInput;
  }
  if (clear->parsed()) {
    absl::StatusOr<std::pair<uint64_t, uint64_t>> done = ClearCache();
    if (!done.ok()) {
      PrintError(io, done.status());
      return kExitBadInput;
    }
    std::fprintf(io.out, "%s: removed %llu entries (%.1f MB)\n", Printable(dir).c_str(),
                 static_cast<unsigned long long>(done->first),
                 static_cast<double>(done->second) / 1e6);
    return 0;
  }
  const std::vector<CacheItem> items = ListCache();
  uint64_t total = 0;
  for (const CacheItem& i : items) {
    char when[32] = "?";
    const std::time_t t = static_cast<std::time_t>(i.written);
    std::tm tm{};
    if (::gmtime_r(&t, &tm) != nullptr) std::strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
    const std::string size = i.bytes < 1000000
                                 ? absl::StrFormat("%.1f kB", static_cast<double>(i.bytes) / 1e3)
                                 : absl::StrFormat("%.1f MB", static_cast<double>(i.bytes) / 1e6);
    std::fprintf(io.out, "%-5s  %9s  %s  %s  %s\n", i.kind.c_str(), size.c_str(), when,
                 Printable(i.name).c_str(), Printable(i.detail).c_str());
    total += i.bytes;
  }
  std::fprintf(io.out, "%s: %zu entries, %.1f MB\n", Printable(dir).c_str(), items.size(),
               static_cast<double>(total) / 1e6);
  return 0;
}

}  // namespace abicheck::cli
