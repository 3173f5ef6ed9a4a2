// The public result types: the names reports give their enums, a difference's text, and verdicts
// over many reports.
#include "lib/results/results.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/results/part_change.h"

namespace abicheck {

const char* Version() { return ABICHECK_VERSION; }

const char* TorchAbiName(TorchAbi abi) {
  switch (abi) {
    case TorchAbi::kNoTorch:
      return "no_torch";
    case TorchAbi::kStable:
      return "stable";
    case TorchAbi::kUnstable:
      return "unstable";
  }
  return "unknown";
}

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kLoads:
      return "loads";
    case Verdict::kFails:
      return "fails";
    case Verdict::kUnknown:
      return "unknown";
    case Verdict::kNotInstalled:
      return "not_installed";
  }
  return "unknown";
}

int ExitCodeForVerdicts(bool any_fails, bool any_unknown) {
  return any_fails ? kExitWillNotLoad : any_unknown ? kExitUnknown : kExitLoads;
}

const char* ProblemKindName(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::kUndefinedSymbol:
      return "undefined_symbol";
    case ProblemKind::kVersionNotFound:
      return "version_not_found";
    case ProblemKind::kMissingLibrary:
      return "missing_library";
    case ProblemKind::kWrongElfClass:
      return "wrong_elf_class";
    case ProblemKind::kWrongMachine:
      return "wrong_machine";
    case ProblemKind::kNotLoadable:
      return "not_loadable";
    case ProblemKind::kLoaderAssertion:
      return "loader_assertion";
    case ProblemKind::kNoKernelImage:
      return "no_kernel_image";
    case ProblemKind::kUnsupportedPtx:
      return "unsupported_ptx";
    case ProblemKind::kInsufficientDriver:
      return "insufficient_driver";
  }
  return "unknown";
}

const char* RelationName(Relation relation) {
  switch (relation) {
    case Relation::kSignatureChanged:
      return "signature_changed";
    case Relation::kScopeChanged:
      return "scope_changed";
    case Relation::kNotInScope:
      return "not_in_scope";
    case Relation::kVersionDiffers:
      return "version_differs";
  }
  return "unknown";
}

const char* FoundByName(FoundBy found_by) {
  switch (found_by) {
    case FoundBy::kModule:
      return "module";
    case FoundBy::kProvider:
      return "provider";
    case FoundBy::kPreload:
      return "preload";
    case FoundBy::kInterpreter:
      return "interpreter";
    case FoundBy::kPath:
      return "path";
    case FoundBy::kRpath:
      return "rpath";
    case FoundBy::kLibraryPath:
      return "library_path";
    case FoundBy::kRunpath:
      return "runpath";
    case FoundBy::kLdCache:
      return "ld.so.cache";
    case FoundBy::kSystem:
      return "system";
  }
  return "unknown";
}

const char* WarningKindName(WarningKind kind) {
  switch (kind) {
    case WarningKind::kNote:
      return "";
    case WarningKind::kSecondCopy:
      return "second_copy";
  }
  return "";
}

const char* StringAbiName(StringAbi abi) {
  switch (abi) {
    case StringAbi::kUnknown:
      return "unknown";
    case StringAbi::kCxx11:
      return "c++11";
    case StringAbi::kPreCxx11:
      return "pre-c++11";
    case StringAbi::kMixed:
      return "mixed";
  }
  return "unknown";
}

