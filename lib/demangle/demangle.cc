// Demangling through LLVM 14's Demangle library (link LLVMDemangle only: DEPENDENCIES.md).
#include "lib/demangle/demangle.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

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
  input.assign(name.data(), name.size());  // the demanglers want NUL-terminated input
  int status = 0;
  size_t n = cap;
  char* d = name[1] == 'Z' ? llvm::itaniumDemangle(input.c_str(), buf, &n, &status)
                           : llvm::rustDemangle(input.c_str(), buf, &n, &status);
  if (d != nullptr) {
    buf = d;
    cap = std::max(cap, n);
  }
  if (d == nullptr || status != 0) return name;
  return absl::string_view(d);
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

}  // namespace abicheck
