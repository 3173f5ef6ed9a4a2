// Nearest-candidate search for undefined symbols: the same name outside the module's scope
// (a library it does not list), the same name under another version, or the same qualified C++
// function with another signature.
#include "lib/diagnose/diagnose.h"

#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/ascii.h"
#include "lib/elf/elf_constants.h"

namespace abicheck {
namespace {

// Diagnosis is for people: past this many undefined symbols the first ones are explained.
constexpr int kMaxDiagnosed = 256;
constexpr size_t kMaxCandidates = 3;
// Signature candidates gathered before ranking (overload sets can be large).
constexpr size_t kMaxSignatureCandidates = 16;

std::string Basename(absl::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == absl::string_view::npos ? path : path.substr(slash + 1));
}

// "-ltorch_cuda" for "libtorch_cuda.so.2.6"; empty when the name is not lib*.so*.
std::string LinkFlag(absl::string_view soname) {
  std::string base = Basename(soname);
  if (!absl::StartsWith(base, "lib")) return "";
  size_t so = base.find(".so");
  if (so == std::string::npos) return "";
  return absl::StrCat("-l", base.substr(3, so - 3));
}

std::string VersionOf(const Object& o, uint32_t idx) {
  if (!o.syms->has_versym()) return "";
  const VersionSlot* slot = o.syms->Slot(o.syms->Versym(idx) & 0x7fff);
  return slot != nullptr && slot->defined && (o.syms->Versym(idx) & 0x7fff) > 1 ? std::string(slot->name) : "";
}

bool Exported(const Symbol& s) {
  return s.defined() && s.bind() != elf::STB_LOCAL && s.visibility() != elf::STV_HIDDEN &&
         s.visibility() != elf::STV_INTERNAL;
}

}  // namespace

absl::string_view VersionFamily(absl::string_view v) {
  size_t i = 0;
  while (i < v.size() && !absl::ascii_isdigit(static_cast<unsigned char>(v[i]))) ++i;
  return v.substr(0, i);
}

int CompareVersionNames(absl::string_view a, absl::string_view b) {
  // Numeric fields compared as numbers: GLIBCXX_3.4.9 < GLIBCXX_3.4.30.
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (absl::ascii_isdigit(static_cast<unsigned char>(a[i])) && absl::ascii_isdigit(static_cast<unsigned char>(b[j]))) {
      uint64_t x = 0, y = 0;
      while (i < a.size() && absl::ascii_isdigit(static_cast<unsigned char>(a[i]))) x = x * 10 + (a[i++] - '0');
      while (j < b.size() && absl::ascii_isdigit(static_cast<unsigned char>(b[j]))) y = y * 10 + (b[j++] - '0');
      if (x != y) return x < y ? -1 : 1;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
    ++i, ++j;
  }
  return (i < a.size()) - (j < b.size());
}

std::string NewestInFamily(const std::vector<VersionDef>& defs, absl::string_view wanted) {
  const absl::string_view family = VersionFamily(wanted);
  std::string newest;
  for (const VersionDef& d : defs) {
    if ((d.flags & elf::VER_FLG_BASE) || VersionFamily(d.name) != family || family.empty()) continue;
    if (newest.empty() || CompareVersionNames(newest, d.name) < 0) newest = std::string(d.name);
  }
  return newest;
}

std::string VersionMeaning(absl::string_view version, absl::string_view library) {
  const absl::string_view family = VersionFamily(version);
  if (family == "GLIBCXX_" || family == "CXXABI_") {
    return absl::StrCat("the module was built with a newer GCC (libstdc++) than the one whose ", library,
                        " is loaded; build it with the target's toolchain (e.g. a manylinux image), or "
                        "run where a newer libstdc++.so.6 is installed");
  }
  if (family == "GLIBC_") {
    return "the module was built against a newer glibc than this one; build it on an older base "
           "(e.g. a manylinux image for the oldest glibc you support)";
  }
  return absl::StrCat("the module was built against a newer ", library, " than this one");
}

std::vector<std::string> DescribeDifferences(const FunctionParts& wanted, const FunctionParts& found) {
  std::vector<std::string> out;
  if (wanted.context != found.context) {
    out.push_back(absl::StrCat("scope: ", wanted.context, " → ", found.context));
  }
  if (wanted.params.size() != found.params.size()) {
    auto n = [](size_t k) { return absl::StrFormat("%d parameter%s", k, k == 1 ? "" : "s"); };
    out.push_back(absl::StrCat(n(wanted.params.size()), " → ", n(found.params.size())));
  }
  for (size_t i = 0; i < std::min(wanted.params.size(), found.params.size()); ++i) {
    if (wanted.params[i] != found.params[i]) {
      out.push_back(absl::StrFormat("parameter %d: %s → %s", i + 1, wanted.params[i], found.params[i]));
    }
  }
  if (wanted.qualifiers != found.qualifiers) {
    auto q = [](const std::string& s) { return s.empty() ? std::string("(none)") : std::string(absl::StripLeadingAsciiWhitespace(s)); };
    out.push_back(absl::StrCat("qualifiers: ", q(wanted.qualifiers), " → ", q(found.qualifiers)));
  }
  if (wanted.return_type != found.return_type) {
    out.push_back(absl::StrCat("return type: ", wanted.return_type, " → ", found.return_type));
  }
  return out;
}

