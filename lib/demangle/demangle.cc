// Demangling through LLVM 14's Demangle library (link LLVMDemangle only: DEPENDENCIES.md).
#include "lib/demangle/demangle.h"

#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "llvm/Demangle/Demangle.h"
// libiberty.h, which demangle.h includes, declares basename() unless told string.h does.
#define HAVE_DECL_BASENAME 1
#include "libiberty/demangle.h"

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

// Which of the rules below a name can need, read off its mangled spelling: each rule's
// construct has one, and the mangled name is a third of the demangled text's length. A byte
// search per rule over the text cost more than the demangling itself (issue 16).
struct Rules {
  bool op = false;       // "ltI" / "lsI": operator< and operator<< with template arguments
  bool tag = false;      // 'B' and a digit: an ABI tag, "[abi:cxx11]"
  bool closure = false;  // "Ul" / "Ut": a closure or an unnamed type
  bool null = false;     // "Dn": std::nullptr_t
  bool local = false;    // a 'Z' past the "_Z": a local name, "f(...)::x"
};

Rules RulesFor(absl::string_view mangled) {
  Rules r;
  const char* m = mangled.data();
  size_t i = 2;
#if defined(__SSE2__)
  // Sixteen positions at a time: each byte against its rule's first byte, the bytes after it
  // (loads one and two further on) against the next.
  __m128i op = _mm_setzero_si128(), tag = op, closure = op, null = op, local = op;
  auto sixteen = [&](const char* at) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 1));
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 2));
    const __m128i ts =
        _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('t')), _mm_cmpeq_epi8(w, _mm_set1_epi8('s')));
    op = _mm_or_si128(op, _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('l')), ts),
                                        _mm_cmpeq_epi8(x, _mm_set1_epi8('I'))));
    const __m128i digit = _mm_sub_epi8(w, _mm_set1_epi8('0'));  // '0'..'9' -> 0..9
    tag = _mm_or_si128(tag,
                       _mm_and_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('B')),
                                     _mm_cmpeq_epi8(_mm_min_epu8(digit, _mm_set1_epi8(9)), digit)));
    const __m128i lt =
        _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('l')), _mm_cmpeq_epi8(w, _mm_set1_epi8('t')));
    closure = _mm_or_si128(closure, _mm_and_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('U')), lt));
    null = _mm_or_si128(null, _mm_and_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('D')),
                                            _mm_cmpeq_epi8(w, _mm_set1_epi8('n'))));
    local = _mm_or_si128(local, _mm_cmpeq_epi8(v, _mm_set1_epi8('Z')));
  };
  for (; i + 18 <= mangled.size(); i += 16) sixteen(m + i);
  // The last bytes (up to 17) from a copy padded with NULs: a rule's next byte past the end is
  // '\0', as the byte loop below reads it, and no rule starts with one.
  if (i < mangled.size()) {
    char tail[48] = {};
    std::memcpy(tail, m + i, mangled.size() - i);
    sixteen(tail);
    if (mangled.size() - i > 16) sixteen(tail + 16);
    i = mangled.size();
  }
  r.op = _mm_movemask_epi8(op) != 0;
  r.tag = _mm_movemask_epi8(tag) != 0;
  r.closure = _mm_movemask_epi8(closure) != 0;
  r.null = _mm_movemask_epi8(null) != 0;
  r.local = _mm_movemask_epi8(local) != 0;
#endif
  for (; i < mangled.size(); ++i) {
    const char c = m[i], next = i + 1 < mangled.size() ? m[i + 1] : '\0';
    const char after = i + 2 < mangled.size() ? m[i + 2] : '\0';
    r.op = r.op || (c == 'l' && (next == 't' || next == 's') && after == 'I');
    r.tag = r.tag || (c == 'B' && next >= '0' && next <= '9');
    r.closure = r.closure || (c == 'U' && (next == 'l' || next == 't'));
    r.null = r.null || (c == 'D' && next == 'n');
    r.local = r.local || c == 'Z';
  }
  return r;
}

