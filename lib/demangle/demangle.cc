// Demangling through LLVM 14's Demangle library (link LLVMDemangle only: DEPENDENCIES.md).
#include "lib/demangle/demangle.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "llvm/Demangle/Demangle.h"

namespace abicheck {
namespace {

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};
using CBuffer = std::unique_ptr<char, FreeDeleter>;

// Reads one part of the partial demangler's output into a string.
template <typename Fn>
std::string Part(Fn fn) {
  size_t n = 0;
  char* buf = fn(nullptr, &n);
  if (buf == nullptr) return {};
  CBuffer owner(buf);
  return std::string(buf);
}

// Splits "(a, b<c, d>, e (*)(f, g))" at its top-level commas.
std::vector<std::string> SplitParams(const std::string& list) {
  std::vector<std::string> out;
  if (list.size() < 2) return out;
  absl::string_view inner(list.data() + 1, list.size() - 2);
  int depth = 0;
  std::string cur;
  for (char c : inner) {
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    if (c == ' ' && cur.empty()) continue;
    cur.push_back(c);
  }
  if (!cur.empty()) out.push_back(cur);
  if (out.size() == 1 && out[0] == "void") out.clear();
  return out;
}

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The number of a closure or unnamed type as binutils shows it: LLVM prints the mangled
// discriminator ("" for the first, "0" for the second, ...), binutils counts from 1.
std::string Ordinal(absl::string_view digits) {
  if (digits.empty()) return "1";
  uint64_t n = 0;
  for (char c : digits) n = n * 10 + static_cast<uint64_t>(c - '0');
  return std::to_string(n + 2);
}

// The end of the balanced "(...)" that starts at `open`, or npos.
size_t CloseParen(absl::string_view text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) return i;
  }
  return absl::string_view::npos;
}

// At text[i] == '\'': LLVM's "'lambda'(params)", "'lambda3'(params)", "'unnamed'" or
// "'unnamed3'" appended to `out` as binutils writes it; the index after it, or npos (nothing
// appended) when it is none of them.
size_t Closure(absl::string_view text, size_t i, std::string* out) {
  for (absl::string_view kind : {absl::string_view("lambda"), absl::string_view("unnamed")}) {
    if (text.compare(i + 1, kind.size(), kind.data(), kind.size()) != 0) continue;
    size_t e = i + 1 + kind.size();
    const size_t digits = e;
    while (e < text.size() && text[e] >= '0' && text[e] <= '9') ++e;
    if (e >= text.size() || text[e] != '\'') return absl::string_view::npos;
    const std::string number = Ordinal(text.substr(digits, e - digits));
    if (kind == "unnamed") {
      absl::StrAppend(out, "{unnamed type#", number, "}");
      return e + 1;
    }
    if (e + 1 >= text.size() || text[e + 1] != '(') return absl::string_view::npos;
    const size_t close = CloseParen(text, e + 1);
    if (close == absl::string_view::npos) return absl::string_view::npos;
    absl::StrAppend(out, "{lambda", text.substr(e + 1, close - e), "#", number, "}");
    return close + 1;
  }
  return absl::string_view::npos;
}

// glibc's memmem: a search by first byte stops on every 's' or ')' of a demangled name.
bool Contains(absl::string_view text, absl::string_view needle) {
  return ::memmem(text.data(), text.size(), needle.data(), needle.size()) != nullptr;
}

