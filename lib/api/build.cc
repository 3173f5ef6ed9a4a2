// OpenBuild and OpenBuilds: a build input read once (an index of K builds in one read), and the
// checks against an opened build.
#include "lib/api/build.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/api/check_internal.h"
#include "lib/inputs/python_env.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

Build MakeBuild(ExpandedInput in) {
  auto s = std::make_shared<Build::State>();
  for (const InputFile& f : in.objects) {
    (IsGlobalDeps(f) ? s->preload : s->providers).push_back(f);
    s->parses.AddMember(f);
  }
  s->input = std::move(in);
  return Build(std::move(s));
}

std::vector<std::string> Names(const std::vector<Build>& builds) {
  std::vector<std::string> names;
  names.reserve(builds.size());
  for (const Build& b : builds) names.push_back(b.state().input.index_build);
  return names;
}

}  // namespace

const std::string& Build::name() const { return state_->input.path; }

size_t Build::library_count() const { return state_->input.objects.size(); }

absl::StatusOr<std::optional<ExpandedInput>> ExpandInstalledTorch(const std::string& path,
                                                                  const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(std::optional<std::string> torch, InstalledTorchDirectory(path));
  if (!torch) return std::nullopt;
  ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in, ExpandInstalledDirectory(*torch, limits));
  in.path = path;  // named as given
  in.notes.push_back(absl::StrCat("a Python environment: its torch, ", *torch, ", is the build"));
  return in;
}

absl::StatusOr<std::vector<Build>> OpenBuilds(const std::string& path, const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(std::optional<ExpandedInput> torch, ExpandInstalledTorch(path, limits));
  if (torch) return std::vector<Build>{MakeBuild(*std::move(torch))};
  ABICHECK_ASSIGN_OR_RETURN(std::vector<ExpandedInput> expanded, ExpandBuilds(path, limits));
  std::vector<Build> out;
  out.reserve(expanded.size());
  for (ExpandedInput& in : expanded) out.push_back(MakeBuild(std::move(in)));
  return out;
}

absl::StatusOr<Build> OpenBuild(const std::string& path, const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(std::vector<Build> builds, OpenBuilds(path, limits));
  if (builds.size() > 1) return NoBuildSelected(path, "", Names(builds));
  return std::move(builds.front());
}

absl::Status SeveralBuilds(const std::string& path, const std::vector<Build>& builds) {
  return NoBuildSelected(path, "", Names(builds));
}

}  // namespace abicheck