void DiagnoseProblems(const Loader& loader, const std::vector<const Object*>& scope, Report* report) {
  const absl::flat_hash_set<const Object*> in_scope(scope.begin(), scope.end());
  absl::flat_hash_set<std::string> missing_versions;
  for (const Problem& p : report->problems) {
    if (p.kind == ProblemKind::kVersionNotFound) missing_versions.insert(p.version);
  }
  int diagnosed = 0;
  for (Problem& p : report->problems) {
    if (p.kind == ProblemKind::kMissingLibrary && p.hint.empty()) {
      p.hint = absl::StrCat("no file named ", p.library,
                            " among the given libraries or on the search path");
    }
    if (p.kind == ProblemKind::kVersionNotFound) {
      for (const auto& o : loader.objects()) {
        if (o->path != p.library) continue;
        std::string newest = NewestInFamily(o->syms->version_defs(), p.version);
        const std::string lib = Basename(o->path);
        if (newest.empty()) {
          p.hint = absl::StrCat(lib, " defines no ", VersionFamily(p.version), "* version");
        } else {
          p.hint = absl::StrCat("needs ", p.version, "; ", lib, " provides up to ", newest, ": ",
                                VersionMeaning(p.version, lib));
        }
        break;
      }
    }
    if (p.kind != ProblemKind::kUndefinedSymbol || diagnosed >= kMaxDiagnosed) continue;
    ++diagnosed;
    HashedName name(p.symbol);
    // 1. Defined with the same name, but in a loaded library outside the module's scope.
    for (const auto& o : loader.objects()) {
      if (in_scope.contains(o.get()) || p.candidates.size() >= kMaxCandidates) continue;
      std::optional<Symbol> s = loader.LookupIn(*o, name, nullptr, false);
      if (!s) continue;
      Candidate c;
      c.symbol = p.symbol;
      c.demangled = p.demangled;
      c.library = o->path;
      c.version = VersionOf(*o, s->index);
      c.relation = "not_in_scope";
      p.candidates.push_back(c);
      std::string flag = LinkFlag(o->elf->soname().empty() ? o->path : o->elf->soname());
      p.hint = absl::StrCat("defined in ", Basename(o->path), ", which ", Basename(p.object),
                            " does not list in DT_NEEDED; libraries loaded RTLD_LOCAL are not "
                            "visible to it",
                            flag.empty() ? "" : absl::StrCat(": link it (", flag, ")"));
    }
    // 2. The same name in scope under other versions.
    if (!p.version.empty()) {
      for (const Object* o : scope) {
        o->syms->ForEachNamed(name, [&](uint32_t idx) {
          Symbol s = o->syms->GetOrEmpty(idx);
          if (!Exported(s) || p.candidates.size() >= kMaxCandidates) return false;
          Candidate c;
          c.symbol = p.symbol;
          c.demangled = p.demangled;
          c.library = o->path;
          c.version = VersionOf(*o, idx);
          c.relation = "version_differs";
          c.differences.push_back(absl::StrCat("version: ", p.version, " → ",
                                               c.version.empty() ? "(unversioned)" : c.version));
          p.candidates.push_back(c);
          return false;
        });
      }
    }
    // 3. The same qualified C++ function with another signature, anywhere loaded.
    FunctionParts wanted;
    if (p.candidates.empty() && SplitFunction(p.symbol, &wanted) && !wanted.base.empty()) {
      const std::string token = absl::StrCat(wanted.base.size(), wanted.base);
      for (const auto& o : loader.objects()) {
        const SymbolTable& t = *o->syms;
        for (uint32_t i = 0; i < t.size() && p.candidates.size() < kMaxSignatureCandidates; ++i) {
          std::optional<Symbol> s = t.Get(i);
          if (!s || !Exported(*s) || s->name == p.symbol || !absl::StartsWith(s->name, "_Z") ||
              s->name.find(token) == absl::string_view::npos) {
            continue;
          }
          FunctionParts found;
          if (!SplitFunction(s->name, &found) || found.base != wanted.base) continue;
          std::vector<std::string> diff = DescribeDifferences(wanted, found);
          if (diff.empty() || (found.context != wanted.context && diff.size() > 1)) continue;
          Candidate c;
          c.symbol = std::string(s->name);
          c.demangled = Demangle(s->name);
          c.library = o->path;
          c.version = VersionOf(*o, i);
          c.relation = found.context == wanted.context ? "signature_changed" : "scope_changed";
          c.differences = std::move(diff);
          p.candidates.push_back(std::move(c));
        }
      }
      // Closest first; a candidate with more differences than the best one is noise.
      std::stable_sort(p.candidates.begin(), p.candidates.end(), [](const Candidate& a, const Candidate& b) {
        return a.differences.size() < b.differences.size();
      });
      while (p.candidates.size() > 1 && p.candidates.back().differences.size() > p.candidates.front().differences.size()) {
        p.candidates.pop_back();
      }
      if (!p.candidates.empty()) {
        const Candidate& c = p.candidates.front();
        p.hint = c.relation == "signature_changed"
                     ? absl::StrCat(Basename(p.object), " was compiled against another declaration of ",
                                    wanted.base, ": rebuild it against ", Basename(c.library),
                                    ", or use the build it was compiled for")
                     : absl::StrCat(wanted.base, " moved to another namespace or class in ",
                                    Basename(c.library));
      }
    }
    if (p.candidates.size() > kMaxCandidates) p.candidates.resize(kMaxCandidates);
    if (p.candidates.empty() && p.hint.empty()) {
      p.hint = missing_versions.contains(p.version)
                   ? absl::StrCat("it comes with version ", p.version, ", which the loaded library does not define (above)")
                   : "no library in the load exports this name, under any version";
    }
  }
}

}  // namespace abicheck
