// abicheck's public API: will this extension module load against these libraries, and if not, why?
// Only standard and abseil types appear here; everything is returned by value (no pointers into
// mapped files survive a call).
#ifndef ABICHECK_ABICHECK_H_
#define ABICHECK_ABICHECK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

// Only what this header declares is exported from the shared libabicheck.so.
#define ABICHECK_EXPORT __attribute__((visibility("default")))

namespace abicheck {

// Where a run is in the inputs it reads one after another (InputLimits::input_progress).
struct InputProgress {
  std::string what;  // "builds", or "modules" (a range's releases among the module inputs)
  int begun = 0;     // the one beginning now, from 1
  int total = 0;
  std::string name;  // its file name (a URL's last component)
};

// Caps on what input can make abicheck do; generous enough for any real torch build.
struct InputLimits {
  uint64_t max_member_bytes = uint64_t{16} << 30;    // one inflated archive member
  uint64_t max_total_inflated = uint64_t{64} << 30;  // all members of one archive
  uint64_t max_members = 1u << 20;                   // entries in one archive
  uint64_t max_files = 1u << 20;                     // files under one directory
  int max_depth = 64;                                // directory nesting
  int threads = 0;                                   // archive members in parallel; 0 = all cores
  // Read archive members' device code too, not their loader tables only (it lies in the middle
  // of a library: `abicheck gpu`, `--gpu`): a member kept whole up to 64 MiB, a larger one's
  // .nv_fatbin walked as it inflates (docs/gpu-model.md).
  bool whole_members = false;
  // Inflate every shared-object member to its end and check its CRC-32 (a mismatch is kDataLoss,
  // as pip and Python's zipfile refuse it). false (--fast): stop once a member's loader tables
  // are in; the expansion's notes say how many CRCs went unchecked.
  bool verify_crc = true;
  // A wheel given as a URL is read in part (each byte is a byte fetched), its CRC-32s unchecked
  // and said so; true (--verify): read whole and checked as a file's are.
  bool verify_remote = false;
  // Read nothing from the network: a wheel given as a URL (or a pip: build) is read from
  // abicheck's cache ($XDG_CACHE_HOME/abicheck) or is an error, and pip is not run (--offline).
  bool offline = false;
  // Called from worker threads as archive members inflate: bytes done and bytes to do in all (of
  // the archive being read; each archive counts from 0 again).
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Called on the calling thread as each of the inputs a run reads one after another begins: the
  // builds of `--against` (a `pip:` range is one build per release), or a range's releases among
  // the modules. For a progress line: `N of M builds`.
  std::function<void(const InputProgress&)> input_progress;
};

// What the check is run against. Providers play the libraries already loaded by the host (what
// `import torch` loaded, RTLD_LOCAL): a DT_NEEDED name matches them by DT_SONAME, or by the
// name they were given under, without any search (docs/loader-model.md §C2, §E).
struct CheckOptions {
  std::vector<std::string> providers;
  // Objects in the global scope (LD_PRELOAD, RTLD_GLOBAL libraries), with their dependencies.
  std::vector<std::string> preload;
  // The Python interpreter (executable or libpython). Without it, unresolved Py*/_Py* references
  // are reported as expected from the interpreter, not as problems.
  std::string python;
  // Directories searched like LD_LIBRARY_PATH (the CLI appends the environment's, unless
  // --ignore-env).
  std::vector<std::string> library_path;
  // Notes every report carries among its warnings (the CLI: "LD_LIBRARY_PATH from the environment
  // is searched").
  std::vector<std::string> notes;
  // Search the host's /etc/ld.so.cache and system library directories (under `sysroot`).
  bool use_host = true;
  std::string sysroot;  // "" or "/" is the running system
  // When a DT_NEEDED soname is missing but a provider has the same stem (libc10.so.2.6 needed,
  // libc10.so.2.14 given), report the missing library and still check symbols against that
  // provider, so every break shows up at once. Off, the symbol list is exactly `ldd -r`'s.
  bool same_stem_stand_ins = true;
  // Find the nearest existing definitions and shared causes (off: the verdict and ld.so's
  // messages only, for the fastest gate).
  bool diagnose = true;
  // After loading (docs/gpu-model.md): the GPU the module must run on — "sm_120", "12.0", or a
  // product name ("H100", "RTX PRO 6000 Blackwell") — and the CUDA driver: a CUDA version
  // ("12.8"), a Linux driver version ("570.124.06"), or "host" (read from the file name of the
  // host's libcuda.so.1, which is never loaded). "": not checked.
  std::string gpu;
  std::string cuda_driver;
  // The glibc release whose loader is modelled, where releases differ (docs/loader-model.md
  // A12): "2.41" and later refuse to dlopen an object that needs an executable stack. "" is this
  // host's glibc.
  std::string glibc;
  // For a program that exits right after the check, as the command line does: the check's inputs
  // and the loader's tables are left for the process's exit to release, not unmapped and freed
  // one by one (a directory check maps some 30 libraries). A caller that goes on
  // keeps false, or the memory stays until its process ends.
  bool release_at_exit = false;
  // Where a wheel build's pinned dependencies (its Requires-Dist: nvidia-*, cuda-toolkit, ...)
  // are looked for, besides the directory the wheel is in: pip's --find-links
  // (docs/loader-model.md E10).
  std::vector<std::string> find_links;
  // `pip:REQ` inputs (a module, or a build with --against) are resolved by pip to the wheels an
  // index publishes, read by HTTP range requests: these are passed to pip ("--index-url", URL,
  // "--extra-index-url", URL); find_links too. pip's own configuration decides the rest.
  std::vector<std::string> pip_index_args;
  // The Python the `pip:` wheels are for ("3.12"; an environment checked gives its own): "" for
  // the interpreter pip runs under.
  std::string pip_python_version;
  // CheckEnvironment with `against`: check the installed torch too, as the first build (env
  // --suggest: the recommendation weighs what loads now and prefers the installed build).
  bool with_installed_build = false;
};

enum class ProblemKind {
  kUndefinedSymbol,  // "undefined symbol: X" (docs/loader-model.md §D)
  kVersionNotFound,  // "version `V' not found (required by M)"
  kMissingLibrary,   // "cannot open shared object file: No such file or directory"
  kWrongElfClass,    // "wrong ELF class: ELFCLASS32"
  kWrongMachine,     // only a library for another machine was found (the loader skips it)
  kNotLoadable,      // the module or a dependency cannot be dlopen'ed (an executable, no
                     // PT_DYNAMIC, DF_1_NOOPEN, a header ld.so refuses, ...)
  // ld.so dies on one of its own assertions instead of returning an error (glibc 2.36,
  // docs/loader-model.md B5): the process aborts; `import` cannot even raise ImportError.
  kLoaderAssertion,
  // After loading, with CheckOptions::gpu / cuda_driver (docs/gpu-model.md G5-G7): the CUDA
  // runtime's errors at the first kernel launch or CUDA call.
  kNoKernelImage,       // "no kernel image is available for execution on the device"
  kUnsupportedPtx,      // "the provided PTX was compiled with an unsupported toolchain."
  kInsufficientDriver,  // "CUDA driver version is insufficient for CUDA runtime version"
};

// "undefined_symbol", "version_not_found", ... — the JSON `kind` values.
ABICHECK_EXPORT const char* ProblemKindName(ProblemKind kind);

// How a shared object uses torch (docs/loader-model.md E8): only through torch's stable C shim
// (aoti_torch_* / torch_* C functions; torch::stable and torch::headeronly code is inline), or
// through its C++ API (mangled c10::, at::, torch::, caffe2:: references: tied to the release it
// was compiled for), or not at all.
enum class TorchAbi { kNoTorch, kStable, kUnstable };
// "no_torch", "stable", "unstable" — the JSON values.
ABICHECK_EXPORT const char* TorchAbiName(TorchAbi abi);

// How a nearby definition relates to the symbol that was needed.
enum class Relation {
  kSignatureChanged,  // the same qualified function, another signature
  kScopeChanged,      // the same function name in another class or namespace
  kNotInScope,        // the very symbol, in a library outside the module's scope
  kVersionDiffers,    // the same name under another symbol version
};
// "signature_changed", "scope_changed", "not_in_scope", "version_differs" — the JSON values.
ABICHECK_EXPORT const char* RelationName(Relation relation);

// One way a nearby definition differs from what was needed, as data: what it was and what it is.
struct Difference {
  enum class Kind {
    kAbiTag,          // the function's ABI tag: from/to "" (none) or "[abi:cxx11]"
    kScope,           // the enclosing class or namespace
    kParameterCount,  // from/to: the counts, "1" and "2"
    kParameter,       // parameter `position` (1-based)
    kQualifiers,      // cv/ref qualifiers of a member function: "" (none) or "const"
    kReturnType,
    kVersion,            // the symbol version: "" is unversioned
    kMangledName,        // nothing the parts show differs (template arguments): the mangled names
    kTemplateArguments,  // a function template's arguments: "<int, 0>" and "<int>"
  };
  Kind kind = Kind::kParameter;
  int position = 0;
  std::string from, to;
  bool operator==(const Difference& o) const {
    return kind == o.kind && position == o.position && from == o.from && to == o.to;
  }
};
// A difference for a person (and in every output format): "parameter 4: int → unsigned int".
ABICHECK_EXPORT std::string DifferenceText(const Difference& difference);

// A nearby definition that does exist, and how it differs from what was needed.
struct Candidate {
  std::string symbol;  // mangled
  std::string demangled;
  std::string library;  // path of the library exporting it
  std::string version;  // its version, if any
  Relation relation = Relation::kSignatureChanged;
  std::vector<Difference> differences;
};

struct Problem {
  ProblemKind kind = ProblemKind::kUndefinedSymbol;
  std::string object;     // the object whose reference or dependency fails (its path)
  std::string symbol;     // mangled, for symbol problems
  std::string demangled;  // demangled symbol, or the symbol itself for C names
  std::string version;    // the required version, for versioned symbols and version problems
  std::string library;    // the DT_NEEDED name (missing library) or the provider (version)
  std::string message;    // the exact text ld.so/dlerror would print for this failure
  bool first = false;     // the one failure `dlopen` would report (it stops at the first)
  std::vector<Candidate> candidates;
  std::string hint;      // one sentence for a person, may be empty
  std::string stand_in;  // missing libraries: the provider checked in its place, if any
  std::string cause;     // the id of a Cause that explains this problem, if any
  // With several builds (a matrix): the builds given that export this exact symbol.
  std::vector<std::string> exported_by;
};

// One reason behind many problems, reported once (e.g. the C++ std::string ABI).
struct Cause {
  std::string id;       // "cxx11_string_abi"
  std::string summary;  // one sentence for a person
  int problems = 0;     // how many problems it explains
};

// How a library of the load came to be there (docs/loader-model.md C1-C4).
enum class FoundBy {
  kModule,       // the module checked
  kProvider,     // given as already loaded
  kPreload,      // given in the global scope
  kInterpreter,  // the Python interpreter
  kPath,         // a DT_NEEDED name with a slash, opened as it is
  kRpath,
  kLibraryPath,  // LD_LIBRARY_PATH (and -L)
  kRunpath,
  kLdCache,  // /etc/ld.so.cache
  kSystem,   // the system directories
};
// "module", "provider", "preload", "interpreter", "path", "rpath", "library_path", "runpath",
// "ld.so.cache", "system" — the JSON values.
ABICHECK_EXPORT const char* FoundByName(FoundBy found_by);

struct LoadedLibrary {
  std::string name;  // the name it was asked for (DT_NEEDED) or given as
  std::string path;  // the file
  FoundBy found_by = FoundBy::kModule;
  bool newly_loaded = false;  // mapped by this dlopen (so version-checked and relocated)
};

enum class WarningKind {
  kNote,
  // The load brings in another copy of a library the build already provides (another soname of
  // the same stem): the process then holds two builds.
  kSecondCopy,
};
// "" for a note, "second_copy" — the JSON `kind` and the SARIF rule.
ABICHECK_EXPORT const char* WarningKindName(WarningKind kind);

struct Warning {
  Warning() = default;
  Warning(std::string object_, std::string message_, WarningKind kind_ = WarningKind::kNote)
      : object(std::move(object_)), message(std::move(message_)), kind(kind_) {}
  std::string object;
  std::string message;
  WarningKind kind = WarningKind::kNote;
};

// The C++ std::string ABI of a set of objects: the C++11 one (std::__cxx11::basic_string, the
// [abi:cxx11] tag), the pre-C++11 one (_GLIBCXX_USE_CXX11_ABI=0), both, or none seen.
enum class StringAbi { kUnknown, kCxx11, kPreCxx11, kMixed };
// "unknown", "c++11", "pre-c++11", "mixed" — the JSON values.
ABICHECK_EXPORT const char* StringAbiName(StringAbi abi);

// The module's CUDA device code judged against a GPU and a driver (docs/gpu-model.md).
struct DeviceCheck {
  bool checked = false;  // CheckOptions::gpu or cuda_driver was given
  // false: the file has no section headers (or, inside a wheel, was not read whole): its device
  // code, if any, cannot be found.
  bool readable = true;
  std::vector<std::string> images;  // what it carries, distinct: "sm_90a", "compute_90"
  std::string gpu;                  // "sm_120"; "" when no GPU was given
  std::vector<std::string> usable;  // the images that GPU runs (with that driver)
  std::string driver_cuda;          // the CUDA release the driver supports, "12.8"
  std::string driver_file;          // with "host": the file it was read from
  std::string cuda_runtime;         // the libcudart the load brings in ("libcudart.so.13")
};

// A module's verdict (docs/loader-model.md C2c): it loads (and can run on the GPU and driver
// given), it fails, or it cannot be told from what was read — a reference only a library that is
// not among the files could define. Never `kLoads` on what was not read. `kNotInstalled` is a
// cell of `abicheck env` only: the build replaces the row's package with a version that installs
// no file at that path (docs/loader-model.md E11), so nothing there is loaded — neither a pass
// nor a failure, and it decides nothing.
enum class Verdict { kLoads, kFails, kUnknown, kNotInstalled };
// "loads", "fails", "unknown", "not_installed" — the JSON `verdict` values.
ABICHECK_EXPORT const char* VerdictName(Verdict verdict);

struct Report {
  std::string module;
  // dlopen succeeds, as far as the files tell: every reference resolved in them (or was left to
  // the GPU driver, C2b). False for an unknown verdict. Device-code problems (kNoKernelImage,
  // ...) do not change it: see verdict().
  bool loads = false;
  std::vector<Problem> problems;
  std::vector<LoadedLibrary> libraries;  // the module's scope, in breadth-first load order
  std::vector<Warning> warnings;         // hazards that do not stop the load
  std::vector<Cause> causes;             // reasons shared by several problems
  // The C++ std::string ABI of the module and of its providers (kUnknown: no std::string in
  // their symbols, or no miss that involves one). docs/json-schema.md, "string_abi".
  StringAbi module_string_abi = StringAbi::kUnknown;
  StringAbi providers_string_abi = StringAbi::kUnknown;
  int interpreter_symbols = 0;  // Py*/_Py* references left to the interpreter
  int weak_unresolved = 0;      // weak references that stay 0 (allowed)
  // References left unresolved in a load that also depends on a library the given libraries
  // loaded but that is not among the files (`assumed_loaded`): they may be defined there, so they
  // are not reported as problems, and the verdict is unknown (docs/loader-model.md C2a, C2c).
  int unverified_references = 0;
  // C references left to the GPU driver's libraries (libcuda.so.1, libnvidia-ml.so.1, …) on a
  // machine without them, the absent libraries that may stay assumed (docs/loader-model.md C2b):
  // they do not make the verdict unknown.
  int driver_references = 0;
  std::vector<std::string> assumed_loaded;  // those libraries' names (DT_NEEDED)
  // Of `assumed_loaded`, the NVIDIA GPU driver's (C2b): assumed present, as on a GPU machine.
  std::vector<std::string> driver_libraries;
  // Of `assumed_loaded`, those the unverified references were left to: what to give to decide.
  std::vector<std::string> unknown_because;
  // What the given libraries themselves need and is not among the files (C2a), in the order
  // met: loaded with them as far as this check goes.
  std::vector<std::string> providers_missing;
  int references_checked = 0;
  // The module's own references to torch (E8).
  TorchAbi torch_abi = TorchAbi::kNoTorch;
  int torch_shim_references = 0;
  int torch_cxx_references = 0;
  std::vector<std::string> torch_cxx_examples;  // a few, demangled
  DeviceCheck device;
  // False for an environment's row that the build's install leaves without a file (E11): its
  // verdict is kNotInstalled, and it was not checked.
  bool installed = true;
  Verdict verdict() const {
    if (!installed) return Verdict::kNotInstalled;
    if (!problems.empty()) return Verdict::kFails;  // will not load, or loads and cannot run
    return loads ? Verdict::kLoads : Verdict::kUnknown;
  }
  // It loads, and (when a GPU or driver was given) can run there: the verdict is kLoads.
  bool ok() const { return verdict() == Verdict::kLoads; }
};

// Predicts dlopen(module, RTLD_NOW | RTLD_LOCAL) after `options.providers` were loaded. Each
// provider may be a file, a directory (every ELF file under it) or a wheel/zip (every ELF member,
// read in place). A provider whose name starts with libtorch_global_deps is loaded RTLD_GLOBAL,
// as `import torch` does (docs/loader-model.md §E).
// Errors (unreadable or corrupt input, not an ELF file) name the file and the structure:
// kNotFound, kPermissionDenied, kFailedPrecondition (a directory), kInvalidArgument (not ELF),
// kDataLoss (corrupt ELF), kResourceExhausted (over a cap).
ABICHECK_EXPORT absl::StatusOr<Report> Check(const std::string& module,
                                             const CheckOptions& options);
// The same, with caps on what the inputs can make it do (archives given as providers).
ABICHECK_EXPORT absl::StatusOr<Report> Check(const std::string& module, const CheckOptions& options,
                                             const InputLimits& limits);

// A build opened once: its input (a directory, wheel, file, or one build of an index) read and
// its libraries parsed on first use, then shared by every check against it — what build tooling
// keeps open to check many modules. Immutable once opened; checks against one Build may run on
// many threads at once. Copies share the same state.
class ABICHECK_EXPORT Build {
 public:
  struct State;  // lib/api/build.h
  explicit Build(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  const std::string& name() const;  // as a matrix names its column: the path, or "INDEX#NAME"
  size_t library_count() const;     // shared objects it provides (libtorch_global_deps included)
  const State& state() const { return *state_; }

 private:
  std::shared_ptr<const State> state_;
};
// Every build `path` holds: one, or each build of an index (the index read once). Errors as for
// Check().
ABICHECK_EXPORT absl::StatusOr<std::vector<Build>> OpenBuilds(const std::string& path,
                                                              const InputLimits& limits = {});
// The same; a wheel build is the world pip installs with it (docs/loader-model.md E10): its
// pinned dependency wheels are looked for in `find_links` and beside it.
ABICHECK_EXPORT absl::StatusOr<std::vector<Build>> OpenBuilds(
    const std::string& path, const InputLimits& limits, const std::vector<std::string>& find_links);
// The one build `path` holds ("INDEX#NAME" selects one build of an index of several).
ABICHECK_EXPORT absl::StatusOr<Build> OpenBuild(const std::string& path,
                                                const InputLimits& limits = {});
// Check() against an opened build: its libraries are the providers, before `options.providers`.
ABICHECK_EXPORT absl::StatusOr<Report> Check(const std::string& module, const Build& build,
                                             const CheckOptions& options,
                                             const InputLimits& limits = {});

// Many modules against many builds: `module_inputs` are .so files, directories or wheels (whose
// Python extension modules — members defining PyInit_* — are checked, with the wheel's other
// shared objects counted as loaded, as a package loads its own libraries first); each of
// `builds` is a torch build (wheel, installed directory, or files) checked as one column, with
// `options.providers` added to every column.
struct MatrixCell {
  std::string module;  // the module's name (a path, or wheel!member)
  std::string build;   // as given
  Report report;
};
// What a module row is: the package it came with, and what that package says it needs.
struct ModuleInfo {
  std::string label;    // how the row is shown: its path inside the wheel or site-packages
  std::string package;  // the distribution's name (METADATA), "" when unknown
  std::string version;  // its version, "0.24.1" or "2.9.1+cu128"
  // Requires-Dist entries naming torch ("torch==2.9.1"); empty: the package pins no torch.
  std::vector<std::string> torch_requirements;
  bool extension_module = false;  // defines PyInit_* (imported by Python); else a library
  TorchAbi torch_abi = TorchAbi::kNoTorch;
  // Stable-ABI objects, with several builds: the oldest build given that exports every shim
  // function it uses ("" when none does, or when not stable).
  std::string stable_since;
};
// Which build to install: with several builds, the newest that every module loads against, or
// the one with the fewest failing modules (in an environment: packages; among equals, the one
// the fewest packages' own torch requirements leave out, then the newest).
struct Recommendation {
  std::string build;  // as in Matrix::builds
  std::string label;  // as shown ("torch 2.10.0+cu128", else "torch-2.10.0")
  // What to install, as pip takes it ("torch==2.10.0"); "" when the build's version is unknown.
  std::string requirement;
  bool every_module_loads = false;
  int failing_modules = 0;                 // against `build`
  std::vector<std::string> still_failing;  // their names, as in Matrix::modules
  // Against `build`, modules whose verdict is unknown (C2c): never counted as loading — the
  // recommendation does not rest on them — and what to give to decide.
  int unknown_modules = 0;
  std::vector<std::string> not_given;
  // Of `still_failing`, those that fail with every build given, with the same first error (a
  // system library such as libavutil.so.60 missing): no torch choice among them fixes these.
  // In an environment's recommendation: the packages whose failing modules all fail so.
  std::vector<std::string> fail_with_every_build;
  std::string summary;  // one line for a person
  // In an environment: `build` is the installed torch (nothing to install), and otherwise the
  // command that installs it there when it was resolved from an index ("ENV/bin/python -m pip
  // install torch==2.10.0 --index-url URL"), else "".
  bool installed = false;
  std::string install_command;
};
struct Matrix {
  std::vector<std::string> modules;
  std::vector<ModuleInfo> module_info;  // parallel to `modules`
  std::vector<std::string> builds;
  // Parallel to `builds`: torch's own version of each ("2.10.0+cu128", from torch/version.py),
  // "" where the build does not say; how tables name the builds ("torch 2.10.0+cu128").
  std::vector<std::string> build_versions;
  std::vector<MatrixCell> cells;    // modules.size() x builds.size(), module-major
  std::vector<Warning> notes;       // what inputs held that was skipped
  bool has_recommendation = false;  // set when two or more builds were checked
  Recommendation recommendation;
};
ABICHECK_EXPORT absl::StatusOr<Matrix> CheckMatrix(const std::vector<std::string>& module_inputs,
                                                   const std::vector<std::string>& builds,
                                                   const CheckOptions& options,
                                                   const InputLimits& limits = {});
// Writes an index file of `builds` (wheels, directories, files, or other indexes: each a build,
// named after its file name without .whl unless `names` says otherwise): the libraries' dynamic
// tables, stored once, memory-mapped when read (docs/index-format.md). Returns what it wrote.
struct IndexSummary {
  std::string path;                 // the index written
  std::vector<std::string> builds;  // their names in the index, in order
  uint64_t libraries = 0;           // shared objects, over all builds (a library shared by
                                    // several builds counts once per build)
  uint64_t names = 0;               // distinct names in the shared name section
  uint64_t file_bytes = 0;
};
ABICHECK_EXPORT absl::StatusOr<IndexSummary> BuildIndex(const std::vector<std::string>& builds,
                                                        const std::vector<std::string>& names,
                                                        const std::string& output,
                                                        const InputLimits& limits = {});

// An installed Python environment (a virtualenv, a prefix, a site-packages directory, or a
// Python executable in one), read from its files only — nothing is run or written. Models
// `import torch` (libtorch_global_deps RTLD_GLOBAL, torch's libraries, the nvidia-* libraries its
// RPATH reaches and those it preloads), then checks every shared object of every other
// distribution (nvidia-* excepted: they are torch's own CUDA libraries) as loaded right after it,
// attributed to its distribution through RECORD. `against` replaces the installed torch with
// other builds (wheels, torch directories, indexes), each placed at site-packages/torch so that
// it reaches the environment's nvidia-* libraries (docs/loader-model.md E1-E7).
struct EnvironmentPackage {
  std::string name, version;
  std::vector<std::string> torch_requirements;  // Requires-Dist naming torch
  std::vector<size_t> modules;                  // its rows in the matrix
  std::vector<std::string> problems;            // RECORD/METADATA trouble, one line each
};
struct EnvironmentReport {
  std::string environment;  // as given
  std::string site_packages;
  std::string python_version;  // "3.12"
  std::string interpreter;     // the executable whose symbols Py* references bind to, or ""
  std::string torch_version;   // of the installed torch
  std::vector<EnvironmentPackage> packages;  // by name; unowned objects under "(no package)"
  // `import torch` itself, per build: torch/_C against the rest of that build.
  std::vector<Report> torch_imports;
  // Per build: what installing it here changes (docs/loader-model.md E11: "torch 2.10.0 ->
  // 2.15.0, triton 3.6.0 -> 3.9.0, adds nvidia-cublas 13.4.1.3, ..."); "" for the installed
  // build and a build given as a directory.
  std::vector<std::string> build_changes;
  Matrix matrix;  // every checked object x every build
  // Every verdict is kLoads (import torch and every cell, with every build; a kNotInstalled
  // cell is no file to load).
  ABICHECK_EXPORT bool loads() const;
  // kFails when any import or cell fails, else kUnknown when any is unknown, else kLoads
  // (kNotInstalled cells count for nothing).
  ABICHECK_EXPORT Verdict verdict() const;
};
ABICHECK_EXPORT absl::StatusOr<EnvironmentReport> CheckEnvironment(
    const std::string& path, const std::vector<std::string>& against, const CheckOptions& options,
    const InputLimits& limits = {});

// `env --suggest [REQ]` (issue 33): which published torch builds to check the environment at
// `path` against, as one pip: input for CheckEnvironment's `against` — "pip:" + REQ when REQ is
// given ("torch>=2.8,<2.13", or a bare specifier ">=2.8" for torch), else the releases every
// installed package's own torch requirement allows (when they allow none together, those from
// the oldest one of them allows to the newest), else those from two minor releases below the
// installed torch on; with no torch installed, from two minor releases below the newest the
// index lists (asked of pip with `options`' index options, for the environment's Python). `why`
// says which. kInvalidArgument for a REQ that is not a requirement on torch.
ABICHECK_EXPORT absl::StatusOr<std::string> SuggestTorchBuilds(const std::string& path,
                                                               const std::string& req,
                                                               std::string* why,
                                                               const InputLimits& limits = {},
                                                               const CheckOptions& options = {});

// Exports removed, added and changed between two builds (or two libraries): what drifts between
// releases. Libraries are paired by soname, or by stem when the soname's version moved
// (libc10.so.2.6 <-> libc10.so.2.14). A removed C++ function with a same-named replacement of
// another signature is reported once, as changed, with the differences.
struct ExportChange {
  std::string symbol;  // mangled (with @version when versioned)
  std::string demangled;
  std::string new_symbol;  // for changes: the replacement
  std::string new_demangled;
  std::vector<Difference> differences;
};
struct LibraryDiff {
  std::string old_library, new_library;  // paths; one is empty when a library appeared/vanished
  std::vector<ExportChange> removed, added, changed;
  // The loader-level changes every module meets first: a new DT_SONAME (modules name the old one
  // in DT_NEEDED: "cannot open shared object file"), version definitions removed (their verneed
  // fails: "version `V' not found") or added, DT_NEEDED entries added (a library the old
  // environment may not have) or removed. Breaking: a soname change, removed versions, added
  // DT_NEEDED.
  std::string old_soname, new_soname;  // set only when both exist and differ
  std::vector<std::string> versions_removed, versions_added, needed_removed, needed_added;
};
struct AbiDiff {
  std::string old_build, new_build;
  std::vector<LibraryDiff> libraries;     // only those with differences, sorted by name
  ABICHECK_EXPORT bool breaking() const;  // anything removed or changed
};
ABICHECK_EXPORT absl::StatusOr<AbiDiff> DiffBuilds(const std::string& old_build,
                                                   const std::string& new_build,
                                                   const InputLimits& limits = {});

// Every result in every format it has, through one call. JSON follows docs/json-schema.md
// (schema_version 1); SARIF 2.1.0 has one result per problem and hazard, for CI systems that
// annotate from SARIF; JUnit XML has one test case per module x build (GitLab, Jenkins and
// Buildkite show it natively).
enum class Format { kText, kJson, kSarif, kJunit };
// "text", "json", "sarif", "junit".
ABICHECK_EXPORT const char* FormatName(Format format);
struct RenderOptions {
  Format format = Format::kText;
  bool color = false;  // text: ANSI colors
  // text: a cause that explains many problems of one object shows three of them and how many
  // more, unless `all` (`abicheck check --all`); the other formats always hold every one.
  bool all = false;
};
// Report, Matrix and EnvironmentReport: every format. AbiDiff: text and JSON (SARIF and JUnit
// are about modules that load or not: kInvalidArgument).
ABICHECK_EXPORT absl::StatusOr<std::string> Render(const Report& report,
                                                   const RenderOptions& options = {});
ABICHECK_EXPORT absl::StatusOr<std::string> Render(const Matrix& matrix,
                                                   const RenderOptions& options = {});
ABICHECK_EXPORT absl::StatusOr<std::string> Render(const EnvironmentReport& env,
                                                   const RenderOptions& options = {});
ABICHECK_EXPORT absl::StatusOr<std::string> Render(const AbiDiff& diff,
                                                   const RenderOptions& options = {});
// For a run that produced no result (an unreadable input), so that a CI upload step still shows
// why: SARIF with the invocation marked unsuccessful and the error as a tool execution
// notification; JUnit with one test case holding an <error>; the message and a newline in text;
// {"error": message} in JSON.
ABICHECK_EXPORT std::string RenderError(const std::string& message, Format format);

// `abicheck symbols`: a file's dynamic symbols as `nm -D` lists them, with versions (`name@@V`
// default, `name@V` non-default or needed) and optionally demangled names. `path` is a shared
// object, or WHEEL!MEMBER for one inside a wheel.
struct SymbolListOptions {
  bool demangle = false;
  bool defined_only = false;
  bool undefined_only = false;
  bool json = false;  // ListSymbolsTo: JSON instead of nm's text
};
// One .dynsym entry, in table order.
struct SymbolRow {
  std::string name;              // as stored (mangled)
  std::string demangled;         // with SymbolListOptions::demangle; else ""
  std::string version;           // "" when unversioned
  bool default_version = false;  // name@@version (else name@version)
  char type = 'U';               // nm's letter: T, W, D, B, R, V, U, i, u, ...
  bool defined = false;
  uint64_t value = 0;
  uint64_t size = 0;
};
ABICHECK_EXPORT absl::StatusOr<std::vector<SymbolRow>> ListSymbols(const std::string& path,
                                                                   const SymbolListOptions& options,
                                                                   const InputLimits& limits = {});
// The listing as text (nm's lines) or JSON, handed to `sink` in chunks of whole lines in table
// order as it is made (text), or whole (JSON): the CLI's path, at memory speed for a 1 GB
// library. The cores make the chunks; `sink` is called on the calling thread only. A table with
// an unreadable name is an error before `sink` is first called.
ABICHECK_EXPORT absl::Status ListSymbolsTo(const std::string& path,
                                           const SymbolListOptions& options,
                                           absl::FunctionRef<void(absl::string_view)> sink,
                                           const InputLimits& limits = {});

// abicheck's cache (docs/cache.md): what was read of published wheels (by their sha256) and what
// pip resolved requirements to, under $XDG_CACHE_HOME/abicheck (default ~/.cache/abicheck).
struct CacheItem {
  std::string kind;    // "wheel" (what was read of one) or "pip" (a resolution)
  std::string name;    // the wheel's file name, or the requirement
  std::string detail;  // "sha256 ..., read in part, 8.5 % of N bytes read", or the wheel's URL
  std::string path;
  uint64_t bytes = 0;
  int64_t written = 0;  // seconds since the epoch
};
// The cache's directory ("" when there is none: no HOME, or ABICHECK_NO_CACHE set).
ABICHECK_EXPORT std::string CacheDirectory();
ABICHECK_EXPORT std::vector<CacheItem> ListCache();
// Removes every entry; how many files and bytes.
ABICHECK_EXPORT absl::StatusOr<std::pair<uint64_t, uint64_t>> ClearCache();

// Exit codes of the CLI (and what build tooling should map results to).
inline constexpr int kExitLoads = 0;
inline constexpr int kExitWillNotLoad = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitBadInput = 3;
// Nothing fails, but some verdict is unknown: what it rests on was not among the files (a CI
// gate must not pass on it).
inline constexpr int kExitUnknown = 4;
// The exit code of a set of verdicts: 1 when any fails, else 4 when any is unknown, else 0.
ABICHECK_EXPORT int ExitCodeForVerdicts(bool any_fails, bool any_unknown);

// The exit code for a failed call: 3 for unreadable or invalid input, 2 otherwise.
ABICHECK_EXPORT int ExitCodeForStatus(const absl::Status& status);

// This release's version, "MAJOR.MINOR.PATCH", as `abicheck --version` prints it.
ABICHECK_EXPORT const char* Version();

}  // namespace abicheck

#endif  // ABICHECK_ABICHECK_H_
