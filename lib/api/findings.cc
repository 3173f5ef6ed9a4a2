// The loader's records into the public result types (findings.h).

#include "lib/api/findings.h"

#include <utility>

#include "lib/resolve/loader.h"

namespace abicheck {

LoadOptions ToLoadOptions(const CheckOptions& options) {
  LoadOptions o;
  o.python = options.python;
  o.library_path = options.library_path;
  o.notes = options.notes;
  o.use_host = options.use_host;
  o.sysroot = options.sysroot;
  o.same_stem_stand_ins = options.same_stem_stand_ins;
  o.gpu = options.gpu;
  o.cuda_driver = options.cuda_driver;
  o.glibc = options.glibc;
  return o;
}

FoundBy ToFoundBy(HowFound how) {
  switch (how) {
    case HowFound::kModule:
      return FoundBy::kModule;
    case HowFound::kProvider:
      return FoundBy::kProvider;
    case HowFound::kPreload:
      return FoundBy::kPreload;
    case HowFound::kInterpreter:
      return FoundBy::kInterpreter;
    case HowFound::kPath:
      return FoundBy::kPath;
    case HowFound::kRpath:
      return FoundBy::kRpath;
    case HowFound::kLibraryPath:
      return FoundBy::kLibraryPath;
    case HowFound::kRunpath:
      return FoundBy::kRunpath;
    case HowFound::kLdCache:
      return FoundBy::kLdCache;
    case HowFound::kSystem:
      return FoundBy::kSystem;
  }
  return FoundBy::kModule;
}

ProblemKind ToProblemKind(FailureKind kind) {
  switch (kind) {
    case FailureKind::kUndefinedSymbol:
      return ProblemKind::kUndefinedSymbol;
    case FailureKind::kVersionNotFound:
      return ProblemKind::kVersionNotFound;
    case FailureKind::kMissingLibrary:
      return ProblemKind::kMissingLibrary;
    case FailureKind::kWrongElfClass:
      return ProblemKind::kWrongElfClass;
    case FailureKind::kWrongMachine:
      return ProblemKind::kWrongMachine;
    case FailureKind::kNotLoadable:
      return ProblemKind::kNotLoadable;
    case FailureKind::kLoaderAssertion:
      return ProblemKind::kLoaderAssertion;
    case FailureKind::kNoKernelImage:
      return ProblemKind::kNoKernelImage;
    case FailureKind::kUnsupportedPtx:
      return ProblemKind::kUnsupportedPtx;
    case FailureKind::kInsufficientDriver:
      return ProblemKind::kInsufficientDriver;
  }
  return ProblemKind::kNotLoadable;
}

TorchAbi ToTorchAbi(TorchUse use) {
  switch (use) {
    case TorchUse::kNoTorch:
      return TorchAbi::kNoTorch;
    case TorchUse::kStable:
      return TorchAbi::kStable;
    case TorchUse::kUnstable:
      return TorchAbi::kUnstable;
  }
  return TorchAbi::kNoTorch;
}

Problem ToProblem(LoadFailure failure) {
  Problem p;
  p.kind = ToProblemKind(failure.kind);
  p.object = std::move(failure.object);
  p.symbol = std::move(failure.symbol);
  p.demangled = std::move(failure.demangled);
  p.version = std::move(failure.version);
  p.library = std::move(failure.library);
  p.message = std::move(failure.message);
  p.first = failure.first;
  p.hint = std::move(failure.hint);
  p.stand_in = std::move(failure.stand_in);
  return p;
}

Warning ToWarning(LoadNote note) {
  return Warning(
      std::move(note.object), std::move(note.message),
      note.kind == NoteKind::kSecondCopy ? WarningKind::kSecondCopy : WarningKind::kNote);
}

DeviceCheck ToDeviceCheck(DeviceFindings device) {
  DeviceCheck d;
  d.checked = device.checked;
  d.readable = device.readable;
  d.images = std::move(device.images);
  d.gpu = std::move(device.gpu);
  d.usable = std::move(device.usable);
  d.driver_cuda = std::move(device.driver_cuda);
  d.driver_file = std::move(device.driver_file);
  d.cuda_runtime = std::move(device.cuda_runtime);
  return d;
}

Report ToReport(LoadFindings findings) {
  Report r;
  r.module = std::move(findings.module);
  r.loads = findings.loads;
  r.problems.reserve(findings.problems.size());
  for (LoadFailure& f : findings.problems) r.problems.push_back(ToProblem(std::move(f)));
  r.libraries.reserve(findings.libraries.size());
  for (LoadedObject& l : findings.libraries) {
    r.libraries.push_back(
        {std::move(l.name), std::move(l.path), ToFoundBy(l.found_by), l.newly_loaded});
  }
  r.warnings.reserve(findings.warnings.size());
  for (LoadNote& n : findings.warnings) r.warnings.push_back(ToWarning(std::move(n)));
  r.interpreter_symbols = findings.interpreter_symbols;
  r.weak_unresolved = findings.weak_unresolved;
  r.unverified_references = findings.unverified_references;
  r.driver_references = findings.driver_references;
  for (std::string& a : findings.assumed_loaded) {
    if (IsInterpreterLibrary(a)) {
      // E5a, said once: the interpreter's library is no library the given ones load.
      r.warnings.push_back(
          {r.module, absl::StrCat("needs ", a,
                                  ", the Python interpreter's library: loaded with the "
                                  "interpreter where Python is built shared, absent where it is "
                                  "not (--python FILE checks which)")});
      continue;
    }
    if (IsGpuDriverLibrary(a)) r.driver_libraries.push_back(a);
    r.assumed_loaded.push_back(std::move(a));
  }
  r.unknown_because = std::move(findings.unknown_because);
  r.providers_missing = std::move(findings.providers_missing);
  r.references_checked = findings.references_checked;
  r.torch_abi = ToTorchAbi(findings.torch_abi);
  r.torch_shim_references = findings.torch_shim_references;
  r.torch_cxx_references = findings.torch_cxx_references;
  r.torch_cxx_examples = std::move(findings.torch_cxx_examples);
  r.device = ToDeviceCheck(std::move(findings.device));
  return r;
}

Diagnosed ForDiagnosis(LoadFindings* findings) {
  Diagnosed d;
  d.module = findings->module;
  d.problems.reserve(findings->problems.size());
  for (LoadFailure& f : findings->problems) d.problems.push_back({std::move(f), {}, {}});
  findings->problems.clear();
  d.warnings = std::move(findings->warnings);
  findings->warnings.clear();
  return d;
}

Difference ToDifference(PartChange change) {
  Difference d;
  // Value for value (the static_asserts beside DifferenceText, lib/results/results.cc).
  d.kind = static_cast<Difference::Kind>(change.kind);
  d.position = change.position;
  d.from = std::move(change.from);
  d.to = std::move(change.to);
  return d;
}

namespace {

std::vector<Difference> ToDifferences(std::vector<PartChange> changes) {
  std::vector<Difference> out;
  out.reserve(changes.size());
  for (PartChange& c : changes) out.push_back(ToDifference(std::move(c)));
  return out;
}

Relation ToRelation(NearRelation relation) {
  switch (relation) {
    case NearRelation::kSignatureChanged:
      return Relation::kSignatureChanged;
    case NearRelation::kScopeChanged:
      return Relation::kScopeChanged;
    case NearRelation::kNotInScope:
      return Relation::kNotInScope;
    case NearRelation::kVersionDiffers:
      return Relation::kVersionDiffers;
  }
  return Relation::kSignatureChanged;
}

std::vector<ExportChange> ToExportChanges(std::vector<ExportDelta> deltas) {
  std::vector<ExportChange> out;
  out.reserve(deltas.size());
  for (ExportDelta& e : deltas) {
    out.push_back({std::move(e.symbol), std::move(e.demangled), std::move(e.new_symbol),
                   std::move(e.new_demangled), ToDifferences(std::move(e.differences))});
  }
  return out;
}

}  // namespace

Candidate ToCandidate(NearDefinition near) {
  Candidate c;
  c.symbol = std::move(near.symbol);
  c.demangled = std::move(near.demangled);
  c.library = std::move(near.library);
  c.version = std::move(near.version);
  c.relation = ToRelation(near.relation);
  c.differences = ToDifferences(std::move(near.differences));
  return c;
}

StringAbi ToStringAbi(StringAbiKind abi) {
  switch (abi) {
    case StringAbiKind::kUnknown:
      return StringAbi::kUnknown;
    case StringAbiKind::kCxx11:
      return StringAbi::kCxx11;
    case StringAbiKind::kPreCxx11:
      return StringAbi::kPreCxx11;
    case StringAbiKind::kMixed:
      return StringAbi::kMixed;
  }
  return StringAbi::kUnknown;
}

Report ToReport(LoadFindings findings, Diagnosed diagnosed) {
  Report r = ToReport(std::move(findings));
  r.problems.reserve(diagnosed.problems.size());
  for (DiagnosedFailure& f : diagnosed.problems) {
    std::vector<NearDefinition> near = std::move(f.candidates);
    std::string cause = std::move(f.cause);
    Problem p = ToProblem(std::move(static_cast<LoadFailure&>(f)));
    p.candidates.reserve(near.size());
    for (NearDefinition& n : near) p.candidates.push_back(ToCandidate(std::move(n)));
    p.cause = std::move(cause);
    r.problems.push_back(std::move(p));
  }
  r.warnings.reserve(diagnosed.warnings.size());
  for (LoadNote& n : diagnosed.warnings) r.warnings.push_back(ToWarning(std::move(n)));
  for (SharedCause& c : diagnosed.causes)
    r.causes.push_back({std::move(c.id), std::move(c.summary), c.problems});
  r.module_string_abi = ToStringAbi(diagnosed.module_string_abi);
  r.providers_string_abi = ToStringAbi(diagnosed.providers_string_abi);
  return r;
}

AbiDiff ToAbiDiff(BuildDelta delta) {
  AbiDiff d;
  d.old_build = std::move(delta.old_build);
  d.new_build = std::move(delta.new_build);
  d.libraries.reserve(delta.libraries.size());
  for (LibraryDelta& l : delta.libraries) {
    LibraryDiff o;
    o.old_library = std::move(l.old_library);
    o.new_library = std::move(l.new_library);
    o.removed = ToExportChanges(std::move(l.removed));
    o.added = ToExportChanges(std::move(l.added));
    o.changed = ToExportChanges(std::move(l.changed));
    o.old_soname = std::move(l.old_soname);
    o.new_soname = std::move(l.new_soname);
    o.versions_removed = std::move(l.versions_removed);
    o.versions_added = std::move(l.versions_added);
    o.needed_removed = std::move(l.needed_removed);
    o.needed_added = std::move(l.needed_added);
    d.libraries.push_back(std::move(o));
  }
  return d;
}

LoadFindings DeviceCheckInput(const Report& report) {
  LoadFindings f;
  f.module = report.module;
  f.loads = report.loads;
  return f;
}

void AppendDeviceFindings(LoadFindings from, Report* report) {
  report->device = ToDeviceCheck(std::move(from.device));
  for (LoadFailure& p : from.problems) report->problems.push_back(ToProblem(std::move(p)));
  for (LoadNote& n : from.warnings) report->warnings.push_back(ToWarning(std::move(n)));
}

}  // namespace abicheck
