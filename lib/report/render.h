// The renderers behind Render() (include/abicheck/abicheck.h), one per result and format, for the
// stages and tests that want one directly. Not exported from libabicheck.so: build tooling calls
// Render(result, options).
#ifndef ABICHECK_LIB_REPORT_RENDER_H_
#define ABICHECK_LIB_REPORT_RENDER_H_

#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/strings/string_view.h"

namespace abicheck {

// `all`: every problem of a cause, not three and a count (RenderOptions::all).
std::string RenderText(const Report& report, bool color, bool all = false);
// The same without the notes (by message) in `said`, which a matrix or environment report has
// said once above its modules' reports.
std::string RenderText(const Report& report, bool color, bool all,
                       const std::vector<std::string>& said);
std::string RenderJson(const Report& report);
// `builds[i]`, when given, names the build reports[i] was made against: each of its results says
// it.
std::string RenderSarif(const std::vector<Report>& reports,
                        const std::vector<std::string>& builds = {});
std::string RenderSarifError(const std::string& message);

// `summary` (--summary): the table, the recommendation and notes, then one line per failing cell
// (its first error) instead of each failing cell's report.
std::string RenderMatrixText(const Matrix& matrix, bool color, bool all = false,
                             bool summary = false);
// The summary's lines of a matrix's failing cells ("  ROW with BUILD: FAILS (1): first error"),
// `labels` naming its builds, under kFailingHeading.
std::string FailingLines(const Matrix& m, const std::vector<std::string>& labels);
inline constexpr char kFailingHeading[] =
    "what fails (--summary: the first error of each; without it, every problem explained):\n";
std::string RenderMatrixJson(const Matrix& matrix);
std::string RenderJunit(const Matrix& matrix);
std::string RenderJunitError(const std::string& message);

std::string RenderEnvironmentText(const EnvironmentReport& env, bool color, bool all = false,
                                  bool summary = false);

// The notes (by message) that every one of `reports` has: a matrix's text says them once above.
std::vector<std::string> SharedWarnings(const std::vector<const Report*>& reports);
std::string RenderEnvironmentJson(const EnvironmentReport& env);

// `diff`'s text: the totals, a table of the libraries (removed / changed / added / soname) and
// the changed signatures, then (unless `summary`) every change by library, with the instances of
// standard-library templates each library exports (std::_Hashtable<...>::..., typeinfo for
// std::vector<...>) folded into one line per library unless `all`: the compiler emits them
// wherever a library uses the template, they are rarely the API a module was built against.
std::string RenderDiffText(const AbiDiff& diff, bool color, bool all = false, bool summary = false);
// "std::vector" for an export that is an instance of a standard-library template (the name
// demangled: a member or specialization of std::X<...> or __gnu_cxx::X<...>, its typeinfo,
// vtable or guard), else "".
std::string StdTemplateOf(absl::string_view demangled);
std::string RenderDiffJson(const AbiDiff& diff);

}  // namespace abicheck

#endif  // ABICHECK_LIB_REPORT_RENDER_H_
