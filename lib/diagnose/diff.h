// The exported-symbol sets of two builds compared library by library, with removed C++ functions
// matched to their same-named replacements (DescribeDifferences): what `abicheck diff` reports.
#ifndef ABICHECK_LIB_DIAGNOSE_DIFF_H_
#define ABICHECK_LIB_DIAGNOSE_DIFF_H_

#include <set>
#include <string>
#include <vector>

#include "lib/diagnose/diagnosis.h"
#include "lib/io/blob.h"

namespace abicheck {

// What one library of a build exports, needs and defines.
struct ExportSet {
  std::string path;
  // Where it lies inside its build ("torch/_C.cpython-312-x86_64-linux-gnu.so"): the first key
  // libraries are paired by, before soname and stem; "" when not known.
  std::string relative;
  std::string soname;
  bool has_soname = false;
  std::set<std::string> exports;   // "name" or "name@version"
  std::set<std::string> versions;  // version definitions, BASE excluded
  std::set<std::string> needed;    // DT_NEEDED
};

// The export set of one shared object of a build.
absl::StatusOr<ExportSet> ReadExportSet(const InputFile& f);

// Pairs the libraries by their path inside the build, then by soname, then by stem (two single
// files are always a pair) and compares each pair.
BuildDelta CompareBuilds(const std::string& old_build, const std::vector<ExportSet>& a,
                         const std::string& new_build, const std::vector<ExportSet>& b);

}  // namespace abicheck

#endif  // ABICHECK_LIB_DIAGNOSE_DIFF_H_
