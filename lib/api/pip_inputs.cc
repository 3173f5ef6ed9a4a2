// pip: inputs (issue 33): a requirement replaced by the wheels pip resolves it to.

#include <utility>

#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lib/api/check_internal.h"
#include "lib/api/limits.h"
#include "lib/inputs/pip.h"
#include "lib/io/byte_source.h"
#include "lib/io/http_source.h"
#include "lib/util/status_macros.h"

namespace abicheck {

PipTarget PipTargetOf(const CheckOptions& options, const InputLimits& limits,
                      const std::string& python_version) {
  PipTarget target;
  target.python_version = python_version.empty() ? options.pip_python_version : python_version;
  target.index_args = options.pip_index_args;
  for (const std::string& d : options.find_links)
    target.index_args.insert(target.index_args.end(), {"--find-links", d});
  target.offline = limits.offline;
  return target;
}

absl::StatusOr<std::vector<std::string>> ExpandPipInputs(const std::vector<std::string>& inputs,
                                                         const CheckOptions& options,
                                                         const InputLimits& limits,
                                                         const std::string& python_version,
                                                         std::vector<Warning>* notes) {
  std::vector<std::string> out;
  const PipTarget target = PipTargetOf(options, limits, python_version);
  for (const std::string& in : inputs) {
    if (IsUrl(in)) {
      // A URL's credentials are used to read it (and its origin's other URLs), never said: the
      // input is named without them from here on.
      RememberHttpCredentials(in);
      out.push_back(WithoutCredentials(in));
      continue;
    }
    if (!IsPipInput(in)) {
      out.push_back(in);
      continue;
    }
    std::vector<std::string> said;
    ABICHECK_ASSIGN_OR_RETURN(std::vector<PipWheel> wheels, ResolvePipInput(in, target, &said));
    for (std::string& n : said) notes->push_back({in, std::move(n)});
    for (const PipWheel& w : wheels) {
      notes->push_back({w.location, absl::StrCat("pip resolves ", w.requirement, " to this wheel",
                                                 w.sha256.empty() ? "" : " (sha256 ", w.sha256,
                                                 w.sha256.empty() ? "" : ")")});
      out.push_back(w.location);
    }
  }
  return out;
}

}  // namespace abicheck
