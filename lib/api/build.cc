// OpenBuild and OpenBuilds: a build input read once (an index of K builds in one read), and the
// checks against an opened build.
#include "lib/api/build.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/api/check_internal.h"
#include "lib/api/limits.h"
#include "lib/inputs/build_world.h"
#include "lib/inputs/python_env.h"
#include "lib/io/byte_source.h"
#include "lib/util/parallel.h"
#include "lib/util/paths.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

std::shared_ptr<Build::State> MakeState(ExpandedInput in) {
  auto s = std::make_shared<Build::State>();
  for (const InputFile& f : in.objects) {
    (IsGlobalDeps(f) ? s->preload : s->providers).push_back(f);
    s->parses.AddMember(f);
  }
  s->torch_version = PyStringAssignment(TorchText(in, "version.py"), "__version__");
  s->input = std::move(in);
  return s;
}

Build MakeBuild(ExpandedInput in) { return Build(MakeState(std::move(in))); }

// A published build read by range requests (issue 33): what the torch wheel and the wheels it
// pins cost together, said once for the build.
void AddBuildReadNote(const std::vector<ExpandedInput>& dependencies, ExpandedInput* in) {
  uint64_t fetched = 0, size = 0, cached = 0;
  int wheels = 0, from_cache = 0;
  auto add = [&](const ExpandedInput& w) {
    if (w.remote_size == 0) return;
    ++wheels;
    size += w.remote_size;
    fetched += w.fetched_bytes;
    if (w.from_cache) {
      ++from_cache;
      cached += w.cached_fetched_bytes;
    }
  };
  add(*in);
  for (const ExpandedInput& d : dependencies) add(d);
  if (wheels < 2 || size == 0) return;
  const auto share = [size](uint64_t n) {
    return 100.0 * static_cast<double>(n) / static_cast<double>(size);
  };
  if (from_cache == 0) {
    in->notes.push_back(absl::StrFormat(
        "the build's %d wheels read by HTTP range requests: %d of their %d bytes (%.1f %%)", wheels,
        fetched, size, share(fetched)));
  } else {
    in->notes.push_back(absl::StrFormat(
        "the build's %d wheels (%d bytes): %d read from abicheck's cache (%d bytes were read by "
        "HTTP range requests then, %.1f %%), %d by HTTP range requests now (%d bytes, %.1f %%)",
        wheels, size, from_cache, cached, share(cached), wheels - from_cache, fetched,
        share(fetched)));
  }
}

// E10: a wheel build with the wheels its Requires-Dist pins, laid out as pip lays them out. Its
// own objects are the providers as before; the dependencies' are found where torch's RPATH
// points, and those torch's __init__.py preloads (E4) are loaded with it.
// `as_wheel`: the wheel an index's build was made from (IndexedWheel), whose world it is.
absl::StatusOr<Build> MakeWheelBuild(ExpandedInput in, const std::vector<std::string>& find_links,
                                     const InputLimits& limits, const PipTarget* pip,
                                     const ExpandedInput* as_wheel = nullptr) {
  ABICHECK_ASSIGN_OR_RETURN(std::optional<BuildWorld> world,
                            GatherBuildWorld(as_wheel != nullptr ? *as_wheel : in, find_links,
                                             ToReadLimits(limits), nullptr, pip));
  if (!world) return MakeBuild(std::move(in));
  const std::string init = TorchText(in, "__init__.py");
  const std::string version = TorchText(in, "version.py");
  for (std::string& n : world->notes) in.notes.push_back(std::move(n));
  AddBuildReadNote(world->dependencies, &in);
  std::shared_ptr<Build::State> state = MakeState(std::move(in));
  Build::State& s = *state;
  for (const ExpandedInput& dep : world->dependencies) {
    for (const InputFile& f : dep.objects) s.parses.AddMember(f);
  }
  const FileTree& tree = *world->tree;
  for (const std::string& p : TorchPreloadPaths(
           tree.root(), !s.preload.empty(), init, version, [&tree](const std::string& dir) {
             std::vector<std::string> names;
             if (std::optional<std::string> d = tree.Directory(dir)) {
               for (const InputFile* f : tree.FilesIn(*d)) names.push_back(Basename(f->path));
             }
             return names;
           })) {
    if (const InputFile* f = tree.File(p)) s.providers.push_back(*f);
  }
  s.tree = std::move(world->tree);
  return Build(std::move(state));
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

// "x.whl!torch/lib/libc10.so" -> "torch/lib/libc10.so": the path from the last "torch/"
// component; "" when there is none.
std::string TorchRelative(absl::string_view name) {
  for (size_t at = name.rfind("torch/"); at != absl::string_view::npos;
       at = at == 0 ? absl::string_view::npos : name.rfind("torch/", at - 1)) {
    if (at == 0 || name[at - 1] == '/' || name[at - 1] == '!') return std::string(name.substr(at));
  }
  return "";
}

std::string TorchText(const ExpandedInput& in, absl::string_view file) {
  // A wheel, or an index's build made from one (which keeps its texts).
  if (in.kind == "archive" || !in.index_wheel.empty())
    return TextMember(in, absl::StrCat("torch/", file));
  if (in.kind != "directory" || in.objects.empty()) return "";
  // A torch directory (site-packages/torch, or torch/lib): its text files beside the libraries.
  const std::string& name = in.objects.front().name;
  const std::string rel = TorchRelative(name);
  if (rel.empty()) return "";
  return ReadSmallTextFile(absl::StrCat(name.substr(0, name.size() - rel.size()), "torch/", file))
      .value_or("");
}

absl::StatusOr<std::optional<ExpandedInput>> ExpandInstalledTorch(const std::string& path,
                                                                  const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(std::optional<std::string> torch, InstalledTorchDirectory(path));
  if (!torch) return std::nullopt;
  ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in,
                            ExpandInstalledDirectory(*torch, ToReadLimits(limits)));
  in.path = path;  // named as given
  in.notes.push_back(absl::StrCat("a Python environment: its torch, ", *torch, ", is the build"));
  return in;
}

