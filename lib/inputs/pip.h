// `pip:REQ` inputs (issue 33): a requirement resolved to the wheels a package index publishes,
// through the user's own pip — `pip install --dry-run --report` gives each wheel's URL and
// sha256 without downloading it; `pip index versions` lists the releases a range matches. pip's
// configuration and the index options given decide which index: no index host is written here.
// Only pip is run, never anything it would install.
#ifndef ABICHECK_LIB_INPUTS_PIP_H_
#define ABICHECK_LIB_INPUTS_PIP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace abicheck {

struct PipTarget {
  // The interpreter whose pip resolves ($ABICHECK_PIP_PYTHON, else python3 on PATH).
  std::string python;
  // Passed through to pip: "--index-url", URL, "--extra-index-url", URL, "--find-links", DIR.
  std::vector<std::string> index_args;
  // The target's Python ("3.12") and machine ("x86_64"); "" for pip's own interpreter's.
  std::string python_version, machine;
  // --offline: pip is not run; only what abicheck's cache kept of earlier resolutions answers.
  bool offline = false;
};

struct PipWheel {
  std::string requirement;  // "torch==2.10.0"
  std::string location;     // a URL, or a local path (pip's file:// URL for --find-links DIR)
  std::string sha256;       // as pip's report gives it; "" when it gives none
};

// "pip:torch==2.10.0" -> true.
bool IsPipInput(absl::string_view input);

// The wheels `input` ("pip:REQ") stands for: one for an exact pin, every release a range matches
// (newest first, at most 16, the rest said in `notes`). kNotFound when pip resolves nothing,
// kUnavailable when pip cannot be run, kInvalidArgument for a malformed requirement; each names
// the requirement and pip's own last error line.
absl::StatusOr<std::vector<PipWheel>> ResolvePipInput(absl::string_view input,
                                                      const PipTarget& target,
                                                      std::vector<std::string>* notes);

// Every release of `name` the index lists for the target (`pip index versions`), as pip
// prints them (newest first); cached as a range's releases are.
absl::StatusOr<std::vector<std::string>> ListReleases(const std::string& name,
                                                      const PipTarget& target);

// For each requirement, the one wheel `pip install REQ` would take (no dependencies followed),
// all asked of pip at once: the pinned dependencies of a remote torch wheel (docs/loader-model.md
// E10), fetched the way the wheel was. Each fails as ResolvePipInput does.
std::vector<absl::StatusOr<PipWheel>> LocateRequirements(const std::vector<std::string>& reqs,
                                                         const PipTarget& target);

}  // namespace abicheck

#endif  // ABICHECK_LIB_INPUTS_PIP_H_
