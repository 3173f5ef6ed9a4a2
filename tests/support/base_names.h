// The diagnosis indexes an exported C++ name only by the source names that can be its base name
// (lib/symbols/source_names.h MayBeBaseName), where it used to index every source name. This
// checks, on a real library, that the narrower index loses no candidate: every defined function
// whose mangled name holds its own base name (as the diagnosis spells it) holds it where
// MayBeBaseName looks.
#ifndef ABICHECK_TESTS_SUPPORT_BASE_NAMES_H_
#define ABICHECK_TESTS_SUPPORT_BASE_NAMES_H_

#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "lib/demangle/demangle.h"
#include "lib/diagnose/diagnose.h"
#include "lib/symbols/source_names.h"

namespace abicheck {

struct BaseNameCheck {
  size_t functions = 0;             // defined functions with a base name, checked
  std::vector<std::string> missed;  // whose base name only a scan of every source name finds
};

inline BaseNameCheck CheckBaseNamesIndexed(const std::string& library) {
  BaseNameCheck out;
  SymbolListOptions opts;
  opts.defined_only = true;
  absl::StatusOr<std::vector<SymbolRow>> rows = ListSymbols(library, opts);
  if (!rows.ok()) {
    out.missed.push_back(std::string(rows.status().message()));
    return out;
  }
  for (const SymbolRow& row : *rows) {
    if (!absl::StartsWith(row.name, "_Z")) continue;
    FunctionParts f;
    if (!SplitFunction(row.name, &f) || f.base.empty()) continue;
    ++out.functions;
    const std::string token = SourceName(StripAbiTags(f.base));
    bool anywhere = false, kept = false;
    ForEachSourceName(row.name, [&](absl::string_view t) {
      if (t != token) return;
      anywhere = true;
      kept = kept || MayBeBaseName(row.name, t);
    });
    if (anywhere && !kept) out.missed.push_back(row.name);
  }
  return out;
}

}  // namespace abicheck

#endif  // ABICHECK_TESTS_SUPPORT_BASE_NAMES_H_
