// SARIF 2.1.0 (OASIS): one run, one rule per problem kind, one result per problem, located at
// the object that has it. The diagnosis travels in each result's message and properties.
#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/report/json_report.h"
#include "lib/report/render.h"

namespace abicheck {

namespace {

using J = nlohmann::ordered_json;

// One rule per problem kind, and the second-copy hazard.
J SarifRules() {
  struct Rule {
    ProblemKind kind;
    const char* text;
  };
  static const Rule kRules[] = {
      {ProblemKind::kUndefinedSymbol,
       "A reference the loader cannot bind: the import fails with 'undefined symbol'."},
      {ProblemKind::kVersionNotFound, "A symbol version the loaded library does not define."},
      {ProblemKind::kMissingLibrary,
       "A DT_NEEDED library that is neither loaded nor found on the search path."},
      {ProblemKind::kWrongElfClass, "Only a library of the other ELF class was found."},
      {ProblemKind::kWrongMachine, "Only a library for another machine was found."},
      {ProblemKind::kNotLoadable,
       "The module or a library it needs cannot be dlopen'ed (refused by the loader)."},
      {ProblemKind::kLoaderAssertion,
       "ld.so dies on an internal assertion: the process aborts (docs/loader-model.md B5)."},
      {ProblemKind::kNoKernelImage,
       "It loads, but carries no device code the given GPU can run (docs/gpu-model.md G5)."},
      {ProblemKind::kUnsupportedPtx,
       "It loads, but the only code for the GPU is PTX newer than the driver can compile (G6)."},
      {ProblemKind::kInsufficientDriver,
       "It loads a CUDA runtime of a newer major version than the driver supports (G7)."},
  };
  J rules = J::array();
  for (const Rule& r : kRules) {
    rules.push_back({{"id", ProblemKindName(r.kind)},
                     {"shortDescription", {{"text", r.text}}},
                     {"defaultConfiguration", {{"level", "error"}}}});
  }
  rules.push_back({{"id", "unknown_verdict"},
                   {"shortDescription",
                    {{"text",
                      "Cannot tell: references only a library that was not given could define "
                      "(docs/loader-model.md C2c). Give it, or the wheel that ships it."}}},
                   {"defaultConfiguration", {{"level", "error"}}}});
  rules.push_back({{"id", "second_copy"},
                   {"shortDescription",
                    {{"text",
                      "It loads, but brings in a second copy of a library the build "
                      "already provides: the process holds two builds of it."}}},
                   {"defaultConfiguration", {{"level", "warning"}}}});
  return rules;
}

// One problem as a result, its diagnosis in the message and properties.
J SarifResult(const Report& report, const Problem& p, const std::string& build) {
  std::string text = p.message;
  if (!p.demangled.empty() && p.demangled != p.symbol)
    absl::StrAppend(&text, " (", p.demangled, ")");
  if (!p.candidates.empty() && !p.candidates[0].differences.empty()) {
    absl::StrAppend(&text, "; nearest: ", p.candidates[0].demangled, ": ",
                    absl::StrJoin(DifferenceTexts(p.candidates[0].differences), "; "));
  }
  if (!p.hint.empty()) absl::StrAppend(&text, ". ", p.hint);
  if (!build.empty()) absl::StrAppend(&text, " [against ", build, "]");
  J props = {{"module", report.module}, {"first", p.first}};
  if (!build.empty()) props["build"] = build;
  if (!p.symbol.empty()) props["symbol"] = p.symbol;
  if (!p.version.empty()) props["version"] = p.version;
  if (!p.library.empty()) props["library"] = p.library;
  if (!p.cause.empty()) props["cause"] = p.cause;
  J result = {{"ruleId", ProblemKindName(p.kind)},
              {"level", "error"},
              {"message", {{"text", text}}},
              {"locations",
               J::array({{{"physicalLocation", {{"artifactLocation", {{"uri", p.object}}}}}}})},
              {"properties", props}};
  return result;
}

}  // namespace

std::string RenderSarif(const std::vector<Report>& reports,
                        const std::vector<std::string>& builds) {
  J rules = SarifRules();
  J results = J::array();
  for (size_t i = 0; i < reports.size(); ++i) {
    const Report& report = reports[i];
    const std::string& build = i < builds.size() ? builds[i] : std::string();
    // Every result of a report made against a build names it, in its message (what a code
    // scanning view shows and tells results apart by) and as a property (issue 36).
    const std::string against = build.empty() ? "" : absl::StrCat(" [against ", build, "]");
    auto with_build = [&](J props) {
      if (!build.empty()) props["build"] = build;
      return props;
    };
    for (const Problem& p : report.problems) results.push_back(SarifResult(report, p, build));
    if (report.verdict() == Verdict::kUnknown) {
      results.push_back(
          {{"ruleId", "unknown_verdict"},
           {"level", "error"},
           {"message",
            {{"text",
              absl::StrCat("cannot tell whether ", report.module,
                           " loads: ", report.unverified_references,
                           report.unverified_references == 1 ? " unresolved reference"
                                                             : " unresolved references",
                           " may be defined in ", absl::StrJoin(report.unknown_because, ", "),
                           report.unknown_because.size() == 1 ? ", which was not given"
                                                              : ", which were not given",
                           against)}}},
           {"locations",
            J::array({{{"physicalLocation", {{"artifactLocation", {{"uri", report.module}}}}}}})},
           {"properties",
            with_build({{"module", report.module}, {"not_given", report.unknown_because}})}});
    }
    for (const Warning& w : report.warnings) {
      if (w.kind == WarningKind::kNote) continue;  // notes stay in the report; hazards are results
      results.push_back(
          {{"ruleId", WarningKindName(w.kind)},
           {"level", "warning"},
           {"message", {{"text", absl::StrCat(w.message, against)}}},
           {"locations",
            J::array({{{"physicalLocation", {{"artifactLocation", {{"uri", w.object}}}}}}})},
           {"properties", with_build({{"module", report.module}})}});
    }
  }
  J sarif = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       J::array({{{"tool",
                   {{"driver", {{"name", "abicheck"}, {"version", Version()}, {"rules", rules}}}}},
                  {"results", results}}})}};
  return DumpJson(sarif);
}

std::string RenderSarifError(const std::string& message) {
  J sarif = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       J::array(
           {{{"tool", {{"driver", {{"name", "abicheck"}, {"version", Version()}}}}},
             {"invocations",
              J::array({{{"executionSuccessful", false},
                         {"toolExecutionNotifications",
                          J::array({{{"level", "error"}, {"message", {{"text", message}}}}})}}})},
             {"results", J::array()}}})}};
  return DumpJson(sarif);
}

}  // namespace abicheck
