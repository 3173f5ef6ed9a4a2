// The report for machines: docs/json-schema.md, schema_version 3. Keys are emitted in a fixed
// order so that the same inputs give the same bytes.
#include "lib/report/json_report.h"

#include "lib/report/render.h"

namespace abicheck {

using ordered_json = nlohmann::ordered_json;

namespace {

ordered_json ProblemJson(const Problem& p) {
  ordered_json j;
  j["kind"] = ProblemKindName(p.kind);
  j["object"] = p.object;
  if (!p.symbol.empty()) {
    j["symbol"] = p.symbol;
    j["demangled"] = p.demangled;
  }
  if (!p.version.empty()) j["version"] = p.version;
  if (!p.library.empty()) j["library"] = p.library;
  j["message"] = p.message;
  j["first"] = p.first;
  ordered_json d = ordered_json::object();
  if (!p.hint.empty()) d["hint"] = p.hint;
  if (!p.cause.empty()) d["cause"] = p.cause;
  if (!p.stand_in.empty()) d["stand_in"] = p.stand_in;
  if (!p.exported_by.empty()) d["exported_by"] = p.exported_by;
  ordered_json cands = ordered_json::array();
  for (const Candidate& c : p.candidates) {
    ordered_json cj;
    cj["relation"] = RelationName(c.relation);
    cj["symbol"] = c.symbol;
    cj["demangled"] = c.demangled;
    cj["library"] = c.library;
    if (!c.version.empty()) cj["version"] = c.version;
    cj["differences"] = DifferenceTexts(c.differences);
    cands.push_back(std::move(cj));
  }
  if (!cands.empty()) d["candidates"] = std::move(cands);
  if (!d.empty()) j["diagnosis"] = std::move(d);
  return j;
}

}  // namespace

ordered_json ReportJson(const Report& r) {
  ordered_json j;
  j["schema_version"] = kJsonSchemaVersion;
  j["tool"] = {{"name", "abicheck"}, {"version", Version()}};
  j["module"] = r.module;
  j["verdict"] = VerdictName(r.verdict());
  j["loads"] = r.loads;
  std::string first;
  for (const Problem& p : r.problems) {
    if (p.first) first = p.message;
  }
  j["first_error"] = first.empty() ? ordered_json(nullptr) : ordered_json(first);
  ordered_json problems = ordered_json::array();
  for (const Problem& p : r.problems) problems.push_back(ProblemJson(p));
  j["problems"] = std::move(problems);
  ordered_json libs = ordered_json::array();
  for (const LoadedLibrary& l : r.libraries) {
    libs.push_back({{"name", l.name},
                    {"path", l.path},
                    {"found_by", FoundByName(l.found_by)},
                    {"newly_loaded", l.newly_loaded}});
  }
  j["libraries"] = std::move(libs);
  ordered_json causes = ordered_json::array();
  for (const Cause& c : r.causes)
    causes.push_back({{"id", c.id}, {"summary", c.summary}, {"problems", c.problems}});
  j["causes"] = std::move(causes);
  j["string_abi"] = {{"module", StringAbiName(r.module_string_abi)},
                     {"providers", StringAbiName(r.providers_string_abi)}};
  ordered_json warnings = ordered_json::array();
  for (const Warning& w : r.warnings) {
    ordered_json o = {{"object", w.object}, {"message", w.message}};
    if (w.kind != WarningKind::kNote) o["kind"] = WarningKindName(w.kind);
    warnings.push_back(std::move(o));
  }
  j["warnings"] = std::move(warnings);
  if (r.device.checked) {
    const DeviceCheck& d = r.device;
    ordered_json dj = {{"runs", r.loads && r.problems.empty()},
                       {"readable", d.readable},
                       {"images", d.images},
                       {"gpu", d.gpu.empty() ? ordered_json(nullptr) : ordered_json(d.gpu)},
                       {"usable", d.usable}};
    dj["driver_cuda"] = d.driver_cuda.empty() ? ordered_json(nullptr) : ordered_json(d.driver_cuda);
    if (!d.driver_file.empty()) dj["driver_file"] = d.driver_file;
    dj["cuda_runtime"] =
        d.cuda_runtime.empty() ? ordered_json(nullptr) : ordered_json(d.cuda_runtime);
    j["device"] = std::move(dj);
  }
  j["summary"] = {{"references_checked", r.references_checked},
                  {"interpreter_symbols", r.interpreter_symbols},
                  {"weak_unresolved", r.weak_unresolved},
                  {"unverified_references", r.unverified_references},
                  {"driver_references", r.driver_references},
                  {"assumed_loaded", r.assumed_loaded},
                  {"driver_libraries", r.driver_libraries},
                  {"unknown_because", r.unknown_because}};
  return j;
}

std::string DumpJson(const ordered_json& j) {
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string RenderJson(const Report& r) { return DumpJson(ReportJson(r)); }

}  // namespace abicheck
