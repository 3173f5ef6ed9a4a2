// Module × build matrices: a verdict table on top, each failing cell's report below (text), or
// one JSON document whose cells keep the single-module report's schema.
#include <algorithm>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/report/json_report.h"
#include "lib/report/text_util.h"

namespace abicheck {
namespace {

std::string Short(const std::string& name) {
  // "dist/x.whl!torchvision/_C.so" -> "torchvision/_C.so"; "/a/b/_C.so" -> "_C.so"
  size_t bang = name.rfind('!');
  if (bang != std::string::npos) return name.substr(bang + 1);
  size_t slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

std::string CellVerdict(const Report& r) {
  if (r.loads) return "loads";
  int n = static_cast<int>(r.problems.size());
  return absl::StrFormat("FAILS (%d)", n);
}

// Column labels: what tells the builds apart. Wheels by file name (without .whl); paths without
// the leading and trailing components they all share ("sid/libtorch2.14" for
// "sid/libtorch2.14/usr/lib/x86_64-linux-gnu" beside "trixie/libtorch2.6/usr/lib/...").
std::vector<std::string> BuildLabels(const std::vector<std::string>& builds) {
  std::vector<std::vector<std::string>> parts;
  for (const std::string& b : builds) {
    std::string p = b;
    if (absl::EndsWith(p, ".whl")) p = p.substr(0, p.size() - 4);
    parts.push_back(absl::StrSplit(p, '/', absl::SkipEmpty()));
  }
  size_t prefix = 0, suffix = 0;
  auto all_have = [&](auto pred) {
    for (const auto& v : parts) {
      if (!pred(v)) return false;
    }
    return parts.size() > 1;
  };
  while (all_have([&](const auto& v) {
    return prefix + suffix + 1 < v.size() && v[prefix] == parts[0][prefix];
  }))
    ++prefix;
  while (all_have([&](const auto& v) {
    return prefix + suffix + 1 < v.size() &&
           v[v.size() - 1 - suffix] == parts[0][parts[0].size() - 1 - suffix];
  })) {
    ++suffix;
  }
  std::vector<std::string> labels;
  for (const auto& v : parts) {
    std::vector<std::string> mid(v.begin() + std::min(prefix, v.size()),
                                 v.end() - std::min(suffix, v.size()));
    labels.push_back(mid.empty() ? absl::StrJoin(v, "/") : absl::StrJoin(mid, "/"));
  }
  return labels;
}

}  // namespace

std::string RenderMatrixText(const Matrix& m, bool color) {
  std::string out;
  size_t w0 = 6;
  for (const std::string& mod : m.modules) w0 = std::max(w0, Short(mod).size());
  const std::vector<std::string> labels = BuildLabels(m.builds);
  std::vector<size_t> widths;
  for (const std::string& l : labels) widths.push_back(std::max<size_t>(12, l.size()));
  absl::StrAppend(&out, absl::StrFormat("%-*s", w0, "module"));
  for (size_t b = 0; b < m.builds.size(); ++b)
    absl::StrAppend(&out, "  ", absl::StrFormat("%-*s", widths[b], Printable(labels[b])));
  out.push_back('\n');
  for (size_t i = 0; i < m.modules.size(); ++i) {
    absl::StrAppend(&out, absl::StrFormat("%-*s", w0, Printable(Short(m.modules[i]))));
    for (size_t b = 0; b < m.builds.size(); ++b) {
      const Report& r = m.cells[i * m.builds.size() + b].report;
      std::string v = absl::StrFormat("%-*s", widths[b], CellVerdict(r));
      if (color) v = absl::StrCat(r.loads ? "\x1b[32m" : "\x1b[31m", v, "\x1b[0m");
      absl::StrAppend(&out, "  ", v);
    }
    out.push_back('\n');
  }
  std::vector<std::string> working;
  for (size_t b = 0; b < m.builds.size(); ++b) {
    bool all = true;
    for (size_t i = 0; i < m.modules.size(); ++i)
      all = all && m.cells[i * m.builds.size() + b].report.loads;
    if (all) working.push_back(labels[b]);
  }
  absl::StrAppend(&out, "\nbuilds every module loads against: ",
                  working.empty() ? "none" : absl::StrJoin(working, ", "), "\n");
  for (const MatrixCell& c : m.cells) {
    if (c.report.loads) continue;
    absl::StrAppend(&out, "\n== ", Printable(Short(c.module)), " against ", Printable(c.build),
                    "\n", RenderText(c.report, color));
  }
  return out;
}

std::string RenderMatrixJson(const Matrix& m) {
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["tool"] = {{"name", "abicheck"}, {"version", "0.1.0"}};
  j["modules"] = m.modules;
  j["builds"] = m.builds;
  nlohmann::ordered_json cells = nlohmann::ordered_json::array();
  for (const MatrixCell& c : m.cells) {
    nlohmann::ordered_json cj;
    cj["module"] = c.module;
    cj["build"] = c.build;
    cj["loads"] = c.report.loads;
    cj["report"] = ReportJson(c.report);
    cells.push_back(std::move(cj));
  }
  j["cells"] = std::move(cells);
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  for (const Warning& w : m.notes) notes.push_back({{"input", w.object}, {"message", w.message}});
  j["notes"] = std::move(notes);
  return DumpJson(j);
}

}  // namespace abicheck