// Where LLVM 14's text differs from binutils' (libiberty's cplus_demangle, what `nm -C` and
// c++filt print), the text is made binutils': users compare our listing with theirs
// (docs/symbols.md lists what still differs).
//  - A template argument list after an operator name that ends in '<' is set off by a space:
//    "operator<< <float>", "operator< <int>" (LLVM: "operator<<<float>", "operator<<int>").
//  - A constructor or destructor of a class whose name carries an ABI tag is named after the
//    class: "failure[abi:cxx11]::~failure()" (LLVM 14 leaves the name empty: "::~()").
//  - Closures and unnamed types: "{lambda(int)#1}", "{unnamed type#2}" (LLVM: "'lambda'(int)",
//    "'unnamed0'"); `Dn` is "decltype(nullptr)" (LLVM: "std::nullptr_t").
//  - Thread-local special names: "TLS init function for", "TLS wrapper function for".
// Returns false when `text` needs none of these.
// Long: one scan of the text, a case per binutils spelling listed above.
bool MatchBinutils(absl::string_view text, std::string* out) {
  // Which rules can apply (most names need none): searches for their rare bytes (memchr), not a
  // loop over every byte — this runs on every name of `symbols -C`.
  auto any_at = [&](char c, auto&& pred) {
    for (size_t i = text.find(c); i != absl::string_view::npos; i = text.find(c, i + 1)) {
      if (pred(i)) return true;
    }
    return false;
  };
  const bool op =
      any_at('<', [&](size_t i) { return i >= 8 && text.compare(i - 8, 8, "operator") == 0; });
  const bool tag = any_at(']', [&](size_t i) { return text.compare(i + 1, 2, "::") == 0; });
  const bool quoted = text.find('\'') != absl::string_view::npos;
  const bool null = Contains(text, "std::nullptr_t");
  const bool tls = text.substr(0, 13) == "thread-local ";
  if (!op && !tag && !quoted && !null && !tls) return false;
  out->clear();
  size_t i = 0;
  for (auto [from, to] : {std::pair<absl::string_view, absl::string_view>{
                              "thread-local initialization routine for ", "TLS init function for "},
                          {"thread-local wrapper routine for ", "TLS wrapper function for "}}) {
    if (tls && text.substr(0, from.size()) == from) {
      out->append(to.data(), to.size());
      i = from.size();
    }
  }
  bool changed = i > 0;
  while (i < text.size()) {
    if (op && text.compare(i, 9, "operator<") == 0) {
      absl::string_view rest = text.substr(i + 9);
      size_t name = 9;  // "operator<"
      if (rest.size() >= 2 && rest[0] == '<' && rest[1] == '<') {
        name = 10;  // operator<< with template arguments
      } else if (rest.size() >= 2 && rest[0] == '<' && rest[1] != '(' && rest[1] != '=' &&
                 rest[1] != ' ') {
        name = 9;  // operator< with template arguments
      } else {
        out->append(text.data() + i, 9);
        i += 9;
        continue;
      }
      out->append(text.data() + i, name);
      out->push_back(' ');
      i += name;
      changed = true;
      continue;
    }
    if (tag && text.compare(i, 3, "]::") == 0 &&
        (text.compare(i + 3, 1, "(") == 0 || text.compare(i + 3, 2, "~(") == 0)) {
      // Back over the "[abi:...]" groups to the class's own name.
      size_t start = i + 1;
      while (start > 0 && text[start - 1] == ']') {
        const size_t open = text.rfind("[abi:", start - 1);
        if (open == absl::string_view::npos) break;
        start = open;
      }
      size_t id = start;
      while (id > 0 && IsIdentifierChar(text[id - 1])) --id;
      if (id < start && start <= i) {
        out->append("]::");
        i += 3;
        if (text[i] == '~') {
          out->push_back('~');
          ++i;
        }
        out->append(text.data() + id, start - id);
        changed = true;
        continue;
      }
    }
    if (quoted && text[i] == '\'') {
      if (const size_t next = Closure(text, i, out); next != absl::string_view::npos) {
        i = next;
        changed = true;
        continue;
      }
    }
    if (null && text.compare(i, 14, "std::nullptr_t") == 0 &&
        (i + 14 >= text.size() || !IsIdentifierChar(text[i + 14]))) {
      out->append("decltype(nullptr)");
      i += 14;
      changed = true;
      continue;
    }
    out->push_back(text[i++]);
  }
  return changed;
}

// binutils writes the function of a local name without its return type:
// "f<int>(long)::scratchpad" where LLVM writes "void f<int>(long)::scratchpad" (only template
// functions have one). Done on the text, conservatively: a name that does not read as
// "RET NAME<...>(...)::" is left as it is. True when something was taken out.
bool StripLocalReturnTypes(std::string* s) {
  static constexpr absl::string_view kSpecial[] = {"guard variable for ",
                                                   "typeinfo for ",
                                                   "typeinfo name for ",
                                                   "vtable for ",
                                                   "VTT for ",
                                                   "construction vtable for ",
                                                   "reference temporary for ",
                                                   "TLS init function for ",
                                                   "TLS wrapper function for ",
                                                   "transaction clone for ",
                                                   "non-virtual thunk to ",
                                                   "virtual thunk to ",
                                                   "covariant return thunk to "};
  auto opens = [](char c) { return c == '<' || c == '(' || c == '[' || c == '{'; };
  auto closes = [](char c) { return c == '>' || c == ')' || c == ']' || c == '}'; };
  // From `at` back over balanced brackets to an unmatched opening one, or to a character at
  // depth 0 that `stops`; returns where the scanned text starts.
  auto back = [&](size_t at, auto stops) {
    for (int depth = 0; at > 0; --at) {
      const char c = (*s)[at - 1];
      if (closes(c)) {
        ++depth;
      } else if (opens(c)) {
        if (depth == 0) break;
        --depth;
      } else if (depth == 0 && stops(c)) {
        break;
      }
    }
    return at;
  };
  bool changed = false;
  for (size_t pos = s->find("::"); pos != std::string::npos; pos = s->find("::", pos + 2)) {
    size_t j = pos;
    for (absl::string_view q : {" const", " volatile", " &&", " &"}) {
      if (j >= q.size() && absl::string_view(*s).substr(j - q.size(), q.size()) == q) j -= q.size();
    }
    if (j == 0 || (*s)[j - 1] != ')') continue;
    // The parameter list's '('.
    size_t open = j - 1;
    for (int depth = 0;; --open) {
      if ((*s)[open] == ')') ++depth;
      if ((*s)[open] == '(' && --depth == 0) break;
      if (open == 0) break;
    }
    if ((*s)[open] != '(' || open == 0 || (*s)[open - 1] != '>') continue;  // not a template
    // Back over the function's name: identifiers, "::", balanced brackets.
    const size_t n =
        back(open, [](char c) { return !IsIdentifierChar(c) && c != ':' && c != '~'; });
    if (n < 2 || (*s)[n - 1] != ' ') continue;
    // Back over the return type to where this name's list entry starts.
    size_t r = back(n - 1, [](char c) { return c == ','; });
    if (r > 0 && (*s)[r - 1] == ',' && r < n - 1 && (*s)[r] == ' ') ++r;
    if (r == 0) {
      for (absl::string_view p : kSpecial) {
        if (absl::string_view(*s).substr(0, p.size()) == p && p.size() <= n) r = p.size();
      }
    }
    if (r + 1 >= n) continue;
    s->erase(r, n - r);
    pos = r;
    changed = true;
  }
  return changed;
}

}  // namespace

