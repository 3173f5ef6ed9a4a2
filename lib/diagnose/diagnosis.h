// What the diagnosis concludes, in types of its own (issue 34): the loader's failures with the
// nearest definitions that do exist and the causes they share, and what `diff` finds between two
// builds. They mirror the public DiagnosedFailure, NearDefinition, SharedCause, Diagnosed's
// diagnosis fields and BuildDelta field by field; lib/api/findings.h alone converts them, so the
// diagnosis can change without a change of libabicheck.so's ABI.
#ifndef ABICHECK_LIB_DIAGNOSE_DIAGNOSIS_H_
#define ABICHECK_LIB_DIAGNOSE_DIAGNOSIS_H_

#include <string>
#include <vector>

#include "lib/resolve/findings.h"
#include "lib/results/part_change.h"

namespace abicheck {

// How a nearby definition relates to the symbol that was needed (the public NearRelation).
enum class NearRelation { kSignatureChanged, kScopeChanged, kNotInScope, kVersionDiffers };

// A nearby definition that does exist, and how it differs from what was needed.
struct NearDefinition {
  std::string symbol;  // mangled
  std::string demangled;
  std::string library;  // path of the library exporting it
  std::string version;
  NearRelation relation = NearRelation::kSignatureChanged;
  std::vector<PartChange> differences;
};

// A failure of the load with what the diagnosis found for it.
struct DiagnosedFailure : LoadFailure {
  std::vector<NearDefinition> candidates;
  std::string cause;  // the id of a SharedCause that explains it, if any
};

// One reason behind many failures, said once.
struct SharedCause {
  std::string id;
  std::string summary;
  int problems = 0;
};

// The C++ std::string ABI of a set of objects (the public StringAbiKind).
enum class StringAbiKind { kUnknown, kCxx11, kPreCxx11, kMixed };

// What the diagnosis reads and writes of one module's findings (api/ moves them in and out).
struct Diagnosed {
  std::string module;
  std::vector<DiagnosedFailure> problems;
  std::vector<LoadNote> warnings;
  std::vector<SharedCause> causes;
  StringAbiKind module_string_abi = StringAbiKind::kUnknown;
  StringAbiKind providers_string_abi = StringAbiKind::kUnknown;
};

// `diff`: an export removed, added or changed (the public ExportDelta).
struct ExportDelta {
  std::string symbol;
  std::string demangled;
  std::string new_symbol;
  std::string new_demangled;
  std::vector<PartChange> differences;
};
// One pair of libraries compared (the public LibraryDelta).
struct LibraryDelta {
  std::string old_library, new_library;
  std::vector<ExportDelta> removed, added, changed;
  std::string old_soname, new_soname;
  std::vector<std::string> versions_removed, versions_added, needed_removed, needed_added;
};
// Two builds compared (the public BuildDelta).
struct BuildDelta {
  std::string old_build, new_build;
  std::vector<LibraryDelta> libraries;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_DIAGNOSE_DIAGNOSIS_H_
