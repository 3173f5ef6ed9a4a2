// An opened build (include/abicheck/abicheck.h, Build): what its input held, split as the loader
// sees it, and its libraries' parses, shared by the checks against it on any thread.
#ifndef ABICHECK_LIB_API_BUILD_H_
#define ABICHECK_LIB_API_BUILD_H_

#include <optional>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "lib/inputs/build_world.h"
#include "lib/inputs/inputs.h"
#include "lib/inputs/pip.h"
#include "lib/io/file_tree.h"
#include "lib/resolve/parse_cache.h"

namespace abicheck {

struct Build::State {
  // What the path held: its objects, kind, notes and text members; input.path is the build's
  // name ("INDEX#NAME" for one build of an index of several), input.index_build its name there.
  ExpandedInput input;
  std::vector<InputFile> providers;  // the objects, libtorch_global_deps aside ...
  std::vector<InputFile> preload;    // ... which import torch loads RTLD_GLOBAL (E1)
  mutable SharedParseCache parses;   // the objects' parses, made on first use
  // A wheel build laid out with its dependency wheels (docs/loader-model.md E10): the loader
  // searches it where torch's RPATH points; null for other builds.
  std::shared_ptr<const FileTree> tree;
  std::string torch_version;  // torch/version.py's __version__, "" when it has none
};

// "x.whl!torch/lib/libc10.so" -> "torch/lib/libc10.so": the path from the last "torch/"
// component; "" when there is none.
std::string TorchRelative(absl::string_view name);
// The text of torch/FILE ("version.py", "__init__.py") of a build: a wheel's member, or the file
// beside a torch directory's libraries; "" when there is none.
std::string TorchText(const ExpandedInput& in, absl::string_view file);

// When `path` is a Python environment with torch installed: that torch, expanded as `env` reads
// it, named `path` and noted as such — the build `import torch` loads there, not every shared
// object of every package (torchvision.libs' vendored libcudart.so.12 is not loaded by `import
// torch`, and taken as a provider it satisfied a CUDA 12 module against a CUDA 13 torch).
// nullopt for any other path. check --against, env --against, index and diff read a venv so.
absl::StatusOr<std::optional<ExpandedInput>> ExpandInstalledTorch(const std::string& path,
                                                                  const InputLimits& limits);

// OpenBuilds, with a wheel build read alone (kAlone: its own objects, for an index, or for env,
// which places it in an environment's site-packages) or laid out with the wheels its
// Requires-Dist pins (kLaidOut, docs/loader-model.md E10).
enum class WheelDependencies { kAlone, kLaidOut };
// `pip`: for a wheel given as a URL, its dependencies no given wheel satisfies are resolved by
// pip (issue 33); null: not.
absl::StatusOr<std::vector<Build>> OpenBuildsAs(const std::string& path, const InputLimits& limits,
                                                WheelDependencies deps,
                                                const std::vector<std::string>& find_links,
                                                const PipTarget* pip = nullptr);

// OpenBuildsAs for each of `paths`, in their order. Builds given as URLs (pip:torch...) are read
// several at once — a read over HTTP waits on round trips more than on the CPU (issue 33) — and
// files one at a time (each inflates its members on every core); a wheel's world (kLaidOut) is
// gathered one build after another, so that a wheel two builds pin is read once and found in the
// cache by the next. Each build's reading is said to limits.input_progress ("builds", i of n).
// With `pip`, the wheels the remote builds' worlds are laid out with (kLaidOut; or kAlone, to be
// placed by the caller `into` an environment) are read into the cache at once first
// (PrefetchBuildWorlds).
absl::StatusOr<std::vector<std::vector<Build>>> OpenBuildInputs(
    const std::vector<std::string>& paths, const InputLimits& limits, WheelDependencies deps,
    const std::vector<std::string>& find_links, const PipTarget* pip = nullptr,
    const WorldPlacement* into = nullptr);

// The error for `builds` (of `path`) where one build is wanted.
absl::Status SeveralBuilds(const std::string& path, const std::vector<Build>& builds);

}  // namespace abicheck

#endif  // ABICHECK_LIB_API_BUILD_H_
