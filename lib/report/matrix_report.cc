// Module × build matrices: a verdict table on top, each failing cell's report below (text), or
// one JSON document whose cells keep the single-module report's schema.
#include <algorithm>
#include <string>

#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/report/json_report.h"
#include "lib/report/render.h"
#include "lib/report/text_util.h"
#include "lib/results/results.h"

namespace abicheck {
namespace {

std::string Short(const std::string& name) {
  // "dist/x.whl!torchvision/_C.so" -> "torchvision/_C.so"; "/a/b/_C.so" -> "_C.so"
  size_t bang = name.rfind('!');
  if (bang != std::string::npos) return name.substr(bang + 1);
  size_t slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

// "https://host/p/x.whl!m/_C.so" -> "x.whl!m/_C.so": a URL's file name says which wheel; any
// other name is left as it is.
std::string WithoutUrlPath(const std::string& name) {
  const size_t bang = name.find('!');
  const absl::string_view archive = absl::string_view(name).substr(0, bang);
  const size_t scheme = archive.find("://");
  if (bang == std::string::npos || scheme == absl::string_view::npos) return name;
  const size_t slash = archive.rfind('/');
  return slash < scheme + 3 ? name : name.substr(slash + 1);
}

std::string CellVerdict(const Report& r) {
  if (r.ok()) return "loads";
  if (r.verdict() == Verdict::kNotInstalled) return "not installed";                   // E11
  if (r.verdict() == Verdict::kUnknown) return UnknownVerdictText(r.unknown_because);  // C2c
  if (r.loads) {  // it loads; its device code cannot run (docs/gpu-model.md G5-G7)
    switch (r.problems.front().kind) {
      case ProblemKind::kNoKernelImage:
        return absl::StrCat("NO ", r.device.gpu, " CODE");
      case ProblemKind::kUnsupportedPtx:
        return "PTX > DRIVER";
      default:
        return "DRIVER TOO OLD";
    }
  }
  int n = static_cast<int>(r.problems.size());
  return absl::StrFormat("FAILS (%d)", n);
}

}  // namespace

// Column labels: what tells the builds apart. Wheels by file name (without .whl); paths without
// the leading and trailing components they all share ("sid/libtorch2.14" for
// "sid/libtorch2.14/usr/lib/x86_64-linux-gnu" beside "trixie/libtorch2.6/usr/lib/...").
namespace {

// A URL as a report shows it: a wheel by its file name, with the member after it
// ("x.whl!torch/lib/libc10.so"); another URL by its last component; "" when it has none.
std::string UrlShown(absl::string_view url) {
  if (const size_t whl = url.find(".whl"); whl != absl::string_view::npos) {
    const size_t slash = url.rfind('/', whl);
    std::string shown(url.substr(slash + 1, whl + 4 - slash - 1));
    absl::string_view rest = url.substr(whl + 4);
    if (!rest.empty() && (rest.front() == '#' || rest.front() == '?')) return shown;
    if (absl::ConsumePrefix(&rest, "/")) absl::StrAppend(&shown, "!");
    return absl::StrCat(shown, rest);
  }
  url = url.substr(0, std::min(url.find('#'), url.find('?')));
  const size_t slash = url.rfind('/');
  const size_t host = url.find(":/");
  if (slash == absl::string_view::npos || host == absl::string_view::npos || slash <= host + 2 ||
      slash + 1 == url.size())
    return "";
  return std::string(url.substr(slash + 1));
}

}  // namespace

std::string ShortenUrls(absl::string_view text) {
  if (!absl::StrContains(text, ":/")) return std::string(text);
  std::string out;
  size_t i = 0;
  // "scheme://" — or "scheme:/", a URL a path normalization took a slash from.
  for (size_t scheme = text.find(":/"); scheme != absl::string_view::npos;
       scheme = text.find(":/", i)) {
    size_t begin = scheme;  // back over the scheme's letters
    while (begin > i && absl::ascii_isalpha(static_cast<unsigned char>(text[begin - 1]))) --begin;
    const absl::string_view name = text.substr(begin, scheme - begin);
    if (name != "http" && name != "https" && name != "file") {
      absl::StrAppend(&out, text.substr(i, scheme + 2 - i));
      i = scheme + 2;
      continue;
    }
    size_t end = scheme + 2;
    while (end < text.size() && !absl::StrContains(" \t\n\"'),", text[end]) &&
           !(text[end] == ':' && end + 1 < text.size() && text[end + 1] == ' '))
      ++end;
    const std::string shown = begin < scheme ? UrlShown(text.substr(begin, end - begin)) : "";
    if (shown.empty()) {
      absl::StrAppend(&out, text.substr(i, end - i));
      i = end;
      continue;
    }
    // "/cwd/https://…": a URL joined to a directory as if it were a path is the URL.
    size_t from = begin;
    const size_t word = text.find_last_of(" \t\n(", begin);
    const size_t start = word == absl::string_view::npos ? 0 : word + 1;
    if (start >= i && start < begin && text[start] == '/') from = start;
    absl::StrAppend(&out, text.substr(i, from - i), shown);
    i = end;
  }
  absl::StrAppend(&out, text.substr(i));
  return out;
}

std::string SitePackagesOf(const Report& r) {
  for (const LoadedLibrary& l : r.libraries) {
    if (absl::StrContains(l.path, ".whl!"))
      continue;  // a wheel's: where it is installed is not known
    if (const size_t at = l.path.find("/site-packages/"); at != std::string::npos)
      return l.path.substr(0, at + 14);
  }
  return "site-packages";
}

std::string AsInstalled(absl::string_view text, absl::string_view site) {
  std::string out;
  size_t i = 0;
  for (size_t bang = text.find(".whl!"); bang != absl::string_view::npos;
       bang = text.find(".whl!", i)) {
    // Back to the start of the wheel's path: a space, a quote or the text's start.
    size_t start = bang;
    while (start > i && !absl::StrContains(" \t\n\"'(", text[start - 1])) --start;
    absl::StrAppend(&out, text.substr(i, start - i), site, "/");
    i = bang + 5;
  }
  absl::StrAppend(&out, text.substr(i));
  return out;
}

namespace {

// `line` broken at spaces into lines of at most 120 columns, the later ones indented: a note of a
// build's 27 pinned wheels reads on a terminal. A word longer than that (a URL) stays whole.
std::string Wrapped(const std::string& line) {
  constexpr size_t kColumns = 120;
  std::string out;
  size_t column = 0;
  for (absl::string_view word : absl::StrSplit(line, ' ')) {
    if (column > 0 && column + 1 + word.size() > kColumns) {
      absl::StrAppend(&out, "\n     ");
      column = 5;
    } else if (column > 0) {
      out.push_back(' ');
      ++column;
    }
    absl::StrAppend(&out, word);
    column += word.size();
  }
  return absl::StrCat(out, "\n");
}

}  // namespace

std::string NoteLine(const Warning& note, bool with_object, std::vector<std::string>* urls_said) {
  const bool url = absl::StrContains(note.object, "://");
  if (url && std::find(urls_said->begin(), urls_said->end(), note.object) == urls_said->end()) {
    urls_said->push_back(note.object);  // the URL in full, once, on a line of its own
    return absl::StrCat(
        Wrapped(absl::StrCat("note: ", Shown(note.object), ": ", Shown(note.message))), "     ",
        Printable(note.object), "\n");
  }
  if (!with_object) return Wrapped(absl::StrCat("note: ", Shown(note.message)));
  return Wrapped(absl::StrCat("note: ", Shown(note.object), ": ", Shown(note.message)));
}

std::vector<std::string> BuildLabels(const std::vector<std::string>& builds) {
  std::vector<std::vector<std::string>> parts;
  for (const std::string& b : builds) {
    // A URL by its file name: split at '/', "https://host" read "https:/host" (issue 55 item 8).
    std::string p = ShortenUrls(b);
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
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& v = parts[i];
    std::vector<std::string> mid(v.begin() + static_cast<ptrdiff_t>(std::min(prefix, v.size())),
                                 v.end() - static_cast<ptrdiff_t>(std::min(suffix, v.size())));
    std::string label = mid.empty() ? absl::StrJoin(v, "/") : absl::StrJoin(mid, "/");
    // Nothing shared was cut from the front: an absolute path keeps its leading '/'.
    if ((prefix == 0 || mid.empty()) && absl::StartsWith(builds[i], "/"))
      label = absl::StrCat("/", label);
    labels.push_back(std::move(label));
  }
  return labels;
}

std::vector<std::string> BuildLabels(const Matrix& m) {
  std::vector<std::string> labels = BuildLabels(m.builds);
  if (m.build_versions.size() != m.builds.size()) return labels;
  absl::flat_hash_map<std::string, int> uses;
  for (const std::string& v : m.build_versions) ++uses[v];
  for (size_t b = 0; b < labels.size(); ++b) {
    const std::string& v = m.build_versions[b];
    if (v.empty()) continue;
    // Two builds of one version (a wheel and the venv it was installed in) keep their files.
    labels[b] =
        uses[v] == 1 ? absl::StrCat("torch ", v) : absl::StrCat("torch ", v, " (", labels[b], ")");
  }
  return labels;
}

std::vector<std::string> ModuleRowLabels(const Matrix& m) {
  std::vector<std::string> labels(m.modules.size());
  absl::flat_hash_map<std::string, int> uses;
  for (size_t k = 0; k < m.modules.size(); ++k) {
    labels[k] = k < m.module_info.size() && !m.module_info[k].label.empty() ? m.module_info[k].label
                                                                            : Short(m.modules[k]);
    ++uses[labels[k]];
  }
  // Two rows that would read alike (the same module of two wheels) are named with their wheel:
  // by its file name when that tells them apart (the releases of a pip: module, whose URLs run
  // to 200 characters), else in full.
  absl::flat_hash_map<std::string, int> again;
  for (size_t k = 0; k < m.modules.size(); ++k) {
    if (uses[labels[k]] > 1) ++again[labels[k] = WithoutUrlPath(m.modules[k])];
  }
  for (size_t k = 0; k < m.modules.size(); ++k) {
    if (again.contains(labels[k]) && again[labels[k]] > 1) labels[k] = m.modules[k];
  }
  return labels;
}

std::string StableAbiLines(const Matrix& m) {
  std::string out;
  const std::vector<std::string> labels = BuildLabels(m);
  const std::vector<std::string> rows = ModuleRowLabels(m);
  auto since_of = [&](const ModuleInfo& info) {
    if (m.builds.size() <= 1) return std::string();
    for (size_t b = 0; b < m.builds.size(); ++b) {
      if (m.builds[b] == info.stable_since)
        // What the shim offers, not a verdict: the table's cell says whether it loads (CUDA,
        // other libraries), issue 36.
        return absl::StrCat(" (its shim functions: from ", labels[b], " on, of the builds given)");
    }
    return std::string("; no build given exports every shim function it uses");
  };
  // A package's stable modules that load from the same build are one line when they are many
  // (torchcodec's fourteen).
  constexpr size_t kOneLineFrom = 3;
  const size_t n = std::min(m.module_info.size(), rows.size());
  for (size_t i = 0; i < n;) {
    const ModuleInfo& info = m.module_info[i];
    if (info.torch_abi != TorchAbi::kStable) {
      ++i;
      continue;
    }
    const std::string since = since_of(info);
    std::vector<std::string> group = {rows[i]};
    size_t j = i + 1;
    for (; !info.package.empty() && j < n; ++j) {
      const ModuleInfo& next = m.module_info[j];
      if (next.torch_abi != TorchAbi::kStable) continue;
      if (next.package != info.package || since_of(next) != since) break;
      group.push_back(rows[j]);
    }
    if (group.size() < kOneLineFrom) {
      for (const std::string& row : group) {
        absl::StrAppend(&out, "stable ABI: ", Printable(row),
                        " uses torch only through its stable C shim", since, "\n");
      }
    } else {
      std::vector<std::string> examples;
      for (size_t k = 0; k < 3; ++k) examples.push_back(Shown(Short(group[k])));
      absl::StrAppend(&out, "stable ABI: ", group.size(), " modules of ", Shown(info.package), " (",
                      absl::StrJoin(examples, ", "), group.size() > 3 ? ", ..." : "",
                      ") use torch only through its stable C shim", since, "\n");
    }
    i = j;
  }
  return out;
}

std::string Paint(bool color, Verdict verdict, const std::string& s) {
  if (!color) return s;
  if (verdict == Verdict::kNotInstalled) return s;  // neither a pass nor a failure
  const char* hue = verdict == Verdict::kLoads     ? "\x1b[32m"
                    : verdict == Verdict::kUnknown ? "\x1b[33m"
                                                   : "\x1b[31m";
  return absl::StrCat(hue, s, "\x1b[0m");
}

std::string UnknownVerdictText(const std::vector<std::string>& not_given) {
  if (not_given.empty()) return "CANNOT TELL";
  return absl::StrCat(
      "CANNOT TELL (", Shown(not_given.front()),
      not_given.size() > 1 ? absl::StrCat(" and ", not_given.size() - 1, " more") : "",
      " not given)");
}

std::string PinText(const std::vector<std::string>& pins) {
  return pins.empty() ? "pins no torch" : absl::StrJoin(pins, ", ");
}

std::vector<std::string> SharedWarnings(const std::vector<const Report*>& reports) {
  std::vector<std::string> shared;
  if (reports.empty()) return shared;
  for (const Warning& w : reports.front()->warnings) {
    if (w.kind != WarningKind::kNote) continue;
    const bool everywhere = std::all_of(reports.begin() + 1, reports.end(), [&](const Report* r) {
      return std::any_of(r->warnings.begin(), r->warnings.end(), [&](const Warning& x) {
        return x.kind == WarningKind::kNote && x.message == w.message;
      });
    });
    if (everywhere && std::find(shared.begin(), shared.end(), w.message) == shared.end())
      shared.push_back(w.message);
  }
  return shared;
}

std::string FailingLines(const Matrix& m, const std::vector<std::string>& labels) {
  std::string out;
  const std::vector<std::string> rows = ModuleRowLabels(m);
  const size_t nb = m.builds.size();
  for (size_t i = 0; nb > 0 && i < m.cells.size(); ++i) {
    const Report& r = m.cells[i].report;
    if (NothingInTheWay(r)) continue;
    std::string why;
    for (const Problem& p : r.problems) {
      if (why.empty() || p.first) {
        why = p.message;
        if (!p.demangled.empty() && p.demangled != p.symbol)
          absl::StrAppend(&why, " (", p.demangled, ")");
      }
      if (p.first) break;
    }
    if (why.empty() && !r.unknown_because.empty())
      why = absl::StrCat("cannot tell: ", absl::StrJoin(r.unknown_because, ", "), " not given");
    const size_t row = i / nb;
    absl::StrAppend(&out, "  ", Printable(row < rows.size() ? rows[row] : m.cells[i].module),
                    " with ", Printable(labels[i % nb]), ": ", CellVerdict(r), ": ", Shown(why),
                    "\n");
  }
  return out;
}

namespace {

// The table: a row per module, a column per build, each cell its verdict.
void AppendTable(const Matrix& m, const std::vector<std::string>& rows,
                 const std::vector<std::string>& labels, bool color, std::string* out_ptr) {
  std::string& out = *out_ptr;
  size_t w0 = 6;
  for (const std::string& r : rows) w0 = std::max(w0, r.size());
  std::vector<size_t> widths;
  widths.reserve(labels.size());
  for (const std::string& l : labels) widths.push_back(std::max<size_t>(12, l.size()));
  absl::StrAppend(&out, absl::StrFormat("%-*s", w0, "module"));
  for (size_t b = 0; b < m.builds.size(); ++b)
    absl::StrAppend(&out, "  ", absl::StrFormat("%-*s", widths[b], Printable(labels[b])));
  out.push_back('\n');
  for (size_t i = 0; i < m.modules.size(); ++i) {
    absl::StrAppend(&out, absl::StrFormat("%-*s", w0, Printable(rows[i])));
    for (size_t b = 0; b < m.builds.size(); ++b) {
      const Report& r = m.cells[i * m.builds.size() + b].report;
      absl::StrAppend(
          &out, "  ",
          Paint(color, r.verdict(), absl::StrFormat("%-*s", widths[b], CellVerdict(r))));
    }
    out.push_back('\n');
  }
}

}  // namespace

std::string RenderMatrixText(const Matrix& m, bool color, bool all, bool summary) {
  std::string out;
  const std::vector<std::string> rows = ModuleRowLabels(m);
  const std::vector<std::string> labels = BuildLabels(m);
  AppendTable(m, rows, labels, color, &out);
  std::vector<std::string> working;
  for (size_t b = 0; b < m.builds.size(); ++b) {
    bool every_module_ok = true;
    for (size_t i = 0; i < m.modules.size(); ++i)
      every_module_ok = every_module_ok && NothingInTheWay(m.cells[i * m.builds.size() + b].report);
    if (every_module_ok) working.push_back(labels[b]);
  }
  const bool device = !m.cells.empty() && m.cells.front().report.device.checked;
  absl::StrAppend(&out, "\nbuilds every module loads ", device ? "and runs " : "",
                  "against: ", working.empty() ? "none" : absl::StrJoin(working, ", "), "\n");
  if (m.has_recommendation)
    absl::StrAppend(&out, "recommendation: ", m.recommendation.summary, "\n");
  // What the inputs held that was skipped or changed (a duplicate input, unverified CRCs, ...).
  std::vector<std::string> urls_said;
  for (const Warning& n : m.notes) absl::StrAppend(&out, NoteLine(n, true, &urls_said));
  absl::StrAppend(&out, StableAbiLines(m));
  // What each package says it was built for, once per package.
  std::vector<std::string> seen;
  for (const ModuleInfo& info : m.module_info) {
    if (info.package.empty()) continue;
    const std::string key = absl::StrCat(info.package, " ", info.version);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    absl::StrAppend(&out, "package ", Shown(key), ": ", Shown(PinText(info.torch_requirements)),
                    "\n");
  }
  if (summary) {
    const std::string failing = FailingLines(m, labels);
    if (!failing.empty()) absl::StrAppend(&out, "\n", kFailingHeading, failing);
    return out;
  }
  // A warning every failing module's report has against a build (what the build's own libraries
  // miss) is said once, not in each.
  const size_t nb = m.builds.size();
  std::vector<std::vector<std::string>> said(nb);
  for (size_t b = 0; b < nb; ++b) {
    std::vector<const Report*> failing;
    for (size_t i = b; i < m.cells.size(); i += nb) {
      if (!NothingInTheWay(m.cells[i].report)) failing.push_back(&m.cells[i].report);
    }
    if (failing.size() < 2) continue;
    said[b] = SharedWarnings(failing);
    for (const std::string& w : said[b]) {
      absl::StrAppend(&out, "warning, for every failing module against ", Printable(labels[b]),
                      ": ", Shown(w), "\n");
    }
  }
  static const std::vector<std::string> kNone;
  for (size_t i = 0; i < m.cells.size(); ++i) {
    const MatrixCell& c = m.cells[i];
    if (NothingInTheWay(c.report)) continue;
    // A Matrix a caller made may hold cells without builds.
    const std::vector<std::string>& shown = nb == 0 ? kNone : said[i % nb];
    // Named as the table names its row and column (a URL build as "torch 2.10.0+cu128").
    const bool in_table = nb > 0 && i / nb < rows.size() && rows.size() == m.modules.size();
    absl::StrAppend(&out, "\n== ", Shown(in_table ? rows[i / nb] : Short(c.module)), " against ",
                    Shown(in_table ? labels[i % nb] : c.build), "\n",
                    RenderText(c.report, color, all, shown));
  }
  return out;
}

nlohmann::ordered_json MatrixJson(const Matrix& m) {
  nlohmann::ordered_json j;
  j["schema_version"] = kJsonSchemaVersion;
  j["tool"] = {{"name", "abicheck"}, {"version", Version()}};
  j["modules"] = m.modules;
  nlohmann::ordered_json info = nlohmann::ordered_json::array();
  for (const ModuleInfo& i : m.module_info) {
    info.push_back({{"label", i.label},
                    {"package", i.package},
                    {"version", i.version},
                    {"torch_requirements", i.torch_requirements},
                    {"extension_module", i.extension_module},
                    {"torch_abi", TorchAbiName(i.torch_abi)},
                    {"stable_since", i.stable_since}});
  }
  j["module_info"] = std::move(info);
  j["builds"] = m.builds;
  j["build_versions"] = m.build_versions;
  nlohmann::ordered_json cells = nlohmann::ordered_json::array();
  for (const MatrixCell& c : m.cells) {
    nlohmann::ordered_json cj;
    cj["module"] = c.module;
    cj["build"] = c.build;
    cj["verdict"] = VerdictName(c.report.verdict());
    cj["loads"] = c.report.loads;
    cj["report"] = ReportJson(c.report);
    cells.push_back(std::move(cj));
  }
  j["cells"] = std::move(cells);
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  for (const Warning& w : m.notes) notes.push_back({{"input", w.object}, {"message", w.message}});
  j["notes"] = std::move(notes);
  if (m.has_recommendation) {
    const Recommendation& r = m.recommendation;
    j["recommendation"] = {{"build", r.build},
                           {"label", r.label},
                           {"requirement", r.requirement},
                           {"every_module_loads", r.every_module_loads},
                           {"failing_modules", r.failing_modules},
                           {"unknown_modules", r.unknown_modules},
                           {"still_failing", r.still_failing},
                           {"fail_with_every_build", r.fail_with_every_build},
                           {"summary", r.summary},
                           {"installed", r.installed},
                           {"install_command", r.install_command}};
  }
  return j;
}

std::string RenderMatrixJson(const Matrix& m) { return DumpJson(MatrixJson(m)); }

}  // namespace abicheck
