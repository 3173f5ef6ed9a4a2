// The one small interface to LLVM's demanglers (Itanium C++ and Rust v0), which the reports use,
// and to binutils' (libiberty), which `symbols -C` uses; nothing else in abicheck includes their
// headers.
#ifndef ABICHECK_LIB_DEMANGLE_DEMANGLE_H_
#define ABICHECK_LIB_DEMANGLE_DEMANGLE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace abicheck {

// The demangled name, or `name` itself when it is not a mangled C++/Rust name (C symbols).
std::string Demangle(absl::string_view name);
// The same without a copy: the text lives in a per-thread buffer until this thread's next call
// (or `name` itself, when it is not mangled). `nul_terminated`: name.data()[name.size()] is a NUL
// (a name read from .dynstr), so the demangler reads the name in place instead of a copy.
absl::string_view DemangleView(absl::string_view name, bool nul_terminated = false);

// The name as binutils' `nm -C` writes it: libiberty's cplus_demangle with nm's options
// (DMGL_PARAMS | DMGL_ANSI) — the demangler and options binutils itself uses, so the text is
// nm's by construction (LLVM 14's, rewritten by DemangleView, differs in a third of
// libtorch_cuda.so's names: template arguments that take a function's address). `name` itself
// when it is not a mangled name. The text lives in a per-thread buffer until this thread's next
// call; `nul_terminated` as for DemangleView. A name over 16 KB (none in real libraries: the
// longest in torch's is 2 KB) is DemangleView's, as libiberty's stack use grows with the name.
absl::string_view DemangleLikeNm(absl::string_view name, bool nul_terminated = false);

// The parts of a mangled C++ function name, from llvm::ItaniumPartialDemangler.
struct FunctionParts {
  std::string context;              // "c10::cuda"
  std::string base;                 // "c10_cuda_check_implementation"
  std::string template_args;        // "<int, 0>" for a function template's instance, else ""
  std::vector<std::string> params;  // {"int", "char const*", ...}
  std::string return_type;          // empty for non-templates
  std::string qualifiers;           // " const", " &&", ...
};

// Splits a mangled function name; false when `name` is not a mangled C++ function.
bool SplitFunction(absl::string_view name, FunctionParts* out);

// "name[abi:cxx11]" -> "name".
std::string StripAbiTags(absl::string_view name);

}  // namespace abicheck

#endif  // ABICHECK_LIB_DEMANGLE_DEMANGLE_H_
