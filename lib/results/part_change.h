// One way a nearby definition differs from what was needed, as the stages below the API record it
// (diagnose/'s candidates and diff's changes), and its text for a person: the one table behind
// the public DifferenceText too, so every format says a difference in the same words.
#ifndef ABICHECK_LIB_RESULTS_PART_CHANGE_H_
#define ABICHECK_LIB_RESULTS_PART_CHANGE_H_

#include <string>

namespace abicheck {

// The public Difference's meaning, field by field (lib/api/findings.h converts).
struct PartChange {
  enum class Kind {
    kAbiTag,
    kScope,
    kParameterCount,
    kParameter,
    kQualifiers,
    kReturnType,
    kVersion,
    kMangledName,
    kTemplateArguments,
  };
  Kind kind = Kind::kParameter;
  int position = 0;
  std::string from, to;
  bool operator==(const PartChange& o) const {
    return kind == o.kind && position == o.position && from == o.from && to == o.to;
  }
};

// "parameter 4: int → unsigned int", "ABI tag: (none) → [abi:cxx11] (...)", ...
std::string PartChangeText(const PartChange& change);

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESULTS_PART_CHANGE_H_
