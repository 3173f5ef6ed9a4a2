// JUnit XML: a test suite per build, a test case per module; a module that will not load is a
// failure whose message is ld.so's first error and whose body is the text report.
#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/report/render.h"

namespace abicheck {
namespace {

std::string Xml(absl::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 has no control characters but tab, newline and carriage return.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          absl::StrAppendFormat(&out, "\\x%02x", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out;
}

}  // namespace

std::string RenderJunit(const Matrix& m) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // A failing cell is a <failure>; an unknown one (C2c) an <error>: neither passes.
  int total = 0, failures = 0, errors = 0;
  for (const MatrixCell& c : m.cells) {
    ++total;
    failures += c.report.verdict() == Verdict::kFails ? 1 : 0;
    errors += c.report.verdict() == Verdict::kUnknown ? 1 : 0;
  }
  absl::StrAppendFormat(
      &out, "<testsuites name=\"abicheck\" tests=\"%d\" failures=\"%d\" errors=\"%d\">\n", total,
      failures, errors);
  for (size_t b = 0; b < m.builds.size(); ++b) {
    int suite_failures = 0, suite_errors = 0;
    for (size_t i = 0; i < m.modules.size(); ++i) {
      const Verdict v = m.cells[i * m.builds.size() + b].report.verdict();
      suite_failures += v == Verdict::kFails ? 1 : 0;
      suite_errors += v == Verdict::kUnknown ? 1 : 0;
    }
    absl::StrAppendFormat(&out,
                          "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\">\n",
                          Xml(m.builds[b]), m.modules.size(), suite_failures, suite_errors);
    for (size_t i = 0; i < m.modules.size(); ++i) {
      const Report& r = m.cells[i * m.builds.size() + b].report;
      absl::StrAppendFormat(&out, "    <testcase classname=\"%s\" name=\"%s\"", Xml(m.builds[b]),
                            Xml(m.modules[i]));
      if (r.ok()) {
        out += "/>\n";
        continue;
      }
      if (r.verdict() == Verdict::kUnknown) {
        const std::string why =
            absl::StrCat("cannot tell: ", absl::StrJoin(r.unknown_because, ", "), " not given");
        absl::StrAppendFormat(
            &out, ">\n      <error type=\"unknown\" message=\"%s\">%s</error>\n    </testcase>\n",
            Xml(why), Xml(RenderText(r, false)));
        continue;
      }
      // dlopen's first error, or (it loads) the first CUDA error after loading.
      std::string first = r.problems.empty() ? "" : r.problems.front().message;
      for (const Problem& p : r.problems) {
        if (p.first) first = p.message;
      }
      absl::StrAppendFormat(
          &out, ">\n      <failure type=\"%s\" message=\"%s\">%s</failure>\n    </testcase>\n",
          r.loads ? "will_not_run" : "will_not_load", Xml(first), Xml(RenderText(r, false)));
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

std::string RenderJunitError(const std::string& message) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  absl::StrAppend(&out, "<testsuites name=\"abicheck\" tests=\"1\" failures=\"0\" errors=\"1\">\n",
                  "  <testsuite name=\"abicheck\" tests=\"1\" failures=\"0\" errors=\"1\">\n",
                  "    <testcase classname=\"abicheck\" name=\"input\">\n",
                  "      <error message=\"", Xml(message), "\">", Xml(message), "</error>\n",
                  "    </testcase>\n  </testsuite>\n</testsuites>\n");
  return out;
}

}  // namespace abicheck
