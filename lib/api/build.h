// An opened build (include/abicheck/abicheck.h, Build): what its input held, split as the loader
// sees it, and its libraries' parses, shared by the checks against it on any thread.
#ifndef ABICHECK_LIB_API_BUILD_H_
#define ABICHECK_LIB_API_BUILD_H_

#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "lib/inputs/inputs.h"
#include "lib/resolve/parse_cache.h"

namespace abicheck {

struct Build::State {
  // What the path held: its objects, kind, notes and text members; input.path is the build's
  // name ("INDEX#NAME" for one build of an index of several), input.index_build its name there.
  ExpandedInput input;
  std::vector<InputFile> providers;  // the objects, libtorch_global_deps aside ...
  std::vector<InputFile> preload;    // ... which import torch loads RTLD_GLOBAL (E1)
  mutable SharedParseCache parses;   // the objects' parses, made on first use
};

// The error for `builds` (of `path`) where one build is wanted.
absl::Status SeveralBuilds(const std::string& path, const std::vector<Build>& builds);

}  // namespace abicheck

#endif  // ABICHECK_LIB_API_BUILD_H_
