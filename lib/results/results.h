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

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESULTS_RESULTS_H_
