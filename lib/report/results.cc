// The public result types: the names reports give their enums, and their summaries.
#include "abicheck/abicheck.h"

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

bool AbiDiff::breaking() const {
  for (const LibraryDiff& l : libraries) {
    if (!l.removed.empty() || !l.changed.empty() || !l.new_soname.empty() ||
        !l.versions_removed.empty() || !l.needed_added.empty())
      return true;
  }
  return false;
}

bool EnvironmentReport::loads() const {
  for (const Report& r : torch_imports) {
    if (!r.ok()) return false;
  }
  for (const MatrixCell& c : matrix.cells) {
    if (!c.report.ok()) return false;
  }
  return true;
}

}  // namespace abicheck
