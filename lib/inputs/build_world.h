// A torch build is the world pip installs with it (docs/loader-model.md E10): the wheel and the
// wheels its METADATA's Requires-Dist pins, transitively, with their markers evaluated for the
// wheel's own Python and platform — found among the wheels the user gives (--find-links) and
// those beside it, and laid out as pip lays them out in one site-packages, so that torch's RPATH
// ($ORIGIN/../../nvidia/...) reaches them.
#ifndef ABICHECK_LIB_INPUTS_BUILD_WORLD_H_
#define ABICHECK_LIB_INPUTS_BUILD_WORLD_H_

#include <memory>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/status/statusor.h"
#include "lib/inputs/inputs.h"
#include "lib/io/file_tree.h"

namespace abicheck {

struct BuildWorld {
  // The site-packages: the wheel's members and its dependencies', rooted at the wheel's path.
  std::shared_ptr<FileTree> tree;
  std::vector<ExpandedInput> dependencies;  // each dependency wheel used, expanded
  // Requirements that no given wheel satisfies, as written without their markers
  // ("nvidia-cuda-runtime-cu12==12.8.90"): only those that pin a version (==).
  std::vector<std::string> not_given;
  std::vector<std::string> notes;  // which wheel stands for which requirement, and why
};

// The world of `wheel` (an expanded archive): nullopt when it has no METADATA or its file name
// names no CPython and Linux machine. Errors: a malformed Requires-Dist or marker
// (kInvalidArgument, naming the METADATA), a dependency wheel that cannot be read (as
// ExpandInput says).
absl::StatusOr<std::optional<BuildWorld>> GatherBuildWorld(
    const ExpandedInput& wheel, const std::vector<std::string>& find_links,
    const InputLimits& limits);

}  // namespace abicheck

#endif  // ABICHECK_LIB_INPUTS_BUILD_WORLD_H_
