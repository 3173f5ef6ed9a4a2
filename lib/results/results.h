// What the public result types do beyond abicheck.h's own declarations, for the stages that
// make and render them.
#ifndef ABICHECK_LIB_RESULTS_RESULTS_H_
#define ABICHECK_LIB_RESULTS_RESULTS_H_

#include <string>
#include <vector>

#include "abicheck/abicheck.h"

namespace abicheck {

// DifferenceText of each, in order.
std::vector<std::string> DifferenceTexts(const std::vector<Difference>& differences);

// Adds to `not_given` the libraries an unknown report waits for (Report::unknown_because) that
// it does not list yet, in order: what to give to decide a row, a column or a package.
void AddNotGiven(const Report& report, std::vector<std::string>* not_given);

// Nothing of `report` stands in the way: it loads (kLoads), or the build installs no file at its
// path (kNotInstalled, an environment's cell: docs/loader-model.md E11). A recommendation, a
// package's verdict and the list of what fails pass over such a cell.
inline bool NothingInTheWay(const Report& report) {
  return report.ok() || report.verdict() == Verdict::kNotInstalled;
}

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESULTS_RESULTS_H_
