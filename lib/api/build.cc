// OpenBuild and OpenBuilds: a build input read once (an index of K builds in one read), and the
// checks against an opened build.
#include "lib/api/build.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/api/check_internal.h"
#include "lib/index/index_file.h"
#include "lib/io/mapped_file.h"
#include "lib/util/read_trace.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

Build MakeBuild(std::string name, std::string index_name, ExpandedInput in) {
  auto s = std::make_shared<Build::State>();
  s->name = std::move(name);
  s->index_name = std::move(index_name);
  for (const InputFile& f : in.objects) {
    (IsGlobalDeps(f) ? s->preload : s->providers).push_back(f);
    s->parses.AddMember(f);
  }
  s->input = std::move(in);
  return Build(std::move(s));
}

}  // namespace

const std::string& Build::name() const { return state_->name; }

size_t Build::library_count() const { return state_->input.objects.size(); }

absl::StatusOr<std::vector<Build>> OpenBuilds(const std::string& path, const InputLimits& limits) {
  std::vector<Build> out;
  if (absl::StatusOr<MappedFile> f = MappedFile::Open(path); f.ok() && HasIndexMagic(f->bytes())) {
    // Every build of the index from one read (ExpandInput would read it once per build).
    GlobalReadTrace().expansions.fetch_add(1, std::memory_order_relaxed);
    ABICHECK_ASSIGN_OR_RETURN(std::vector<IndexedBuild> builds, ReadIndex(path));
    for (IndexedBuild& b : builds) {
      ExpandedInput in;
      in.path = builds.size() > 1 ? absl::StrCat(path, "#", b.name) : path;
      in.kind = "index";
      in.objects = std::move(b.objects);
      std::string name = in.path;
      out.push_back(MakeBuild(std::move(name), b.name, std::move(in)));
    }
    if (out.empty())
      return absl::InvalidArgumentError(absl::StrCat(path, ": an index of no build"));
    return out;
  }
  ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in, ExpandInput(path, limits));
  out.push_back(MakeBuild(path, "", std::move(in)));
  return out;
}

absl::StatusOr<Build> OpenBuild(const std::string& path, const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(std::vector<Build> builds, OpenBuilds(path, limits));
  if (builds.size() == 1) return std::move(builds.front());
  // Several: ExpandInput's error names them.
  return ExpandInput(path, limits).status();
}

}  // namespace abicheck
