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

#include "absl/status/statusor.h"
#include "lib/inputs/inputs.h"
#include "lib/inputs/pip.h"
#include "lib/io/file_tree.h"
#include "lib/io/read_limits.h"

namespace abicheck {

// Where a world is placed: alone, rooted at the wheel's own path (E10), or over an installed
// environment's site-packages, as `pip install` of the wheel there would leave it (E11).
struct InstalledVersion {
  std::string name;  // PEP 503-normalized
  std::string version;
  std::vector<std::string> requirements;    // its Requires-Dist, as written
  std::vector<std::string> shared_objects;  // its ELF files' absolute paths (RECORD)
};
struct WorldPlacement {
  std::string site_packages;
  std::vector<InstalledVersion> installed;
};

struct BuildWorld {
  // The site-packages: the wheel's members and its dependencies', rooted at the wheel's path
  // (or an overlay of the placement's site-packages, hiding the files of what it replaces).
  std::shared_ptr<FileTree> tree;
  std::vector<ExpandedInput> dependencies;  // each dependency wheel used, expanded
  // Requirements that no given wheel satisfies, as written without their markers
  // ("nvidia-cuda-runtime-cu12==12.8.90"): only those that pin a version (==).
  std::vector<std::string> not_given;
  std::vector<std::string> notes;  // which wheel stands for which requirement, and why
  // Placed over an environment: the installed distributions pip removes (the build's own
  // distribution among them; normalized names) and, said once, what changes: replacements
  // ("triton 3.6.0 -> 3.9.0") and additions ("nvidia-cublas 13.4.1.3"); what an installed
  // distribution satisfies is kept, unsaid.
  std::vector<std::string> replaced;
  // Per replaced distribution (as in `replaced`), the shared objects its pinned wheel installs,
  // relative to the site-packages ("triton/plugins/libMLIRDialectPlugin.so").
  std::vector<std::pair<std::string, std::vector<std::string>>> replaced_objects;
  std::vector<std::string> replacements;
  // Of `replaced`, those whose required version no given wheel has (replaced by "(not given)"):
  // (name, the requirement as written without markers, "triton==3.7.1"). What that version
  // installs is not known (E12).
  std::vector<std::pair<std::string, std::string>> replaced_not_given;
  std::vector<std::string> additions;
};

// The world of `wheel` (an expanded archive): nullopt when it has no METADATA or its file name
// names no CPython and Linux machine. Errors: a malformed Requires-Dist or marker
// (kInvalidArgument, naming the METADATA), a dependency wheel that cannot be read (as
// ExpandInput says).
// With `into`: placed over that environment (E11) — a requirement an installed distribution
// satisfies keeps it (pip's "already satisfied"); one it does not replaces it. With `pip` and a
// wheel given as a URL (a published build, issue 33): a requirement no given wheel satisfies is
// resolved by pip (its index options; the wheel's own Python and machine) and read by range
// requests as the wheel is.
absl::StatusOr<std::optional<BuildWorld>> GatherBuildWorld(
    const ExpandedInput& wheel, const std::vector<std::string>& find_links,
    const ReadLimits& limits, const WorldPlacement* into = nullptr, const PipTarget* pip = nullptr);

// A build of an index made from a wheel (ExpandedInput::index_wheel) as that wheel: its objects
// and texts under the wheel's path or URL, where its objects' paths lie, so that
// GatherBuildWorld lays its world out as the wheel's (E10, E12) — from the wheels --find-links
// gives, not those beside where the wheel was when indexed. nullopt for any other input.
std::optional<ExpandedInput> IndexedWheel(const ExpandedInput& in);

// Reads into abicheck's cache, several at once, the wheels the worlds of `wheels` (remote builds)
// are laid out with, as GatherBuildWorld chooses them (the same find_links, placement and pip;
// their pins asked of pip in one run for all builds), so that gathering each world after — one
// build at a time — finds them there: each wheel read once, while another is waiting on the
// network (issue 33). Errors are left for the gathering to say. Nothing without a cache, or
// offline.
void PrefetchBuildWorlds(const std::vector<const ExpandedInput*>& wheels,
                         const std::vector<std::string>& find_links, const ReadLimits& limits,
                         const WorldPlacement* into, const PipTarget& pip);

}  // namespace abicheck

#endif  // ABICHECK_LIB_INPUTS_BUILD_WORLD_H_
