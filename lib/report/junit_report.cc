// JUnit XML: a test suite per build, a test case per module; a module that will not load is a
// failure whose message is ld.so's first error and whose body is the text report.
#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/report/render.h"

namespace abicheck {
namespace {

// The length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629: no overlong forms,
// no surrogates, nothing past U+10FFFF), 0 when there is none.
size_t Utf8Length(absl::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (s.size() < n || b(1) < lo || b(1) > hi) return 0;
  for (size_t i = 2; i < n; ++i) {
    if (b(i) < 0x80 || b(i) > 0xbf) return 0;
  }
  return n;
}

// Text as XML 1.0 character data or an attribute value: markup escaped, and what XML cannot hold
// — control characters but tab, newline and carriage return, bytes that are not UTF-8 (a module
// name is bytes, issue 37 item 12) — written as \xNN.
std::string Xml(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&':
        out += "&amp;";
        continue;
      case '<':
        out += "&lt;";
        continue;
      case '>':
        out += "&gt;";
        continue;
      case '"':
        out += "&quot;";
        continue;
      case '\'':
        out += "&apos;";
        continue;
      default:
        break;
    }
    if (c >= 0x80) {
      const size_t n = Utf8Length(s.substr(i));
      if (n == 0) {
        absl::StrAppendFormat(&out, "\\x%02x", c);
      } else {
        out.append(s.data() + i, n);
        i += n - 1;
      }
    } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    } else {
      out.push_back(static_cast<char>(c));
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
      if (r.verdict() == Verdict::kNotInstalled) {  // E11: no file there with this build
        out += ">\n      <skipped message=\"not installed with this build\"/>\n    </testcase>\n";
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
