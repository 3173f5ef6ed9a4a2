// What the loader stage finds, in types of its own (issue 34): the findings of one module's dlopen
// and the options that steer it. They mirror the public Report, Problem, LoadedLibrary and
// CheckOptions field for field where they overlap, but belong to this stage: lib/api/findings.h
// alone converts them, so a change of a public struct is not a change of the loader's, and the
// loader's records can change without breaking libabicheck.so's ABI. What the diagnosis adds (the
// nearest candidates, shared causes, the std::string ABI) is not here: diagnose/ works on the
// public Report that api/ makes of these.
#ifndef ABICHECK_LIB_RESOLVE_FINDINGS_H_
#define ABICHECK_LIB_RESOLVE_FINDINGS_H_

#include <string>
#include <vector>

namespace abicheck {

struct Object;  // loader.h

// What steers the loader model: CheckOptions' loader part (lib/api/findings.h makes it).
struct LoadOptions {
  std::string python;                     // the interpreter's file ("": none given)
  std::vector<std::string> library_path;  // searched as LD_LIBRARY_PATH
  std::vector<std::string> notes;         // carried among each module's warnings
  bool use_host = true;                   // the host's ld.so.cache and system directories
  std::string sysroot;                    // under which the host is read; "" or "/" the root
  bool same_stem_stand_ins = true;        // a same-stem provider stands in for a missing library
  std::string gpu, cuda_driver;           // docs/gpu-model.md: after loading; "" not checked
  std::string glibc;                      // the release modelled, "2.41"; "" this host's
};

// How a library of the load came to be there (docs/loader-model.md C1-C4).
enum class HowFound {
  kModule,
  kProvider,
  kPreload,
  kInterpreter,
  kPath,
  kRpath,
  kLibraryPath,
  kRunpath,
  kLdCache,
  kSystem,
};
// "module", "provider", ... "ld.so.cache", "system": the words the reports use (the public
// FoundByName's; a test in tests/unit/api/findings_test.cc keeps the two equal).
const char* HowFoundName(HowFound how);

// What fails, as ld.so (or, after loading, the CUDA runtime) says it.
enum class FailureKind {
  kUndefinedSymbol,
  kVersionNotFound,
  kMissingLibrary,
  kWrongElfClass,
  kWrongMachine,
  kNotLoadable,
  kLoaderAssertion,
  kNoKernelImage,
  kUnsupportedPtx,
  kInsufficientDriver,
};

// One failure of the load, with ld.so's words for it.
struct LoadFailure {
  FailureKind kind = FailureKind::kUndefinedSymbol;
  std::string object;     // the object whose reference or dependency fails (its path)
  std::string symbol;     // mangled, for symbol failures
  std::string demangled;  // demangled, or the symbol itself for C names
  std::string version;    // the required version
  std::string library;    // the DT_NEEDED name (missing library) or the provider (version)
  std::string message;    // the exact text ld.so/dlerror prints
  bool first = false;     // the one dlopen reports (it stops at the first)
  std::string hint;       // one sentence for a person, may be empty
  std::string stand_in;   // missing libraries: the provider checked in its place, if any
};

enum class NoteKind { kNote, kSecondCopy };
// A hazard that does not stop the load, or a note on what was (not) read.
struct LoadNote {
  std::string object;
  std::string message;
  NoteKind kind = NoteKind::kNote;
};

// A library of the module's scope, in breadth-first load order.
struct LoadedObject {
  std::string name;  // asked for (DT_NEEDED) or given as
  std::string path;
  HowFound found_by = HowFound::kModule;
  bool newly_loaded = false;  // mapped by this dlopen
};

// The module's device code against a GPU and a driver (docs/gpu-model.md G5-G7).
struct DeviceFindings {
  bool checked = false;
  bool readable = true;
  std::vector<std::string> images;
  std::string gpu;
  std::vector<std::string> usable;
  std::string driver_cuda;
  std::string driver_file;
  std::string cuda_runtime;
};

// How the module uses torch (docs/loader-model.md E8).
enum class TorchUse { kNoTorch, kStable, kUnstable };

// One module's dlopen as the loader model predicts it (the public Report's meaning, field by
// field, before the diagnosis).
struct LoadFindings {
  std::string module;
  bool loads = false;  // every reference resolved in what was read (C2c)
  std::vector<LoadFailure> problems;
  std::vector<LoadedObject> libraries;
  std::vector<LoadNote> warnings;
  int interpreter_symbols = 0;
  int weak_unresolved = 0;
  int unverified_references = 0;  // left to a library assumed loaded (C2a): verdict unknown
  int driver_references = 0;      // left to the GPU driver (C2b)
  std::vector<std::string> assumed_loaded;
  std::vector<std::string> unknown_because;
  std::vector<std::string> providers_missing;
  int references_checked = 0;
  // The objects the load rests on (its search list, or a binding) that may not be the files the
  // install would load, its world lacking pinned wheels (E12): the verdict cannot be loads.
  std::vector<const Object*> not_the_installs;
  TorchUse torch_abi = TorchUse::kNoTorch;
  int torch_shim_references = 0;
  int torch_cxx_references = 0;
  std::vector<std::string> torch_cxx_examples;
  DeviceFindings device;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_FINDINGS_H_