// The next byte at or after `i` that can start a rule: '<' (operator<), ']' (an ABI tag before
// "::"), '\'' (a closure) or 's' (std::nullptr_t), each only when `want` says so (the others
// stand for NUL, which the text has none of). SSE2 looks at 16 bytes at a time.
size_t NextRuleStart(absl::string_view text, size_t i, const bool want[4]) {
  static constexpr char kBytes[4] = {'<', ']', '\'', 's'};
  char bytes[4];
  for (int k = 0; k < 4; ++k) bytes[k] = want[k] ? kBytes[k] : '\0';
#if defined(__SSE2__)
  const __m128i b0 = _mm_set1_epi8(bytes[0]), b1 = _mm_set1_epi8(bytes[1]),
                b2 = _mm_set1_epi8(bytes[2]), b3 = _mm_set1_epi8(bytes[3]);
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, b0), _mm_cmpeq_epi8(v, b1)),
                                     _mm_or_si128(_mm_cmpeq_epi8(v, b2), _mm_cmpeq_epi8(v, b3)));
    if (const int mask = _mm_movemask_epi8(hit); mask != 0) return i + __builtin_ctz(mask);
  }
#endif
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == bytes[0] || c == bytes[1] || c == bytes[2] || c == bytes[3]) return i;
  }
  return text.size();
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
// The text between the places a rule changes is copied whole. Returns false, with `out` left
// as it was, when `text` needs none of these.
// Long: one scan of the text, a case per binutils spelling listed above.
bool MatchBinutils(absl::string_view text, const Rules& rules, std::string* out) {
  const bool want[4] = {rules.op, rules.tag, rules.closure, rules.null};
  const bool tls = text.substr(0, 13) == "thread-local ";
  if (!tls && !rules.op && !rules.tag && !rules.closure && !rules.null) return false;
  size_t i = 0, copied = 0;  // text before `copied` is in `out`
  std::string closure;
  bool changed = false;
  auto flush = [&](size_t to) {  // copies text[copied, to) to `out`
    if (!changed) out->clear();
    changed = true;
    out->append(text.data() + copied, to - copied);
    copied = to;
  };
  for (auto [from, to] : {std::pair<absl::string_view, absl::string_view>{
                              "thread-local initialization routine for ", "TLS init function for "},
                          {"thread-local wrapper routine for ", "TLS wrapper function for "}}) {
    if (tls && text.substr(0, from.size()) == from) {
      flush(0);
      out->append(to.data(), to.size());
      i = copied = from.size();
    }
  }
  for (; (i = NextRuleStart(text, i, want)) < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' && want[0] && i >= copied + 8 && text.compare(i - 8, 8, "operator") == 0) {
      // "operator<" at i - 8; `rest` is what follows it.
      const absl::string_view rest = text.substr(i + 1);
      size_t name = 0;  // the operator's length past "operator<"
      if (rest.size() >= 2 && rest[0] == '<' && rest[1] == '<') {
        name = 1;  // operator<< with template arguments
      } else if (rest.size() >= 2 && rest[0] == '<' && rest[1] != '(' && rest[1] != '=' &&
                 rest[1] != ' ') {
        name = 0;  // operator< with template arguments
      } else {
        continue;
      }
      flush(i + 1 + name);
      out->push_back(' ');
      i += name;
      continue;
    }
    if (c == ']' && text.compare(i, 3, "]::") == 0 &&
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
        const size_t end = i + 3 + (text[i + 3] == '~' ? 1 : 0);
        flush(end);
        out->append(text.data() + id, start - id);
        i = end - 1;
        continue;
      }
    }
    if (c == '\'' && want[2]) {
      closure.clear();
      if (const size_t next = Closure(text, i, &closure); next != absl::string_view::npos) {
        flush(i);
        out->append(closure);
        copied = next;
        i = next - 1;
        continue;
      }
    }
    if (c == 's' && want[3] && text.compare(i, 14, "std::nullptr_t") == 0 &&
        (i + 14 >= text.size() || !IsIdentifierChar(text[i + 14]))) {
      flush(i);
      out->append("decltype(nullptr)");
      copied = i + 14;
      i = copied - 1;
      continue;
    }
  }
  if (changed) flush(text.size());
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
  // Each ')' followed by the qualifiers a member function can carry and "::": the end of a local
  // name's function ("...)::x", "...) const::x").
  for (size_t close = s->find(')'); close != std::string::npos; close = s->find(')', close + 1)) {
    absl::string_view after = absl::string_view(*s).substr(close + 1);
    if (after.empty() || (after[0] != ':' && after[0] != ' ')) continue;  // most ')': ", " or ")"
    if (after.substr(0, 2) == " &" && after.substr(0, 3) != " &&") after.remove_prefix(2);
    for (absl::string_view q : {" &&", " volatile", " const"}) {
      if (after.substr(0, q.size()) == q) after.remove_prefix(q.size());
    }
    if (after.substr(0, 2) != "::") continue;
    // The parameter list's '('.
    size_t open = close;
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
    close -= n - r;
    changed = true;
  }
  return changed;
}

}  // namespace