std::string Demangle(absl::string_view name) { return std::string(DemangleView(name)); }

absl::string_view DemangleView(absl::string_view name) {
  if (name.size() <= 2 || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R')) return name;
  // One growing output buffer per thread: the demanglers realloc it instead of a malloc per name.
  // Freed when its thread ends (a worker thread of the listing would otherwise leak it).
  struct Buffer {
    char* p = nullptr;
    size_t cap = 0;
    ~Buffer() { std::free(p); }
  };
  thread_local Buffer out;
  thread_local std::string input;
  char*& buf = out.p;
  size_t& cap = out.cap;
  // A transaction-safe clone (_ZGTt + the function's own encoding): binutils says what it is;
  // LLVM 14 does not know the prefix.
  const bool clone = name.size() > 5 && name.substr(0, 5) == "_ZGTt";
  if (clone) {
    input.assign("_Z");
    input.append(name.data() + 5, name.size() - 5);
  } else {
    input.assign(name.data(), name.size());  // the demanglers want NUL-terminated input
  }
  int status = 0;
  size_t n = cap;
  char* d = name[1] == 'Z' ? llvm::itaniumDemangle(input.c_str(), buf, &n, &status)
                           : llvm::rustDemangle(input.c_str(), buf, &n, &status);
  if (d != nullptr) {
    buf = d;
    cap = std::max(cap, n);
  }
  if (d == nullptr || status != 0) return name;
  thread_local std::string fixed;
  absl::string_view text(d);
  const bool matched = MatchBinutils(text, &fixed);
  // A local name's function ("...)::x") may carry a return type binutils does not print.
  const bool local = name[1] == 'Z' && (Contains(text, ")::") || Contains(text, ") const::"));
  if (!matched && !clone && !local) return text;
  if (!matched) fixed.assign(text.data(), text.size());
  if (local) StripLocalReturnTypes(&fixed);
  if (clone) fixed.insert(0, "transaction clone for ");
  return fixed;
}

bool SplitFunction(absl::string_view name, FunctionParts* out) {
  std::string s(name);
  llvm::ItaniumPartialDemangler d;
  if (d.partialDemangle(s.c_str()) || !d.isFunction()) return false;
  out->context = Part([&](char* b, size_t* n) { return d.getFunctionDeclContextName(b, n); });
  out->base = Part([&](char* b, size_t* n) { return d.getFunctionBaseName(b, n); });
  out->params =
      SplitParams(Part([&](char* b, size_t* n) { return d.getFunctionParameters(b, n); }));
  out->return_type = Part([&](char* b, size_t* n) { return d.getFunctionReturnType(b, n); });
  // The full demangled text ends with the qualifiers after the parameter list.
  std::string full = Part([&](char* b, size_t* n) { return d.finishDemangle(b, n); });
  size_t close = full.rfind(')');
  out->qualifiers = close == std::string::npos ? "" : full.substr(close + 1);
  return true;
}

std::string StripAbiTags(absl::string_view name) {
  std::string out(name);
  for (size_t at; (at = out.find("[abi:")) != std::string::npos;) {
    size_t end = out.find(']', at);
    out.erase(at, end == std::string::npos ? std::string::npos : end - at + 1);
  }
  return out;
}

}  // namespace abicheck
