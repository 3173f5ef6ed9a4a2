// PEP 508 requirements and markers, PEP 440 versions, PEP 427 wheel names (requirements.h).
#include "lib/inputs/requirements.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/inputs/python_env.h"

namespace abicheck {
namespace {

bool IsNameChar(char c) { return absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.'; }

// ---- PEP 440 -----------------------------------------------------------------------------------

struct Pep440 {
  int64_t epoch = 0;
  std::vector<int64_t> release;
  // (phase, number): pre-releases a < b < rc; none sorts after them, a dev-only release before.
  std::pair<int, int64_t> pre{3, 0};
  int64_t post = -1;  // none sorts first
  int64_t dev = INT64_MAX;
  std::vector<std::string> local;
};

// Consumes an optional separator, then `words`, then an optional separator and number.
bool ConsumeTagged(absl::string_view* s, std::initializer_list<absl::string_view> words,
                   int64_t* number) {
  absl::string_view t = *s;
  if (!t.empty() && (t[0] == '.' || t[0] == '-' || t[0] == '_')) t.remove_prefix(1);
  for (absl::string_view w : words) {
    if (!absl::StartsWith(t, w)) continue;
    t.remove_prefix(w.size());
    if (!t.empty() && (t[0] == '.' || t[0] == '-' || t[0] == '_') && t.size() > 1 &&
        absl::ascii_isdigit(t[1]))
      t.remove_prefix(1);
    size_t n = 0;
    while (n < t.size() && absl::ascii_isdigit(t[n])) ++n;
    *number = 0;
    if (n > 0 && (n > 18 || !absl::SimpleAtoi(t.substr(0, n), number))) return false;
    t.remove_prefix(n);
    *s = t;
    return true;
  }
  return false;
}

std::optional<Pep440> ParseVersion(absl::string_view text) {
  std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  absl::string_view s = lower;
  absl::ConsumePrefix(&s, "v");
  Pep440 v;
  auto number = [&](int64_t* out) {
    size_t n = 0;
    while (n < s.size() && absl::ascii_isdigit(s[n])) ++n;
    if (n == 0 || n > 18 || !absl::SimpleAtoi(s.substr(0, n), out)) return false;
    s.remove_prefix(n);
    return true;
  };
  int64_t first = 0;
  if (!number(&first)) return std::nullopt;
  if (absl::ConsumePrefix(&s, "!")) {
    v.epoch = first;
    if (!number(&first)) return std::nullopt;
  }
  v.release.push_back(first);
  while (s.size() > 1 && s[0] == '.' && absl::ascii_isdigit(s[1])) {
    s.remove_prefix(1);
    int64_t part = 0;
    if (!number(&part)) return std::nullopt;
    v.release.push_back(part);
  }
  int64_t n = 0;
  if (ConsumeTagged(&s, {"alpha", "a"}, &n)) {
    v.pre = {0, n};
  } else if (ConsumeTagged(&s, {"beta", "b"}, &n)) {
    v.pre = {1, n};
  } else if (ConsumeTagged(&s, {"rc", "c", "preview", "pre"}, &n)) {
    v.pre = {2, n};
  }
  if (ConsumeTagged(&s, {"post", "rev", "r"}, &n)) {
    v.post = n;
  } else if (s.size() > 1 && s[0] == '-' && absl::ascii_isdigit(s[1])) {
    s.remove_prefix(1);
    if (!number(&v.post)) return std::nullopt;
  }
  if (ConsumeTagged(&s, {"dev"}, &n)) {
    v.dev = n;
    if (v.pre.first == 3 && v.post < 0) v.pre = {-1, 0};  // 1.0.dev1 < 1.0a1
  }
  if (absl::ConsumePrefix(&s, "+")) {
    if (s.empty()) return std::nullopt;
    for (absl::string_view part : absl::StrSplit(s, absl::ByAnyChar(".-_"))) {
      if (part.empty()) return std::nullopt;
      for (char c : part) {
        if (!absl::ascii_isalnum(c)) return std::nullopt;
      }
      v.local.emplace_back(part);
    }
    s = {};
  }
  if (!s.empty()) return std::nullopt;
  return v;
}

int CompareRelease(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const int64_t x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

int CompareLocal(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    int64_t x = 0, y = 0;
    const bool nx = absl::SimpleAtoi(a[i], &x), ny = absl::SimpleAtoi(b[i], &y);
    if (nx && ny && x != y) return x < y ? -1 : 1;
    if (nx != ny) return nx ? 1 : -1;  // a number sorts after a word
    if (!nx && a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

int Compare(const Pep440& a, const Pep440& b, bool with_local = true) {
  if (a.epoch != b.epoch) return a.epoch < b.epoch ? -1 : 1;
  if (int c = CompareRelease(a.release, b.release); c != 0) return c;
  if (a.pre != b.pre) return a.pre < b.pre ? -1 : 1;
  if (a.post != b.post) return a.post < b.post ? -1 : 1;
  if (a.dev != b.dev) return a.dev < b.dev ? -1 : 1;
  return with_local ? CompareLocal(a.local, b.local) : 0;
}

// A specifier clause as its operator and the version after it, whitespace stripped; the operator
// is "" when the clause starts with none.
std::pair<absl::string_view, absl::string_view> SplitClause(absl::string_view clause) {
  clause = absl::StripAsciiWhitespace(clause);
  static constexpr absl::string_view kOps[] = {"===", "~=", "==", "!=", "<=", ">=", "<", ">"};
  for (absl::string_view o : kOps) {
    if (absl::StartsWith(clause, o))
      return {o, absl::StripAsciiWhitespace(clause.substr(o.size()))};
  }
  return {"", clause};
}

absl::StatusOr<bool> ClauseHolds(const Pep440& v, absl::string_view clause) {
  auto [op, rest] = SplitClause(clause);
  if (op.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no operator in '", absl::StripAsciiWhitespace(clause), "'"));
  }
  if (op == "===") return false;  // arbitrary equality: never met by a parsed version here
  const bool wildcard = (op == "==" || op == "!=") && absl::ConsumeSuffix(&rest, ".*");
  std::optional<Pep440> want = ParseVersion(rest);
  if (!want) return absl::InvalidArgumentError(absl::StrCat("'", rest, "' is not a version"));
  if (wildcard) {
    bool prefix = v.epoch == want->epoch;
    for (size_t i = 0; prefix && i < want->release.size(); ++i)
      prefix = (i < v.release.size() ? v.release[i] : 0) == want->release[i];
    return op == "==" ? prefix : !prefix;
  }
  // Without a local label in the specifier, the candidate's is ignored (PEP 440).
  const int c = Compare(v, *want, !want->local.empty());
  if (op == "==") return c == 0;
  if (op == "!=") return c != 0;
  if (op == "<=") return c <= 0;
  if (op == ">=") return c >= 0;
  if (op == "<") return c < 0;
  if (op == ">") return c > 0;
  // ~=X.Y.Z: >= X.Y.Z and == X.Y.*
  if (want->release.size() < 2)
    return absl::InvalidArgumentError(absl::StrCat("'~=", rest, "' needs two release numbers"));
  bool prefix = v.epoch == want->epoch;
  for (size_t i = 0; prefix && i + 1 < want->release.size(); ++i)
    prefix = (i < v.release.size() ? v.release[i] : 0) == want->release[i];
  return c >= 0 && prefix;
}

// ---- PEP 508 markers ---------------------------------------------------------------------------

class MarkerParser {
 public:
  MarkerParser(absl::string_view text, const MarkerEnvironment& env) : s_(text), env_(env) {}

  absl::StatusOr<bool> Parse() {
    absl::StatusOr<bool> v = Or();
    if (!v.ok()) return v;
    Skip();
    if (!s_.empty()) return Error(absl::StrCat("unexpected '", s_, "'"));
    return v;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("environment marker: ", what));
  }
  void Skip() { s_ = absl::StripLeadingAsciiWhitespace(s_); }
  bool Keyword(absl::string_view w) {
    Skip();
    if (!absl::StartsWith(s_, w)) return false;
    if (s_.size() > w.size() && (absl::ascii_isalnum(s_[w.size()]) || s_[w.size()] == '_'))
      return false;
    s_.remove_prefix(w.size());
    return true;
  }

  absl::StatusOr<bool> Or() {
    absl::StatusOr<bool> v = And();
    while (v.ok() && Keyword("or")) {
      absl::StatusOr<bool> w = And();
      if (!w.ok()) return w;
      v = *v || *w;
    }
    return v;
  }
  absl::StatusOr<bool> And() {
    absl::StatusOr<bool> v = Atom();
    while (v.ok() && Keyword("and")) {
      absl::StatusOr<bool> w = Atom();
      if (!w.ok()) return w;
      v = *v && *w;
    }
    return v;
  }
  absl::StatusOr<bool> Atom() {
    Skip();
    if (absl::ConsumePrefix(&s_, "(")) {
      if (++depth_ > 64) return Error("nested too deeply");
      absl::StatusOr<bool> v = Or();
      --depth_;
      Skip();
      if (!v.ok()) return v;
      if (!absl::ConsumePrefix(&s_, ")")) return Error("a '(' is not closed");
      return v;
    }
    std::string left_var, right_var;
    absl::StatusOr<std::string> left = Value(&left_var);
    if (!left.ok()) return left.status();
    Skip();
    std::string op;
    for (absl::string_view o : {"===", "~=", "==", "!=", "<=", ">=", "<", ">"}) {
      if (absl::ConsumePrefix(&s_, o)) {
        op = std::string(o);
        break;
      }
    }
    if (op.empty()) {
      if (Keyword("in")) {
        op = "in";
      } else if (Keyword("not")) {
        if (!Keyword("in")) return Error("'not' without 'in'");
        op = "not in";
      } else {
        return Error(absl::StrCat("no comparison after '", *left, "'"));
      }
    }
    absl::StatusOr<std::string> right = Value(&right_var);
    if (!right.ok()) return right.status();
    return Compare(*left, op, *right, left_var.empty() ? right_var : left_var);
  }

  // A quoted string, or a variable's value (its name in `variable`, for the comparison's rules).
  absl::StatusOr<std::string> Value(std::string* variable) {
    Skip();
    if (!s_.empty() && (s_[0] == '\'' || s_[0] == '"')) {
      const size_t end = s_.find(s_[0], 1);
      if (end == absl::string_view::npos) return Error("a quoted string is not closed");
      std::string v(s_.substr(1, end - 1));
      s_.remove_prefix(end + 1);
      return v;
    }
    size_t n = 0;
    while (n < s_.size() && (absl::ascii_isalnum(s_[n]) || s_[n] == '_' || s_[n] == '.')) ++n;
    const absl::string_view name = s_.substr(0, n);
    s_.remove_prefix(n);
    const std::string* v = Variable(name);
    if (v == nullptr) return Error(absl::StrCat("unknown variable '", name, "'"));
    *variable = std::string(name);
    return *v;
  }

  const std::string* Variable(absl::string_view name) const {
    if (name == "python_version") return &env_.python_version;
    if (name == "python_full_version") return &env_.python_full_version;
    if (name == "platform_machine") return &env_.platform_machine;
    if (name == "platform_system") return &env_.platform_system;
    if (name == "sys_platform") return &env_.sys_platform;
    if (name == "os_name" || name == "os.name") return &env_.os_name;
    if (name == "implementation_name") return &env_.implementation_name;
    if (name == "platform_python_implementation") return &env_.platform_python_implementation;
    if (name == "implementation_version") return &env_.python_full_version;
    if (name == "platform_release" || name == "platform_version") return &empty_;
    if (name == "extra") return &env_.extra;
    return nullptr;
  }

  absl::StatusOr<bool> Compare(const std::string& a, const std::string& op, const std::string& b,
                               const std::string& variable) {
    if (op == "in") return absl::StrContains(b, a);
    if (op == "not in") return !absl::StrContains(b, a);
    if (variable == "extra") {  // compared as normalized names (PEP 685)
      const bool eq = NormalizeDistName(a) == NormalizeDistName(b);
      if (op == "==") return eq;
      if (op == "!=") return !eq;
    }
    // Both sides versions: compared as versions; otherwise as strings (== and != only).
    if (ParseVersion(a) && ParseVersion(b) && op != "===") {
      absl::StatusOr<bool> r = ClauseHolds(*ParseVersion(a), absl::StrCat(op, b));
      if (r.ok()) return r;
    }
    if (op == "==" || op == "===") return a == b;
    if (op == "!=") return a != b;
    return Error(absl::StrCat("'", a, "' ", op, " '", b, "' compares no versions"));
  }

  absl::string_view s_;
  const MarkerEnvironment& env_;
  const std::string empty_;
  int depth_ = 0;
};

}  // namespace

std::string Requirement::Short() const {
  std::string out = name;
  if (!extras.empty()) absl::StrAppend(&out, "[", absl::StrJoin(extras, ","), "]");
  absl::StrAppend(&out, specifier);
  return out;
}

absl::StatusOr<Requirement> ParseRequirement(absl::string_view text) {
  Requirement r;
  r.text = std::string(absl::StripAsciiWhitespace(text));
  absl::string_view s = r.text;
  auto bad = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("Requires-Dist '", r.text, "' is malformed: ", what));
  };
  const size_t semi = s.find(';');
  if (semi != absl::string_view::npos) {
    r.marker = std::string(absl::StripAsciiWhitespace(s.substr(semi + 1)));
    if (r.marker.empty()) return bad("an empty environment marker");
    s = absl::StripAsciiWhitespace(s.substr(0, semi));
  }
  size_t n = 0;
  while (n < s.size() && IsNameChar(s[n])) ++n;
  if (n == 0 || !absl::ascii_isalnum(s[0]) || !absl::ascii_isalnum(s[n - 1]))
    return bad("no distribution name");
  r.name = NormalizeDistName(s.substr(0, n));
  s = absl::StripLeadingAsciiWhitespace(s.substr(n));
  if (absl::ConsumePrefix(&s, "[")) {
    const size_t close = s.find(']');
    if (close == absl::string_view::npos) return bad("a '[' is not closed");
    for (absl::string_view e : absl::StrSplit(s.substr(0, close), ',')) {
      e = absl::StripAsciiWhitespace(e);
      if (e.empty()) continue;
      for (char c : e) {
        if (!IsNameChar(c)) return bad(absl::StrCat("extra '", e, "'"));
      }
      r.extras.push_back(NormalizeDistName(e));
    }
    s = absl::StripLeadingAsciiWhitespace(s.substr(close + 1));
  }
  if (absl::StartsWith(s, "@")) return bad("a direct URL reference is not a version");
  if (absl::ConsumePrefix(&s, "(")) {
    if (!absl::ConsumeSuffix(&s, ")")) return bad("a '(' is not closed");
  }
  std::string spec;
  for (char c : s) {
    if (!absl::ascii_isspace(c)) spec.push_back(c);
  }
  if (!spec.empty()) {
    for (absl::string_view clause : absl::StrSplit(spec, ',')) {
      absl::StatusOr<bool> ok = ClauseHolds(Pep440{}, clause);
      if (!ok.ok()) return bad(ok.status().message());
    }
  }
  r.specifier = std::move(spec);
  return r;
}

std::optional<MarkerEnvironment> MarkerEnvironmentOfTags(absl::string_view python_tag,
                                                         absl::string_view platform_tag) {
  MarkerEnvironment env;
  for (absl::string_view t : absl::StrSplit(python_tag, '.')) {
    absl::string_view digits = t;
    if (!absl::ConsumePrefix(&digits, "cp") || digits.size() < 2) continue;
    env.python_version = absl::StrCat(digits.substr(0, 1), ".", digits.substr(1));
    env.python_full_version = absl::StrCat(env.python_version, ".0");
    break;
  }
  for (absl::string_view p : absl::StrSplit(platform_tag, '.')) {
    if (!absl::StartsWith(p, "manylinux") && !absl::StartsWith(p, "linux")) continue;
    for (absl::string_view m : {"x86_64", "aarch64", "ppc64le", "s390x", "i686", "armv7l"}) {
      if (absl::EndsWith(p, absl::StrCat("_", m))) env.platform_machine = std::string(m);
    }
    if (!env.platform_machine.empty()) break;
  }
  if (env.python_version.empty() || env.platform_machine.empty()) return std::nullopt;
  return env;
}

absl::StatusOr<bool> EvaluateMarker(absl::string_view marker, const MarkerEnvironment& env) {
  return MarkerParser(marker, env).Parse();
}

int CompareVersions(absl::string_view a, absl::string_view b) {
  std::optional<Pep440> x = ParseVersion(a), y = ParseVersion(b);
  if (x && y) return Compare(*x, *y);
  if (x || y) return x ? -1 : 1;
  return a == b ? 0 : (a < b ? -1 : 1);
}

absl::StatusOr<bool> VersionSatisfies(absl::string_view version, absl::string_view specifier) {
  std::optional<Pep440> v = ParseVersion(version);
  if (!v) return absl::InvalidArgumentError(absl::StrCat("'", version, "' is not a version"));
  if (specifier.empty()) return true;
  for (absl::string_view clause : absl::StrSplit(specifier, ',')) {
    absl::StatusOr<bool> ok = ClauseHolds(*v, clause);
    if (!ok.ok() || !*ok) return ok;
  }
  return true;
}

namespace {

// The release after `v`'s at its `keep`-th number: ("2.9.1", 2) -> "2.10", ("2.9", 1) -> "3";
// nullopt for an epoch or a version with fewer numbers (the bound is then left open).
std::optional<std::string> NextRelease(absl::string_view v, size_t keep) {
  std::optional<Pep440> p = ParseVersion(v);
  if (!p || p->epoch != 0 || keep == 0 || p->release.size() < keep) return std::nullopt;
  std::vector<int64_t> r(p->release.begin(), p->release.begin() + static_cast<ptrdiff_t>(keep));
  ++r.back();
  return absl::StrJoin(r, ".");
}

// Which of two bounds on the same side is tighter: a lower bound `a` is tighter than `b` when it
// is higher, or equal and exclusive (`upper` flips the order).
bool Tighter(const VersionBound& a, const VersionBound& b, bool upper) {
  const int c = CompareVersions(a.version, b.version) * (upper ? -1 : 1);
  return c > 0 || (c == 0 && !a.inclusive && b.inclusive);
}

}  // namespace

absl::StatusOr<VersionRange> RangeOf(absl::string_view specifier) {
  VersionRange out;
  auto narrow = [](std::optional<VersionBound>* side, VersionBound b, bool upper) {
    if (!*side || Tighter(b, **side, upper)) *side = std::move(b);
  };
  for (absl::string_view clause : absl::StrSplit(specifier, ',', absl::SkipWhitespace())) {
    // Each clause parses as VersionSatisfies reads it.
    if (absl::StatusOr<bool> ok = ClauseHolds(Pep440{}, clause); !ok.ok()) return ok.status();
    const auto [op, rest] = SplitClause(clause);
    std::string v(rest);
    if (op == "!=" || op == "===") continue;
    if (op == "==" && absl::EndsWith(v, ".*")) {
      v.resize(v.size() - 2);
      const size_t numbers = ParseVersion(v) ? ParseVersion(v)->release.size() : 0;
      narrow(&out.lower, {v, true}, false);
      if (std::optional<std::string> next = NextRelease(v, numbers))
        narrow(&out.upper, {*next, false}, true);
    } else if (op == "~=") {
      const size_t numbers = ParseVersion(v)->release.size();
      narrow(&out.lower, {v, true}, false);
      if (std::optional<std::string> next = NextRelease(v, numbers - 1))
        narrow(&out.upper, {*next, false}, true);
    } else if (op == "==") {
      narrow(&out.lower, {v, true}, false);
      narrow(&out.upper, {v, true}, true);
    } else {
      const bool upper = op[0] == '<';
      narrow(upper ? &out.upper : &out.lower, {v, op.size() == 2}, upper);
    }
  }
  return out;
}

std::optional<VersionRange> Intersect(const std::vector<VersionRange>& ranges) {
  VersionRange out;
  for (const VersionRange& r : ranges) {
    if (r.lower && (!out.lower || Tighter(*r.lower, *out.lower, false))) out.lower = r.lower;
    if (r.upper && (!out.upper || Tighter(*r.upper, *out.upper, true))) out.upper = r.upper;
  }
  if (out.lower && out.upper) {
    const int c = CompareVersions(out.lower->version, out.upper->version);
    if (c > 0 || (c == 0 && !(out.lower->inclusive && out.upper->inclusive))) return std::nullopt;
  }
  return out;
}

VersionRange Cover(const std::vector<VersionRange>& ranges) {
  VersionRange out;
  bool open_below = false, open_above = false;
  for (const VersionRange& r : ranges) {
    open_below |= !r.lower;
    open_above |= !r.upper;
    // The looser of the two on each side: the other is tighter than it.
    if (r.lower && (!out.lower || Tighter(*out.lower, *r.lower, false))) out.lower = r.lower;
    if (r.upper && (!out.upper || Tighter(*out.upper, *r.upper, true))) out.upper = r.upper;
  }
  if (open_below) out.lower.reset();
  if (open_above) out.upper.reset();
  return out;
}

std::string SpecifierOf(const VersionRange& range) {
  std::vector<std::string> clauses;
  if (range.lower && range.upper && range.lower->inclusive && range.upper->inclusive &&
      CompareVersions(range.lower->version, range.upper->version) == 0)
    return absl::StrCat("==", range.lower->version);
  if (range.lower)
    clauses.push_back(absl::StrCat(range.lower->inclusive ? ">=" : ">", range.lower->version));
  if (range.upper)
    clauses.push_back(absl::StrCat(range.upper->inclusive ? "<=" : "<", range.upper->version));
  return absl::StrJoin(clauses, ",");
}

std::optional<WheelName> ParseWheelName(absl::string_view file_name) {
  absl::string_view s = file_name;
  if (!absl::ConsumeSuffix(&s, ".whl")) return std::nullopt;
  std::vector<absl::string_view> parts = absl::StrSplit(s, '-');
  if (parts.size() != 5 && parts.size() != 6) return std::nullopt;
  for (absl::string_view p : parts) {
    if (p.empty()) return std::nullopt;
  }
  WheelName w;
  w.distribution = NormalizeDistName(parts[0]);
  w.version = std::string(parts[1]);
  w.python = std::string(parts[parts.size() - 3]);
  w.abi = std::string(parts[parts.size() - 2]);
  w.platform = std::string(parts[parts.size() - 1]);
  return w;
}

bool WheelFitsTarget(const WheelName& wheel, const MarkerEnvironment& target) {
  const std::string cp =
      absl::StrCat("cp", absl::StrReplaceAll(target.python_version, {{".", ""}}));
  int minor = 0;
  (void)absl::SimpleAtoi(target.python_version.substr(target.python_version.find('.') + 1), &minor);
  bool python = false;
  for (absl::string_view t : absl::StrSplit(wheel.python, '.')) {
    if (t == cp || t == "py3" || (absl::StartsWith(t, "py3") && t == absl::StrCat("py3", minor)))
      python = true;
    // abi3 wheels of an older CPython serve every newer one.
    int their = 0;
    if (absl::StartsWith(t, "cp3") && absl::StrContains(wheel.abi, "abi3") &&
        absl::SimpleAtoi(t.substr(3), &their) && their <= minor)
      python = true;
  }
  bool platform = false;
  for (absl::string_view p : absl::StrSplit(wheel.platform, '.')) {
    if (p == "any" || ((absl::StartsWith(p, "manylinux") || absl::StartsWith(p, "linux")) &&
                       absl::EndsWith(p, absl::StrCat("_", target.platform_machine))))
      platform = true;
  }
  return python && platform;
}

}  // namespace abicheck
