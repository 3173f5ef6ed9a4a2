// BuildIndex: expand each build input, then write one index of all of them.
#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/api/build.h"
#include "lib/index/index_file.h"
#include "lib/inputs/inputs.h"
#include "lib/util/status_macros.h"

namespace abicheck {

absl::StatusOr<IndexSummary> BuildIndex(const std::vector<std::string>& builds,
                                        const std::vector<std::string>& names,
                                        const std::string& output, const InputLimits& limits) {
  if (!names.empty() && names.size() != builds.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%d names for %d builds", names.size(), builds.size()));
  }
  std::vector<IndexedBuild> indexed;
  for (size_t i = 0; i < builds.size(); ++i) {
    // Each input read once: merging an index reads it once for all its builds.
    ABICHECK_ASSIGN_OR_RETURN(std::vector<Build> opened,
                              OpenBuildsAs(builds[i], limits, WheelDependencies::kAlone, {}));
    if (!opened.front().state().input.index_build.empty() && names.empty()) {
      // Merging indexes: every build they hold, under its own name.
      for (const Build& b : opened) {
        const ExpandedInput& in = b.state().input;
        indexed.push_back({in.index_build, in.objects, in.index_wheel, in.texts});
      }
      continue;
    }
    if (opened.size() > 1) return SeveralBuilds(builds[i], opened);
    const ExpandedInput& in = opened.front().state().input;
    if (in.objects.empty())
      return absl::InvalidArgumentError(absl::StrCat(builds[i], ": no ELF shared objects"));
    std::string name = names.empty() ? builds[i].substr(builds[i].rfind('/') + 1) : names[i];
    if (names.empty() && absl::EndsWith(name, ".whl")) name.resize(name.size() - 4);
    // A wheel's world is laid out from its METADATA where its objects' paths lie (E10, E12):
    // the index keeps both (only a wheel, or an index's build made from one, has texts).
    indexed.push_back(
        {name, in.objects, in.kind == "archive" ? in.path : in.index_wheel, in.texts});
  }
  ABICHECK_ASSIGN_OR_RETURN(IndexStats st, WriteIndex(indexed, output));
  IndexSummary summary;
  summary.path = output;
  for (const IndexedBuild& b : indexed) summary.builds.push_back(b.name);
  summary.libraries = st.libraries;
  summary.names = st.names;
  summary.file_bytes = st.file_bytes;
  return summary;
}

}  // namespace abicheck
