// Installed Python environments and wheel metadata, read from files only — never by running
// Python: pyvenv.cfg, lib/pythonX.Y/site-packages, *.dist-info/{METADATA,RECORD}, and torch's
// own __init__.py for the CUDA libraries it preloads (docs/loader-model.md E3, E4).
#ifndef ABICHECK_LIB_INPUTS_PYTHON_ENV_H_
#define ABICHECK_LIB_INPUTS_PYTHON_ENV_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/io/read_limits.h"

namespace abicheck {

// What a METADATA file (PEP 566 core metadata, RFC 822 headers) says about a distribution.
struct PackageMetadata {
  std::string name;
  std::string version;
  // Requires-Dist entries naming torch, unconditional or under an environment marker but not
  // under an extra ("torch==2.9.1", "torch (==2.9.1)", "torch>=2.10").
  std::vector<std::string> torch_requirements;
  // Every Requires-Dist value, as written (markers and extras included).
  std::vector<std::string> requirements;
};
PackageMetadata ParseMetadata(absl::string_view text);

// PEP 503 normalisation: lower case, runs of -_. become one '-'.
std::string NormalizeDistName(absl::string_view name);

struct InstalledDistribution {
  PackageMetadata metadata;
  std::string dist_info;                    // the *.dist-info directory
  std::vector<std::string> shared_objects;  // absolute paths of its ELF .so files, sorted
  std::vector<std::string> problems;        // RECORD/METADATA trouble, one line each
};

struct PythonEnvironment {
  std::string path;            // as given
  std::string site_packages;   // the directory everything else is relative to
  std::string python_version;  // "3.12", from pyvenv.cfg or the lib/pythonX.Y directory
  // The interpreter's executable, found from pyvenv.cfg's `home` or bin/python3 (a symlink is
  // read, never run); "" when not found.
  std::string interpreter;
  std::vector<InstalledDistribution> distributions;  // by normalized name; torch among them
  std::vector<std::string> unowned;  // ELF .so files under site-packages that no RECORD lists
  std::vector<std::string> notes;    // what was skipped or could not be read, one line each
  int torch = -1;                    // index of the torch distribution
  std::string torch_dir;             // site_packages/torch
};

// Whether an environment read must have torch installed: its own build is checked (env), or
// only builds given besides it are (env --against, --suggest: "which torch should I install?").
enum class InstalledTorch { kRequired, kOptional };

// Reads the environment at `path`: a virtualenv (pyvenv.cfg), a prefix with
// lib/pythonX.Y/site-packages, a site-packages directory, or a Python executable inside one of
// those. kNotFound when it holds no site-packages, or no torch where one is kRequired (else
// `torch` is -1); kFailedPrecondition for two torch installs or several Python versions with
// nothing to choose between them.
absl::StatusOr<PythonEnvironment> ReadPythonEnvironment(
    const std::string& path, const ReadLimits& limits,
    InstalledTorch torch = InstalledTorch::kRequired);

// When `path` is a directory that is a Python environment (a virtualenv, a prefix with
// lib/pythonX.Y/site-packages, a site-packages directory) with torch installed: its
// site-packages/torch, the build `import torch` loads there. nullopt for any other path (a torch
// directory, a build's library folder, a file); an error when it is an environment that cannot
// be read as one (pyvenv.cfg naming another Python than its site-packages, ...).
absl::StatusOr<std::optional<std::string>> InstalledTorchDirectory(const std::string& path);

// The Python version ("3.12") of the environment at `path` (pyvenv.cfg or lib/pythonX.Y; no
// RECORD is read); "" when `path` is not one.
std::string EnvironmentPythonVersion(const std::string& path);

// A small text file (METADATA, RECORD, __init__.py: at most 16 MiB), read whole; nullopt when
// absent, not a regular file, unreadable or over the cap.
std::optional<std::string> ReadSmallTextFile(const std::string& path);

// The string assigned to `key` at the start of a line of a Python file: "2.9.1+cu128" of
// torch/version.py's "__version__ = '2.9.1+cu128'", "12.8" of "cuda: Optional[str] = '12.8'".
std::string PyStringAssignment(absl::string_view text, absl::string_view key);

// One library torch/__init__.py preloads after libtorch_global_deps (E4): found by `pattern`
// under a `folder`. A required one that is not found ends the preloading (its ValueError is
// caught around the whole loop); torch 2.15 preloads with required=False, best-effort.
struct CudaPreload {
  std::string folder, pattern;
  bool required = true;
  bool operator==(const CudaPreload&) const = default;
};
// The preloads read from torch/__init__.py's text; empty when it preloads none or the file is
// absent.
std::vector<CudaPreload> TorchCudaPreloads(absl::string_view init_py);

// Resolves `preloads` the way torch's _get_cuda_dep_paths does in `site_packages`: the first
// match of nvidia/<folder>/lib/<glob>, nvidia/cu<major>/lib/<glob>, <folder>/lib/<glob>, up to
// the first required one that none matches.
// The file names in directory `dir` on disk, in no order ({} when it cannot be read).
std::vector<std::string> FileNamesIn(const std::string& dir);
// `list_dir` lists a directory's file names (FileNamesIn, or a FileTree's: E10).
std::vector<std::string> ResolveCudaPreloads(
    const std::string& site_packages, const std::string& cuda_major,
    const std::vector<CudaPreload>& preloads,
    const std::function<std::vector<std::string>(const std::string& dir)>& list_dir);
std::vector<std::string> ResolveCudaPreloads(const std::string& site_packages,
                                             const std::string& cuda_major,
                                             const std::vector<CudaPreload>& preloads);

// E4 for one torch build: the CUDA libraries its __init__.py preloads once libtorch_global_deps
// (and so libcudart) loaded — only a CUDA build (version.py names a `cuda`) whose global deps are
// there — found under `site_packages` through `list_dir`.
std::vector<std::string> TorchPreloadPaths(
    const std::string& site_packages, bool has_global_deps, absl::string_view init_py,
    absl::string_view version_py,
    const std::function<std::vector<std::string>(const std::string& dir)>& list_dir);

}  // namespace abicheck

#endif  // ABICHECK_LIB_INPUTS_PYTHON_ENV_H_