absl::StatusOr<std::vector<Build>> OpenBuilds(const std::string& path, const InputLimits& limits) {
  return OpenBuildsAs(path, limits, WheelDependencies::kLaidOut, {});
}

absl::StatusOr<std::vector<Build>> OpenBuilds(const std::string& path, const InputLimits& limits,
                                              const std::vector<std::string>& find_links) {
  return OpenBuildsAs(path, limits, WheelDependencies::kLaidOut, find_links);
}

namespace {

// How many builds given as URLs are read at once (OpenBuildInputs).
constexpr size_t kUrlBuildsAtOnce = 4;

// A build input read: an environment's installed torch (laid out as installed), or the builds
// ExpandBuilds gives.
struct ReadBuild {
  bool installed = false;
  std::vector<ExpandedInput> inputs;
};

absl::StatusOr<ReadBuild> ReadBuildInput(const std::string& path, const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(std::optional<ExpandedInput> torch, ExpandInstalledTorch(path, limits));
  ReadBuild read;
  if (torch) {
    read.installed = true;
    read.inputs.push_back(*std::move(torch));
    return read;
  }
  ABICHECK_ASSIGN_OR_RETURN(read.inputs, ExpandBuilds(path, ToReadLimits(limits)));
  return read;
}

absl::StatusOr<std::vector<Build>> MakeBuilds(ReadBuild read, const InputLimits& limits,
                                              WheelDependencies deps,
                                              const std::vector<std::string>& find_links,
                                              const PipTarget* pip) {
  std::vector<Build> out;
  out.reserve(read.inputs.size());
  for (ExpandedInput& in : read.inputs) {
    const std::optional<ExpandedInput> indexed = IndexedWheel(in);
    if (!read.installed && (in.kind == "archive" || indexed) &&
        deps == WheelDependencies::kLaidOut) {
      // An index is read offline: the wheels its build pins are those given, or none (E12).
      ABICHECK_ASSIGN_OR_RETURN(
          Build b, MakeWheelBuild(std::move(in), find_links, limits, indexed ? nullptr : pip,
                                  indexed ? &*indexed : nullptr));
      out.push_back(std::move(b));
    } else {
      out.push_back(MakeBuild(std::move(in)));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<Build>> OpenBuildsAs(const std::string& path, const InputLimits& limits,
                                                WheelDependencies deps,
                                                const std::vector<std::string>& find_links,
                                                const PipTarget* pip) {
  ABICHECK_ASSIGN_OR_RETURN(ReadBuild read, ReadBuildInput(path, limits));
  return MakeBuilds(std::move(read), limits, deps, find_links, pip);
}

absl::StatusOr<std::vector<std::vector<Build>>> OpenBuildInputs(
    const std::vector<std::string>& paths, const InputLimits& limits, WheelDependencies deps,
    const std::vector<std::string>& find_links, const PipTarget* pip, const WorldPlacement* into) {
  const bool urls =
      std::all_of(paths.begin(), paths.end(), [](const std::string& p) { return IsUrl(p); });
  std::vector<std::optional<absl::StatusOr<ReadBuild>>> read(paths.size());
  ParallelFor(paths.size(), urls ? ThreadsFor(paths.size(), kUrlBuildsAtOnce) : 1, [&](size_t i) {
    SayInputBegins(limits, "builds", i, paths.size(), paths[i]);
    read[i] = ReadBuildInput(paths[i], limits);
  });
  if (pip != nullptr && (deps == WheelDependencies::kLaidOut || into != nullptr)) {
    // The wheels every remote build's world is laid out with, read at once into the cache.
    std::vector<const ExpandedInput*> wheels;
    for (const auto& r : read) {
      if (!r->ok()) break;  // the error comes first, below
      for (const ExpandedInput& in : (*r)->inputs) wheels.push_back(&in);
    }
    PrefetchBuildWorlds(wheels, find_links, ToReadLimits(limits), into, *pip);
  }
  std::vector<std::vector<Build>> out;
  out.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    ABICHECK_ASSIGN_OR_RETURN(ReadBuild r, *std::move(read[i]));
    ABICHECK_ASSIGN_OR_RETURN(std::vector<Build> builds,
                              MakeBuilds(std::move(r), limits, deps, find_links, pip));
    out.push_back(std::move(builds));
  }
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
