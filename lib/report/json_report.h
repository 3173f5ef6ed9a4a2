// The JSON object of one report, shared by the single-module and matrix renderers.
#ifndef ABICHECK_LIB_REPORT_JSON_REPORT_H_
#define ABICHECK_LIB_REPORT_JSON_REPORT_H_

#include "abicheck/abicheck.h"
#include "lib/results/results.h"
#include "nlohmann/json.hpp"

namespace abicheck {

// docs/json-schema.md: 2 since the third verdict (a report's `verdict`; `loads` is false for an
// unknown one), 3 since the fourth (`not_installed`, an environment's cell). Every document
// carries it.
inline constexpr int kJsonSchemaVersion = 3;

nlohmann::ordered_json ReportJson(const Report& report);
// The matrix document (also embedded in the environment document).
nlohmann::ordered_json MatrixJson(const Matrix& m);
// Serialized with invalid UTF-8 (hostile symbol names) replaced, never thrown on.
std::string DumpJson(const nlohmann::ordered_json& j);

}  // namespace abicheck

#endif  // ABICHECK_LIB_REPORT_JSON_REPORT_H_