namespace {

// LLVM's demanglers parse and print by recursion, about 100 bytes of stack a byte of the name
// (measured: a template nested 30,000 deep, 120 KB, overflows an 8 MB stack). The longest name
// of the corpora is 1,995 bytes: up to 2 KB run on the caller's stack; a longer one runs on a
// thread of its own whose stack grows with the name (4 KB a byte, room for the sanitizers'
// larger frames; only what is touched is ever mapped); past 1 MB, or without such a thread, it
// is left mangled (docs/limits.md). `f` runs once, or not at all (false).
template <typename F>
bool OnADeepEnoughStack(size_t name_size, F&& f) {
  constexpr size_t kOnTheCallersStack = size_t{2} << 10;
  constexpr size_t kLongest = size_t{1} << 20;
  if (name_size <= kOnTheCallersStack) {
    f();
    return true;
  }
  if (name_size > kLongest) return false;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  const size_t stack = (size_t{1} << 20) + name_size * (size_t{4} << 10);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<std::remove_reference_t<F>*>(arg))();
    return nullptr;
  };
  const bool started =
      pthread_attr_setstacksize(&attr, stack) == 0 && pthread_create(&thread, &attr, run, &f) == 0;
  pthread_attr_destroy(&attr);
  if (started) pthread_join(thread, nullptr);
  return started;
}

}  // namespace

std::string Demangle(absl::string_view name) { return std::string(DemangleView(name)); }

absl::string_view DemangleLikeNm(absl::string_view name, bool nul_terminated) {
  // libiberty keeps its parse on the stack, about 72 bytes per byte of the name (arrays of
  // 2n components and n substitutions): a hostile 200 KB name would overflow a thread's stack.
  // The longest name of the corpora is 1,995 bytes (libtorch_cuda.so); past 16 KB (1.2 MB of
  // stack) LLVM's demangler, which allocates on the heap, writes the name instead.
  constexpr size_t kLongestOnTheStack = size_t{16} << 10;
  if (name.size() > kLongestOnTheStack) return DemangleView(name, nul_terminated);
  thread_local std::string input, out;
  const char* c_name = name.data();
  if (!nul_terminated) {
    input.assign(name.data(), name.size());
    c_name = input.c_str();
  }
  constexpr int kOptions = DMGL_PARAMS | DMGL_ANSI;  // binutils nm's demangle_flags
  out.clear();
  // cplus_demangle tries legacy Rust before the C++ ABI; a legacy Rust name ends its path with
  // "17h" and a 16-digit hash, so a _Z name without "17h" is C++ alone: its text is written
  // straight into `out` (cplus_demangle_v3_callback) instead of into a malloc'd copy.
  if (name.size() > 2 && name[0] == '_' && name[1] == 'Z' &&
      name.find("17h") == absl::string_view::npos) {
    auto append = [](const char* s, size_t n, void* o) {
      static_cast<std::string*>(o)->append(s, n);
    };
    return cplus_demangle_v3_callback(c_name, kOptions, append, &out) != 0 ? absl::string_view(out)
                                                                           : name;
  }
  char* d = cplus_demangle(c_name, kOptions);
  if (d == nullptr) return name;
  out.assign(d);
  std::free(d);
  return out;
}

