// The std::string ABI (pre-C++11 or __cxx11) of the module and of what it loads against, by
// the mangled names each uses: one cause for every failure it explains.
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "lib/diagnose/diagnose_internal.h"

namespace abicheck {

namespace {

// The std::string ABI a set of mangled names was built with. C++11: the __cxx11 inline namespace
// (St7__cxx11) or the [abi:cxx11] tag (B5cxx11); pre-C++11: std::string as the Ss abbreviation,
// which demangles to "std::string" (the new one demangles to std::__cxx11::basic_string).
struct AbiVotes {
  int cxx11 = 0, old = 0;
  // The nearest candidate differs only by the [abi:cxx11] tag, added (`to_cxx11`) or dropped.
  static bool OnlyCxx11Tag(const NearDefinition& c, bool to_cxx11) {
    if (c.differences.size() != 1 || c.differences[0].kind != PartChange::Kind::kAbiTag)
      return false;
    const PartChange& d = c.differences[0];
    return to_cxx11 ? d.from.empty() && absl::StartsWith(d.to, "[abi:cxx11]")
                    : d.to.empty() && absl::StartsWith(d.from, "[abi:cxx11]");
  }
  void Add(absl::string_view mangled, absl::string_view demangled) {
    if (absl::StrContains(mangled, "St7__cxx11") || absl::StrContains(mangled, "B5cxx11"))
      ++cxx11;
    else if (absl::StrContains(demangled, "std::string") ||
             absl::StrContains(demangled, "std::basic_string<char"))
      ++old;
  }
  // A miss whose nearest candidate differs only by the [abi:cxx11] tag returns a std::string
  // (or a type holding one) on one side. That is the other ABI only when the referring object
  // (`markers`: SymbolTable::StringAbiMarkers, 1 C++11, 2 old) does not spell std::string the
  // way the tag says: a C++11 object missing f() where the build has f[abi:cxx11]() was compiled
  // against a declaration of f returning something else (torch 2.14's c10::getDtypeNames against
  // 2.6's), not with the old ABI.
  void AddProblem(const DiagnosedFailure& p, uint8_t markers) {
    const int before = cxx11 + old;
    Add(p.symbol, p.demangled);
    if (cxx11 + old != before || p.candidates.empty()) return;
    const NearDefinition& c = p.candidates.front();
    if (OnlyCxx11Tag(c, true) && (markers & 1) == 0) ++old;
    if (OnlyCxx11Tag(c, false) && (markers & 2) == 0) ++cxx11;
  }
  static StringAbiKind StringAbiOf(bool cxx11, bool old) {
    return cxx11 && old ? StringAbiKind::kMixed
           : cxx11      ? StringAbiKind::kCxx11
           : old        ? StringAbiKind::kPreCxx11
                        : StringAbiKind::kUnknown;
  }
};

}  // namespace

// docs/json-schema.md, "string_abi": the module's side is what the objects whose references
// miss spell in their own names, and what their misses say when their names say nothing.
void ClassifyStringAbi(const std::vector<const Object*>& scope, Diagnosed* report) {
  // Scanning string tables costs more than the rest of a check: only when a miss involves
  // std::string, or differs from its nearest candidate by the [abi:cxx11] tag alone.
  AbiVotes any;
  for (const DiagnosedFailure& p : report->problems) {
    if (p.kind == FailureKind::kUndefinedSymbol) any.AddProblem(p, 0);
  }
  if (any.cxx11 == 0 && any.old == 0) return;
  // A provider's ABI from its string table alone: the __cxx11 markers are unambiguous; without
  // them, a library that uses std::string at all has the Ss abbreviation in its names.
  uint8_t providers = 0;
  for (const Object* o : scope) {
    if (!o->preexisting || o->host || o->found_by == HowFound::kModule) continue;
    providers |= o->syms->StringAbiMarkers();
  }
  report->providers_string_abi = AbiVotes::StringAbiOf(providers & 1, providers & 2);
  // The referring object's own spelling (StringAbiMarkers scans its strings once per table).
  absl::flat_hash_map<absl::string_view, const Object*> by_path;
  for (const Object* o : scope) by_path.emplace(o->path, o);
  auto markers_of = [&](const DiagnosedFailure& p) -> uint8_t {
    auto it = by_path.find(p.object);
    return it == by_path.end() ? 0 : it->second->syms->StringAbiMarkers();
  };
  AbiVotes module;
  uint8_t module_markers = 0;
  for (const DiagnosedFailure& p : report->problems) {
    if (p.kind != FailureKind::kUndefinedSymbol) continue;
    const uint8_t m = markers_of(p);
    module_markers |= m;
    module.AddProblem(p, m);
  }
  report->module_string_abi = AbiVotes::StringAbiOf(module.cxx11 > 0 || (module_markers & 1),
                                                    module.old > 0 || (module_markers & 2));
  // One cause for every miss that takes or returns an old-ABI std::string, when the providers
  // were built with the C++11 ABI (and the reverse).
  const bool old_vs_new = module.old > 0 && report->providers_string_abi == StringAbiKind::kCxx11;
  const bool new_vs_old =
      module.cxx11 > 0 && report->providers_string_abi == StringAbiKind::kPreCxx11;
  if (!old_vs_new && !new_vs_old) return;
  SharedCause c;
  c.id = "cxx11_string_abi";
  c.summary =
      old_vs_new
          ? "the module was built with _GLIBCXX_USE_CXX11_ABI=0 (the pre-C++11 std::string ABI); "
            "these "
            "libraries use the C++11 ABI (as torch >= 2.7 pip wheels do): rebuild the module with "
            "_GLIBCXX_USE_CXX11_ABI=1, or use a build with the old ABI (torch <= 2.5 pip wheels)"
          : "the module was built with the C++11 std::string ABI; these libraries use the "
            "pre-C++11 ABI "
            "(_GLIBCXX_USE_CXX11_ABI=0, as torch <= 2.5 pip wheels do): rebuild the module with "
            "_GLIBCXX_USE_CXX11_ABI=0, or use a build with the C++11 ABI";
  for (DiagnosedFailure& p : report->problems) {
    if (p.kind != FailureKind::kUndefinedSymbol) continue;
    AbiVotes v;
    v.AddProblem(p, markers_of(p));
    if ((old_vs_new && v.old > 0) || (new_vs_old && v.cxx11 > 0)) {
      p.cause = c.id;
      ++c.problems;
    }
  }
  if (c.problems > 0) report->causes.push_back(std::move(c));
}

}  // namespace abicheck
