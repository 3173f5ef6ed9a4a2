// What diagnose.cc's DiagnoseProblems calls in the other files of diagnose/ (string_abi.cc,
// causes.cc); not for other stages.
#ifndef ABICHECK_LIB_DIAGNOSE_DIAGNOSE_INTERNAL_H_
#define ABICHECK_LIB_DIAGNOSE_DIAGNOSE_INTERNAL_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/diagnose/diagnose.h"
#include "lib/resolve/loader.h"

namespace abicheck {

// The std::string ABI of the module's side and of the providers' (Diagnosed::module_string_abi,
// ::providers_string_abi), and the cxx11_string_abi cause over the misses it explains.
void ClassifyStringAbi(const std::vector<const Object*>& scope, Diagnosed* report);

// One change repeated across an API (int -> long in one parameter of 57 functions) is one cause.
void GroupRepeatedChanges(Diagnosed* report);

// The undefined symbols whose version the referring object needs from a library that is missing
// (torchcodec's av_* @ LIBAVUTIL_60, from libavutil.so.60): by (object path, version), that file.
using MissingVersionFiles = absl::flat_hash_map<std::pair<std::string, std::string>, std::string>;
MissingVersionFiles VersionsOfMissingLibraries(const Loader& loader, const Diagnosed& report);
// Three or more such symbols are one cause: they follow from the missing libraries.
void GroupSymbolsOfMissingLibraries(const MissingVersionFiles& files, Diagnosed* report);

}  // namespace abicheck

#endif  // ABICHECK_LIB_DIAGNOSE_DIAGNOSE_INTERNAL_H_
