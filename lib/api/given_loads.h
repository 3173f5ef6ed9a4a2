// A build's own libraries must load for anything to load against them (docs/loader-model.md
// E2a): the given libraries' own loads are checked once per build, as the process that loaded
// them before the module did, and a module relying on one that fails meets its error.
#ifndef ABICHECK_LIB_API_GIVEN_LOADS_H_
#define ABICHECK_LIB_API_GIVEN_LOADS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "abicheck/abicheck.h"
#include "lib/io/blob.h"
#include "lib/resolve/parse_cache.h"

namespace abicheck {

// One build's given libraries (`providers`, `preload`: as its worlds are made of them).
class GivenLoads {
 public:
  struct Inputs {
    const std::vector<InputFile>* providers = nullptr;
    const std::vector<InputFile>* preload = nullptr;
    const InputFile* python = nullptr;
  };
  GivenLoads(Inputs inputs, const CheckOptions& options, ParseCache* parses);

  // Makes `r`, a module's report against these libraries, answer for those its load relied on
  // (found as a provider or in the global scope): where one of them cannot load itself, `r`
  // fails with that library's errors, its first one first — the process meets it before the
  // module (`import torch` fails) — and the returned note says so. A module that fails already
  // keeps its own errors. The given libraries' loads are checked on the first call that needs
  // them, once.
  absl::StatusOr<std::optional<Warning>> Apply(Report* r);

 private:
  absl::Status LoadTheGivenLibraries();

  Inputs in_;
  CheckOptions options_;
  ParseCache* parses_;
  bool loaded_ = false;
  // Per given object whose own load fails, in the order the loads met them: its path, and its
  // failures in ld.so's order.
  std::vector<std::pair<std::string, std::vector<Problem>>> failing_;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_API_GIVEN_LOADS_H_