std::string PartChangeText(const PartChange& d) {
  auto or_none = [](const std::string& s) { return s.empty() ? std::string("(none)") : s; };
  switch (d.kind) {
    case PartChange::Kind::kAbiTag:
      return absl::StrCat("ABI tag: ", or_none(d.from), " → ", or_none(d.to),
                          absl::StrContains(d.to, "[abi:cxx11]")
                              ? " (its return type is or holds the C++11 std::string)"
                              : "");
    case PartChange::Kind::kScope:
      return absl::StrCat("scope: ", d.from, " → ", d.to);
    case PartChange::Kind::kParameterCount: {
      auto n = [](const std::string& k) {
        return absl::StrCat(k, " parameter", k == "1" ? "" : "s");
      };
      return absl::StrCat(n(d.from), " → ", n(d.to));
    }
    case PartChange::Kind::kParameter:
      return absl::StrCat("parameter ", d.position, ": ", d.from, " → ", d.to);
    case PartChange::Kind::kQualifiers:
      return absl::StrCat("qualifiers: ", or_none(d.from), " → ", or_none(d.to));
    case PartChange::Kind::kReturnType:
      return absl::StrCat("return type: ", d.from, " → ", d.to);
    case PartChange::Kind::kVersion: {
      auto v = [](const std::string& s) { return s.empty() ? std::string("(unversioned)") : s; };
      return absl::StrCat("version: ", v(d.from), " → ", v(d.to));
    }
    case PartChange::Kind::kMangledName:
      return absl::StrCat("mangled name: ", d.from, " → ", d.to);
    case PartChange::Kind::kTemplateArguments:
      return absl::StrCat("template arguments: ", or_none(d.from), " → ", or_none(d.to));
  }
  return "";
}

// PartChange::Kind is Difference::Kind value for value: DifferenceText casts one to the other.
static_assert(static_cast<int>(Difference::Kind::kAbiTag) ==
              static_cast<int>(PartChange::Kind::kAbiTag));
static_assert(static_cast<int>(Difference::Kind::kScope) ==
              static_cast<int>(PartChange::Kind::kScope));
static_assert(static_cast<int>(Difference::Kind::kParameterCount) ==
              static_cast<int>(PartChange::Kind::kParameterCount));
static_assert(static_cast<int>(Difference::Kind::kParameter) ==
              static_cast<int>(PartChange::Kind::kParameter));
static_assert(static_cast<int>(Difference::Kind::kQualifiers) ==
              static_cast<int>(PartChange::Kind::kQualifiers));
static_assert(static_cast<int>(Difference::Kind::kReturnType) ==
              static_cast<int>(PartChange::Kind::kReturnType));
static_assert(static_cast<int>(Difference::Kind::kVersion) ==
              static_cast<int>(PartChange::Kind::kVersion));
static_assert(static_cast<int>(Difference::Kind::kMangledName) ==
              static_cast<int>(PartChange::Kind::kMangledName));
static_assert(static_cast<int>(Difference::Kind::kTemplateArguments) ==
              static_cast<int>(PartChange::Kind::kTemplateArguments));

std::string DifferenceText(const Difference& d) {
  return PartChangeText({static_cast<PartChange::Kind>(d.kind), d.position, d.from, d.to});
}

std::vector<std::string> DifferenceTexts(const std::vector<Difference>& differences) {
  std::vector<std::string> out;
  out.reserve(differences.size());
  for (const Difference& d : differences) out.push_back(DifferenceText(d));
  return out;
}

bool AbiDiff::breaking() const {
  for (const LibraryDiff& l : libraries) {
    if (!l.removed.empty() || !l.changed.empty() || !l.new_soname.empty() ||
        !l.versions_removed.empty() || !l.needed_added.empty())
      return true;
  }
  return false;
}

void AddNotGiven(const Report& report, std::vector<std::string>* not_given) {
  for (const std::string& lib : report.unknown_because) {
    if (std::find(not_given->begin(), not_given->end(), lib) == not_given->end())
      not_given->push_back(lib);
  }
}

Verdict EnvironmentReport::verdict() const {
  bool unknown = false;
  auto take = [&](const Report& r) {
    unknown = unknown || r.verdict() == Verdict::kUnknown;
    return r.verdict() == Verdict::kFails;
  };
  for (const Report& r : torch_imports) {
    if (take(r)) return Verdict::kFails;
  }
  for (const MatrixCell& c : matrix.cells) {
    if (take(c.report)) return Verdict::kFails;
  }
  return unknown ? Verdict::kUnknown : Verdict::kLoads;
}

bool EnvironmentReport::loads() const {
  for (const Report& r : torch_imports) {
    if (!r.ok()) return false;
  }
  for (const MatrixCell& c : matrix.cells) {
    if (!NothingInTheWay(c.report)) return false;
  }
  return true;
}

}  // namespace abicheck
