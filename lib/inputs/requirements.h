// What a wheel says it needs, read as pip reads it: PEP 508 requirements (Requires-Dist) with
// their environment markers, PEP 440 versions and specifiers, and PEP 427 wheel file names. Text
// only; nothing is run.
#ifndef ABICHECK_LIB_INPUTS_REQUIREMENTS_H_
#define ABICHECK_LIB_INPUTS_REQUIREMENTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace abicheck {

struct Requirement {
  std::string text;                 // as written, "nvidia-cuda-runtime-cu12==12.8.90; ..."
  std::string name;                 // PEP 503-normalized: "nvidia-cuda-runtime-cu12"
  std::vector<std::string> extras;  // "cuda-toolkit[cublas,cudart]" -> {cublas, cudart}
  std::string specifier;            // "==12.8.90", ">=2.8,<2.13"; "" for any version
  std::string marker;               // the text after ';', "" when none
  // The requirement without its marker, as a user would type it: "nvidia-cublas-cu12==12.8.4.1".
  std::string Short() const;
};
// A Requires-Dist value. kInvalidArgument naming what is malformed.
absl::StatusOr<Requirement> ParseRequirement(absl::string_view text);

// The values markers are evaluated against: the target's, not this machine's.
struct MarkerEnvironment {
  std::string python_version;       // "3.12"
  std::string python_full_version;  // "3.12.0"
  std::string platform_machine;     // "x86_64"
  std::string platform_system = "Linux";
  std::string sys_platform = "linux";
  std::string os_name = "posix";
  std::string implementation_name = "cpython";
  std::string platform_python_implementation = "CPython";
  std::string extra;  // the extra being resolved, "" for none
};
// The target of a wheel's tags: cp312 -> Python 3.12, manylinux_2_28_x86_64 -> x86_64 Linux.
// nullopt when the tags name no CPython release or no Linux machine.
std::optional<MarkerEnvironment> MarkerEnvironmentOfTags(absl::string_view python_tag,
                                                         absl::string_view platform_tag);
// PEP 508 environment markers: and, or, parentheses, the comparison operators, in / not in.
// kInvalidArgument for a marker that does not parse or names an unknown variable.
absl::StatusOr<bool> EvaluateMarker(absl::string_view marker, const MarkerEnvironment& env);

// PEP 440 ordering: < 0, 0, > 0. Versions that do not parse compare as text, after all that do.
int CompareVersions(absl::string_view a, absl::string_view b);
// Whether `version` satisfies every clause of `specifier` (comma-separated; "" is any version).
// kInvalidArgument for a clause that does not parse.
absl::StatusOr<bool> VersionSatisfies(absl::string_view version, absl::string_view specifier);

// The versions a specifier allows, as the bounds its clauses set in PEP 440 order: ==V is
// [V, V], ==V.* and ~=V the release ranges they name, <, <=, >, >= one side each; != and === set
// none. Coarser than VersionSatisfies (pre-releases, exclusions): for telling specifiers that allow
// no version together apart before an index is asked (env --suggest).
struct VersionBound {
  std::string version;
  bool inclusive = true;
};
struct VersionRange {
  std::optional<VersionBound> lower, upper;  // nullopt: unbounded on that side
};
// kInvalidArgument for a clause that does not parse (as VersionSatisfies).
absl::StatusOr<VersionRange> RangeOf(absl::string_view specifier);
// What every one of `ranges` allows; nullopt when they allow no version together.
std::optional<VersionRange> Intersect(const std::vector<VersionRange>& ranges);
// The smallest range that holds every one of `ranges`: what any allows, and what lies between.
VersionRange Cover(const std::vector<VersionRange>& ranges);
// The range as a specifier: ">=2.9.1,<=2.15.0"; "" when unbounded both sides.
std::string SpecifierOf(const VersionRange& range);

// PEP 427: {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl.
struct WheelName {
  std::string distribution;  // normalized
  std::string version;
  std::string python, abi, platform;  // compressed tag sets, "cp312", "manylinux_2_28_x86_64"
};
std::optional<WheelName> ParseWheelName(absl::string_view file_name);
// Whether pip would install a wheel of these tags for `target`'s Python and machine on Linux:
// its python tags name that CPython (cpXY, py3, py3X, abi3 from an older cp) and its platform
// tags that machine (linux, manylinux*, musllinux excluded) or any.
bool WheelFitsTarget(const WheelName& wheel, const MarkerEnvironment& target);

}  // namespace abicheck

#endif  // ABICHECK_LIB_INPUTS_REQUIREMENTS_H_