absl::string_view DemangleView(absl::string_view name, bool nul_terminated) {
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
  // The demanglers want NUL-terminated input.
  const char* c_name = name.data();
  if (clone) {
    input.assign("_Z");
    input.append(name.data() + 5, name.size() - 5);
    c_name = input.c_str();
  } else if (!nul_terminated) {
    input.assign(name.data(), name.size());
    c_name = input.c_str();
  }
  int status = 0;
  size_t n = cap;
  char* d = nullptr;
  const bool ran = OnADeepEnoughStack(name.size(), [&] {
    d = name[1] == 'Z' ? llvm::itaniumDemangle(c_name, buf, &n, &status)
                       : llvm::rustDemangle(c_name, buf, &n, &status);
  });
  if (!ran) return name;
  if (d != nullptr) {
    buf = d;
    cap = std::max(cap, n);
  }
  if (d == nullptr || status != 0) return name;
  // LLVM 14 counts the NUL in `n`.
  const absl::string_view text(d, n > 0 && d[n - 1] == '\0' ? n - 1 : std::strlen(d));
  Rules rules = RulesFor(name);
  rules.local &= name[1] == 'Z';
  thread_local std::string fixed;
  const bool matched = MatchBinutils(text, rules, &fixed);
  // A local name's function ("...)::x") may carry a return type binutils does not print.
  if (!matched && !clone && !rules.local) return text;
  if (!matched) fixed.assign(text.data(), text.size());
  if (rules.local) StripLocalReturnTypes(&fixed);
  if (clone) fixed.insert(0, "transaction clone for ");
  return fixed;
}

namespace {

// The template argument list that ends just before the parameter list whose ')' is at `close`
// ("<int, 0>" of "int const* at::TensorBase::const_data_ptr<int, 0>() const"), or "".
std::string TemplateArgsBefore(absl::string_view full, size_t close) {
  auto open_of = [&](size_t end, char open, char shut) -> size_t {  // the bracket matching `end`
    int depth = 0;
    for (size_t i = end + 1; i-- > 0;) {
      depth += (full[i] == shut) - (full[i] == open);
      if (depth == 0) return i;
    }
    return absl::string_view::npos;
  };
  const size_t open = open_of(close, '(', ')');
  if (open == absl::string_view::npos || open == 0 || full[open - 1] != '>') return "";
  const size_t angle = open_of(open - 1, '<', '>');
  return angle == absl::string_view::npos ? "" : std::string(full.substr(angle, open - angle));
}

// SplitFunction on the stack it runs on.
bool SplitFunctionHere(absl::string_view name, FunctionParts* out);

}  // namespace

bool SplitFunction(absl::string_view name, FunctionParts* out) {
  bool split = false;
  if (!OnADeepEnoughStack(name.size(), [&] { split = SplitFunctionHere(name, out); })) return false;
  return split;
}

namespace {

bool SplitFunctionHere(absl::string_view name, FunctionParts* out) {
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
  out->template_args = close == std::string::npos || absl::StrContains(out->base, '<') ||
                               absl::StrContains(out->base, '>')
                           ? ""
                           : TemplateArgsBefore(full, close);
  return true;
}

}  // namespace

std::string StripAbiTags(absl::string_view name) {
  std::string out(name);
  for (size_t at; (at = out.find("[abi:")) != std::string::npos;) {
    size_t end = out.find(']', at);
    out.erase(at, end == std::string::npos ? std::string::npos : end - at + 1);
  }
  return out;
}

}  // namespace abicheck
