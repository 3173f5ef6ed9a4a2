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

std::vector<std::string> DescribeDifferences(const FunctionParts& wanted, const FunctionParts& found) {
  std::vector<std::string> out;
  if (wanted.context != found.context) {
    out.push_back(absl::StrCat("scope: ", wanted.context, " → ", found.context));
  }
  if (wanted.params.size() != found.params.size()) {
    out.push_back(absl::StrFormat("%d parameters → %d parameters", wanted.params.size(), found.params.size()));
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
  int diagnosed = 0;
  for (Problem& p : report->problems) {
    if (p.kind == ProblemKind::kMissingLibrary && p.hint.empty()) {
      p.hint = absl::StrCat("no file named ", p.library,
                            " among the given libraries or on the search path");
    }
    if (p.kind == ProblemKind::kVersionNotFound) {
      std::string newest;
      for (const auto& o : loader.objects()) {
        if (o->path != p.library) continue;
        for (const VersionDef& d : o->syms->version_defs()) {
          if (!(d.flags & elf::VER_FLG_BASE)) newest = std::string(d.name);
        }
      }
      if (!newest.empty()) {
        p.hint = absl::StrCat(Basename(p.library), " defines versions up to ", newest,
                              ": the module was built against a newer one");
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
        for (uint32_t i = 0; i < t.size() && p.candidates.size() < kMaxCandidates; ++i) {
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
    if (p.candidates.empty() && p.hint.empty()) {
      p.hint = "no library in the load exports this name, under any version";
    }
  }
}

}  // namespace abicheck
