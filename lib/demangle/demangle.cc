// Demangling through LLVM 14's Demangle library (link LLVMDemangle only: DEPENDENCIES.md).
#include "lib/demangle/demangle.h"

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

std::string Demangle(absl::string_view name) {
  std::string s(name);  // The demanglers want NUL-terminated input.
  int status = 0;
  size_t n = 0;
  if (s.size() > 2 && s[0] == '_' && s[1] == 'Z') {
    if (char* d = llvm::itaniumDemangle(s.c_str(), nullptr, &n, &status); d != nullptr && status == 0) {
      return std::string(CBuffer(d).get());
    }
  } else if (s.size() > 2 && s[0] == '_' && s[1] == 'R') {
    if (char* d = llvm::rustDemangle(s.c_str(), nullptr, &n, &status); d != nullptr && status == 0) {
      return std::string(CBuffer(d).get());
    }
  }
  return s;
}

bool SplitFunction(absl::string_view name, FunctionParts* out) {
  std::string s(name);
  llvm::ItaniumPartialDemangler d;
  if (d.partialDemangle(s.c_str()) || !d.isFunction()) return false;
  out->context = Part([&](char* b, size_t* n) { return d.getFunctionDeclContextName(b, n); });
  out->base = Part([&](char* b, size_t* n) { return d.getFunctionBaseName(b, n); });
  out->params = SplitParams(Part([&](char* b, size_t* n) { return d.getFunctionParameters(b, n); }));
  out->return_type = Part([&](char* b, size_t* n) { return d.getFunctionReturnType(b, n); });
  // The full demangled text ends with the qualifiers after the parameter list.
  std::string full = Part([&](char* b, size_t* n) { return d.finishDemangle(b, n); });
  size_t close = full.rfind(')');
  out->qualifiers = close == std::string::npos ? "" : full.substr(close + 1);
  return true;
}

}  // namespace abicheck
