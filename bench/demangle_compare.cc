// The two demanglers `abicheck symbols -C` could use, on the same names (issue 16): LLVM's, with
// abicheck's rewriting into binutils' text (lib/demangle), and libiberty's cplus_demangle, which
// binutils' nm -C calls (DMGL_PARAMS | DMGL_ANSI, as bfd_demangle passes them). One thread each,
// the best of five passes over every name.
//   demangle_compare NAMES_FILE [SHOW]   (one mangled name per line)
// prints the nanoseconds per name of each and how many names they write alike, and the first SHOW
// names they write differently.
// libiberty.h declares basename() unless told that string.h does.
#define HAVE_DECL_BASENAME 1
#include <libiberty/demangle.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "lib/demangle/demangle.h"

namespace {

template <typename F>
double BestNsPerName(const std::vector<std::string>& names, F&& demangle) {
  double best = 1e30;
  for (int pass = 0; pass < 5; ++pass) {
    size_t bytes = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::string& n : names) bytes += demangle(n);
    const auto t1 = std::chrono::steady_clock::now();
    if (bytes == 0) std::fputs("", stderr);  // keeps the work
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count());
  }
  return best / static_cast<double>(names.size());
}

size_t Libiberty(const std::string& n) {
  char* d = cplus_demangle(n.c_str(), DMGL_PARAMS | DMGL_ANSI);
  if (d == nullptr) return n.size();  // nm prints the name as it is
  const size_t size = std::strlen(d);
  std::free(d);
  return size;
}

// The same without its malloc'd copy: the text arrives in pieces (what a listing would append).
size_t LibibertyCallback(const std::string& n) {
  size_t size = 0;
  const int ok = cplus_demangle_v3_callback(
      n.c_str(), DMGL_PARAMS | DMGL_ANSI,
      [](const char* s, size_t len, void* opaque) { *static_cast<size_t*>(opaque) += len; }, &size);
  return ok ? size : n.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: demangle_compare NAMES_FILE [SHOW]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) names.push_back(line);
  }
  if (names.empty()) {
    std::fprintf(stderr, "%s: no names\n", argv[1]);
    return 3;
  }
  size_t alike = 0, show = argc == 3 ? std::strtoul(argv[2], nullptr, 10) : 0;
  for (const std::string& n : names) {
    char* d = cplus_demangle(n.c_str(), DMGL_PARAMS | DMGL_ANSI);
    const std::string theirs = d != nullptr ? d : n, ours(abicheck::DemangleView(n));
    std::free(d);
    if (ours == theirs) {
      ++alike;
    } else if (show > 0) {
      --show;
      std::printf("%s\n  LLVM:      %s\n  libiberty: %s\n", n.c_str(), ours.c_str(),
                  theirs.c_str());
    }
  }
  const double llvm = BestNsPerName(
      names, [](const std::string& n) { return abicheck::DemangleView(n, true).size(); });
  const double iberty = BestNsPerName(names, Libiberty);
  const double callback = BestNsPerName(names, LibibertyCallback);
  std::printf(
      "%zu names: LLVM + rewriting %.0f ns/name, libiberty cplus_demangle %.0f ns/name "
      "(%.2fx), its callback form %.0f ns/name (%.2fx); %zu written alike\n",
      names.size(), llvm, iberty, iberty / llvm, callback, callback / llvm, alike);
  return 0;
}
