// Nearest-candidate search for undefined symbols: the same name outside the module's scope
// (a library it does not list), the same name under another version, or the same qualified C++
// function with another signature.
#include "lib/diagnose/diagnose.h"

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/elf/elf_constants.h"
#include "lib/resolve/world.h"
#include "lib/symbols/source_names.h"
#include "lib/util/paths.h"

namespace abicheck {
namespace {

// Diagnosis is for people: past this many undefined symbols the first ones are explained.
constexpr int kMaxDiagnosed = 256;
constexpr size_t kMaxCandidates = 3;
// Signature candidates equally near kept for ranking, and how many definitions of the same base
// name are looked at for them (overload sets and template instances can be large).
constexpr size_t kMaxSignatureCandidates = 16;
constexpr size_t kMaxSignatureHits = 1024;

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
  return slot != nullptr && slot->defined && (o.syms->Versym(idx) & 0x7fff) > 1
             ? std::string(slot->name)
             : "";
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
    if (absl::ascii_isdigit(static_cast<unsigned char>(a[i])) &&
        absl::ascii_isdigit(static_cast<unsigned char>(b[j]))) {
      uint64_t x = 0, y = 0;
      while (i < a.size() && absl::ascii_isdigit(static_cast<unsigned char>(a[i])))
        x = x * 10 + (a[i++] - '0');
      while (j < b.size() && absl::ascii_isdigit(static_cast<unsigned char>(b[j])))
        y = y * 10 + (b[j++] - '0');
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
    if ((d.flags & elf::VER_FLG_BASE) || VersionFamily(d.name) != family || family.empty())
      continue;
    if (newest.empty() || CompareVersionNames(newest, d.name) < 0) newest = std::string(d.name);
  }
  return newest;
}

std::string TorchReleaseOfSoname(absl::string_view soname) {
  for (absl::string_view lib :
       {"libc10.so.", "libc10_cuda.so.", "libtorch.so.", "libtorch_cpu.so.", "libtorch_cuda.so.",
        "libtorch_python.so.", "libshm.so.", "libtorch_global_deps.so."}) {
    if (!absl::StartsWith(soname, lib)) continue;
    absl::string_view v = soname.substr(lib.size());
    const size_t dot = v.find('.');
    if (dot == absl::string_view::npos || dot == 0) return "";
    const size_t end = v.find('.', dot + 1);
    absl::string_view major_minor = v.substr(0, end);
    for (char c : major_minor) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c)) && c != '.') return "";
    }
    return std::string(major_minor);
  }
  return "";
}

std::string VersionHint(const std::vector<VersionDef>& defs, absl::string_view wanted,
                        absl::string_view library) {
  // The library's versions of the wanted one's family, oldest and newest: the wanted version is
  // newer than all of them (the module was built against a newer library), older than all of
  // them (an older library's version that this one dropped), between them (a gap), or of a
  // family this library does not have at all (another library altogether).
  const absl::string_view family = VersionFamily(wanted);
  std::string oldest, newest;
  std::vector<std::string> others;
  for (const VersionDef& d : defs) {
    if (d.flags & elf::VER_FLG_BASE) continue;
    if (family.empty() || VersionFamily(d.name) != family) {
      if (others.size() < 4) others.emplace_back(d.name);
      continue;
    }
    if (oldest.empty() || CompareVersionNames(d.name, oldest) < 0) oldest = std::string(d.name);
    if (newest.empty() || CompareVersionNames(newest, d.name) < 0) newest = std::string(d.name);
  }
  if (newest.empty()) {
    return absl::StrCat(
        library, " defines no ", family.empty() ? std::string(wanted) : absl::StrCat(family, "*"),
        " version",
        others.empty() ? std::string(" (it has no version definitions)")
                       : absl::StrCat(" (its versions: ", absl::StrJoin(others, ", "), ")"),
        ": the module was built against another library of that name");
  }
  if (CompareVersionNames(wanted, newest) > 0) {
    return absl::StrCat("needs ", wanted, "; ", library, " provides up to ", newest, ": ",
                        VersionMeaning(wanted, library));
  }
  if (CompareVersionNames(wanted, oldest) < 0) {
    return absl::StrCat("needs ", wanted, "; ", library, "'s versions are newer (", oldest,
                        oldest == newest ? "" : absl::StrCat(" to ", newest),
                        "): the module was built against an older ", library,
                        " whose version this one no longer defines");
  }
  return absl::StrCat("needs ", wanted, "; ", library, " defines ", oldest, " to ", newest,
                      " but not ", wanted, ": the module was built against a different build of ",
                      library);
}

std::string VersionMeaning(absl::string_view version, absl::string_view library) {
  const absl::string_view family = VersionFamily(version);
  if (family == "GLIBCXX_" || family == "CXXABI_") {
    return absl::StrCat(
        "the module was built with a newer GCC (libstdc++) than the one whose ", library,
        " is loaded; build it with the target's toolchain (e.g. a manylinux image), or "
        "run where a newer libstdc++.so.6 is installed");
  }
  if (family == "GLIBC_") {
    return "the module was built against a newer glibc than this one; build it on an older base "
           "(e.g. a manylinux image for the oldest glibc you support)";
  }
  return absl::StrCat("the module was built against a newer ", library, " than this one");
}

std::vector<Difference> DescribeDifferences(const FunctionParts& wanted,
                                            const FunctionParts& found) {
  using Kind = Difference::Kind;
  std::vector<Difference> out;
  if (wanted.base != found.base) {
    auto tag = [](const std::string& b) {
      size_t at = b.find("[abi:");
      return at == std::string::npos ? std::string() : b.substr(at);
    };
    out.push_back({Kind::kAbiTag, 0, tag(wanted.base), tag(found.base)});
  }
  if (wanted.context != found.context) {
    out.push_back({Kind::kScope, 0, wanted.context, found.context});
  }
  if (wanted.template_args != found.template_args) {
    out.push_back({Kind::kTemplateArguments, 0, wanted.template_args, found.template_args});
  }
  if (wanted.params.size() != found.params.size()) {
    out.push_back({Kind::kParameterCount, 0, absl::StrCat(wanted.params.size()),
                   absl::StrCat(found.params.size())});
  }
  for (size_t i = 0; i < std::min(wanted.params.size(), found.params.size()); ++i) {
    if (wanted.params[i] != found.params[i])
      out.push_back({Kind::kParameter, static_cast<int>(i + 1), wanted.params[i], found.params[i]});
  }
  if (wanted.qualifiers != found.qualifiers) {
    auto q = [](const std::string& s) { return std::string(absl::StripLeadingAsciiWhitespace(s)); };
    out.push_back({Kind::kQualifiers, 0, q(wanted.qualifiers), q(found.qualifiers)});
  }
  // Only a function template's instance mangles its return type: "" beside one is no change.
  if (wanted.return_type != found.return_type && !wanted.return_type.empty() &&
      !found.return_type.empty()) {
    out.push_back({Kind::kReturnType, 0, wanted.return_type, found.return_type});
  }
  return out;
}

std::optional<Difference> AbiTagChange(absl::string_view from, absl::string_view to) {
  const bool a = absl::StrContains(from, "[abi:cxx11]"), b = absl::StrContains(to, "[abi:cxx11]");
  if (a == b) return std::nullopt;
  return Difference{Difference::Kind::kAbiTag, 0, a ? "[abi:cxx11]" : "", b ? "[abi:cxx11]" : ""};
}

namespace {

// How many differences DescribeDifferences(wanted, found) lists, counted no further than `limit`
// and without making their words: most candidates of another scope are rejected on this.
size_t CountDifferences(const FunctionParts& wanted, const FunctionParts& found, size_t limit) {
  size_t n = (wanted.base != found.base) + (wanted.context != found.context) +
             (wanted.template_args != found.template_args) +
             (wanted.params.size() != found.params.size()) +
             (wanted.qualifiers != found.qualifiers) +
             (wanted.return_type != found.return_type && !wanted.return_type.empty() &&
              !found.return_type.empty());
  for (size_t i = 0; i < std::min(wanted.params.size(), found.params.size()) && n < limit; ++i)
    n += wanted.params[i] != found.params[i];
  return n;
}

// The std::string ABI a set of mangled names was built with. C++11: the __cxx11 inline namespace
// (St7__cxx11) or the [abi:cxx11] tag (B5cxx11); pre-C++11: std::string as the Ss abbreviation,
// which demangles to "std::string" (the new one demangles to std::__cxx11::basic_string).
struct AbiVotes {
  int cxx11 = 0, old = 0;
  // The nearest candidate differs only by the [abi:cxx11] tag, added (`to_cxx11`) or dropped.
  static bool OnlyCxx11Tag(const Candidate& c, bool to_cxx11) {
    if (c.differences.size() != 1 || c.differences[0].kind != Difference::Kind::kAbiTag)
      return false;
    const Difference& d = c.differences[0];
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
  void AddProblem(const Problem& p, uint8_t markers) {
    const int before = cxx11 + old;
    Add(p.symbol, p.demangled);
    if (cxx11 + old != before || p.candidates.empty()) return;
    const Candidate& c = p.candidates.front();
    if (OnlyCxx11Tag(c, true) && (markers & 1) == 0) ++old;
    if (OnlyCxx11Tag(c, false) && (markers & 2) == 0) ++cxx11;
  }
  static StringAbi StringAbiOf(bool cxx11, bool old) {
    return cxx11 && old ? StringAbi::kMixed
           : cxx11      ? StringAbi::kCxx11
           : old        ? StringAbi::kPreCxx11
                        : StringAbi::kUnknown;
  }
};

// docs/json-schema.md, "string_abi": the module's side is what the objects whose references
// miss spell in their own names, and what their misses say when their names say nothing.
void ClassifyStringAbi(const std::vector<const Object*>& scope, Report* report) {
  // Scanning string tables costs more than the rest of a check: only when a miss involves
  // std::string, or differs from its nearest candidate by the [abi:cxx11] tag alone.
  AbiVotes any;
  for (const Problem& p : report->problems) {
    if (p.kind == ProblemKind::kUndefinedSymbol) any.AddProblem(p, 0);
  }
  if (any.cxx11 == 0 && any.old == 0) return;
  // A provider's ABI from its string table alone: the __cxx11 markers are unambiguous; without
  // them, a library that uses std::string at all has the Ss abbreviation in its names.
  uint8_t providers = 0;
  for (const Object* o : scope) {
    if (!o->preexisting || o->host || o->found_by == FoundBy::kModule) continue;
    providers |= o->syms->StringAbiMarkers();
  }
  report->providers_string_abi = AbiVotes::StringAbiOf(providers & 1, providers & 2);
  // The referring object's own spelling (StringAbiMarkers scans its strings once per table).
  absl::flat_hash_map<absl::string_view, const Object*> by_path;
  for (const Object* o : scope) by_path.emplace(o->path, o);
  auto markers_of = [&](const Problem& p) -> uint8_t {
    auto it = by_path.find(p.object);
    return it == by_path.end() ? 0 : it->second->syms->StringAbiMarkers();
  };
  AbiVotes module;
  uint8_t module_markers = 0;
  for (const Problem& p : report->problems) {
    if (p.kind != ProblemKind::kUndefinedSymbol) continue;
    const uint8_t m = markers_of(p);
    module_markers |= m;
    module.AddProblem(p, m);
  }
  report->module_string_abi = AbiVotes::StringAbiOf(module.cxx11 > 0 || (module_markers & 1),
                                                    module.old > 0 || (module_markers & 2));
  // One cause for every miss that takes or returns an old-ABI std::string, when the providers
  // were built with the C++11 ABI (and the reverse).
  const bool old_vs_new = module.old > 0 && report->providers_string_abi == StringAbi::kCxx11;
  const bool new_vs_old = module.cxx11 > 0 && report->providers_string_abi == StringAbi::kPreCxx11;
  if (!old_vs_new && !new_vs_old) return;
  Cause c;
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
  for (Problem& p : report->problems) {
    if (p.kind != ProblemKind::kUndefinedSymbol) continue;
    AbiVotes v;
    v.AddProblem(p, markers_of(p));
    if ((old_vs_new && v.old > 0) || (new_vs_old && v.cxx11 > 0)) {
      p.cause = c.id;
      ++c.problems;
    }
  }
  if (c.problems > 0) report->causes.push_back(std::move(c));
}

}  // namespace

namespace {

// A base-name hit: symbol `index` of a table, whose name holds the wanted source name where a
// base name can be, in the scope `context` (ContextKey).
struct BaseNameHit {
  uint32_t index;
  uint32_t context;
  bool operator==(const BaseNameHit& o) const { return index == o.index && context == o.context; }
};

// A table's exported C++ symbols by the source names in their mangled names that can be a
// function's base name (MayBeBaseName), each with the key of its scope (ContextKey). An index
// stores these buckets (docs/index-format.md, "Base names"): then a lookup reads them. Otherwise
// they are built once per table and call (ParseCache), over every exported name of torch's
// libraries, so flat: one (hash, symbol index) entry per such name, bucketed by the hash (a
// counting sort), with no allocation per name; the scopes are made for the few names a lookup
// matches.
class TokenIndex {
 public:
  // The table's stored buckets (an index's), or nullptr.
  static const ExternalLibrary* Stored(const SymbolTable& t) {
    if (!t.external()) return nullptr;
    const ExternalLibrary& ext = t.external_library();
    return ext.symbols->ForEachWithBaseName(ext.library, 0, [](uint32_t, uint32_t) {}) ? &ext
                                                                                       : nullptr;
  }

  explicit TokenIndex(const SymbolTable& t) : table_(t), stored_(Stored(t)) {
    if (stored_ != nullptr) return;
    std::vector<uint64_t> flat;
    t.ForEachExportedNameInStringOrder([&](uint32_t index, absl::string_view name) {
      if (!absl::StartsWith(name, "_Z")) return;
      ForEachSourceName(name, [&](absl::string_view token) {
        if (MayBeBaseName(name, token))
          flat.push_back(uint64_t{SourceNameHash(token)} << 32 | index);
      });
    });
    size_t buckets = 1;
    while (buckets < flat.size() / 2) buckets <<= 1;
    mask_ = static_cast<uint32_t>(buckets - 1);
    starts_.assign(buckets + 1, 0);
    for (uint64_t e : flat) ++starts_[Bucket(e) + 1];
    for (size_t b = 0; b < buckets; ++b) starts_[b + 1] += starts_[b];
    entries_.resize(flat.size());
    std::vector<uint32_t> next(starts_.begin(), starts_.end() - 1);
    for (uint64_t e : flat) entries_[next[Bucket(e)]++] = e;
  }

  // Calls f(hit) for each exported symbol whose mangled name holds `token` where a base name can
  // be (MayBeBaseName), in table order, once per place (an index's stored buckets: a token with
  // its hash; the caller compares names).
  template <typename F>
  void ForEach(absl::string_view token, F&& f) const {
    const uint32_t h = SourceNameHash(token);
    std::vector<BaseNameHit> found;
    if (stored_ != nullptr) {
      stored_->symbols->ForEachWithBaseName(stored_->library, h, [&](uint32_t i, uint32_t c) {
        found.push_back({i, c});
      });
      std::sort(found.begin(), found.end(), [](const BaseNameHit& x, const BaseNameHit& y) {
        return x.index != y.index ? x.index < y.index : x.context < y.context;
      });
      found.erase(std::unique(found.begin(), found.end()), found.end());
      for (const BaseNameHit& hit : found) f(hit);
      return;
    }
    if (starts_.empty()) return;
    std::vector<uint32_t> indexes;
    const uint32_t b = h & mask_;
    for (uint32_t k = starts_[b]; k < starts_[b + 1]; ++k) {
      if (static_cast<uint32_t>(entries_[k] >> 32) == h)
        indexes.push_back(static_cast<uint32_t>(entries_[k]));
    }
    std::sort(indexes.begin(), indexes.end());
    indexes.erase(std::unique(indexes.begin(), indexes.end()), indexes.end());
    // The scope of each place the token sits, from the name: made for the few that match, not
    // for every name of the table.
    for (uint32_t index : indexes) {
      std::optional<Symbol> sym = table_.Get(index);
      if (!sym) continue;
      ForEachSourceName(sym->name, [&](absl::string_view t) {
        if (t == token && MayBeBaseName(sym->name, t))
          f(BaseNameHit{index, ContextKey(sym->name, t)});
      });
    }
  }

 private:
  uint32_t Bucket(uint64_t e) const { return static_cast<uint32_t>(e >> 32) & mask_; }

  const SymbolTable& table_;
  const ExternalLibrary* stored_ = nullptr;  // the table's own buckets (an index's)
  uint32_t mask_ = 0;
  std::vector<uint32_t> starts_;   // bucket -> its first entry; starts_[b + 1] ends it
  std::vector<uint64_t> entries_;  // (hash << 32) | symbol index, by bucket
};

}  // namespace

void PrepareDiagnosis(const std::vector<const SymbolTable*>& tables, ParseCache* cache) {
  if (std::thread::hardware_concurrency() < 2) return;
  std::vector<const SymbolTable*> work;
  std::vector<std::promise<std::shared_ptr<const void>>> done;
  for (const SymbolTable* t : tables) {
    if (t == nullptr || t->external()) continue;
    work.push_back(t);
    done.emplace_back();
    cache->Pending(t, ParseCache::MemoKind::kSourceNames, done.back().get_future().share());
  }
  if (work.empty()) return;
  cache->KeepUntilDone(std::async(std::launch::async, [work, done = std::move(done)]() mutable {
    for (size_t i = 0; i < work.size(); ++i) {
      work[i]->StringAbiMarkers();  // kept in the table itself (an atomic)
      done[i].set_value(std::make_shared<const TokenIndex>(*work[i]));
    }
  }));
}

namespace {

const TokenIndex& TokensOf(const SymbolTable& t, ParseCache* cache) {
  std::shared_ptr<const void>& slot = cache->Memo(&t, ParseCache::MemoKind::kSourceNames);
  if (slot == nullptr) slot = std::make_shared<TokenIndex>(t);
  return *static_cast<const TokenIndex*>(slot.get());
}

// Exported C++ symbols of every loaded object, bucketed by the source names the problems need,
// built in one pass over the symbol tables (not a scan per problem).
class CandidateIndex {
 public:
  CandidateIndex(const Loader& loader, const absl::flat_hash_set<std::string>& wanted) {
    if (wanted.empty()) return;
    shared_ = loader.shared_parses();
    for (const Object* o : loader.loaded()) {
      if (shared_ != nullptr || TokenIndex::Stored(*o->syms) != nullptr) {
        // Checks of one call share the objects: their names by base name are made once (or an
        // index stores them).
        std::optional<TokenIndex> own;
        const TokenIndex& tokens =
            shared_ != nullptr ? TokensOf(*o->syms, shared_) : own.emplace(*o->syms);
        for (const std::string& w : wanted) {
          tokens.ForEach(w, [&](BaseNameHit h) { buckets_[w].push_back({o, h.index, h.context}); });
        }
      } else {
        Scan(o, wanted);
      }
    }
  }

  // A symbol of a loaded object whose name holds a wanted base name, in the scope `context`.
  struct Hit {
    const Object* object;
    uint32_t index;
    uint32_t context;
    bool operator==(const Hit& o) const {
      return object == o.object && index == o.index && context == o.context;
    }
  };
  // The hits of `token` by object, then in table order.
  const std::vector<Hit>& Find(const std::string& token) const {
    static const std::vector<Hit> kNone;
    auto it = buckets_.find(token);
    return it == buckets_.end() ? kNone : it->second;
  }

  // Symbol `i` of `t` (named `name`) split as a C++ function, nullopt when it is not one: made
  // once per symbol and call. A matrix diagnoses the same overload sets of the same builds for
  // module after module, and demangling them was most of its diagnosis.
  const std::optional<FunctionParts>& Split(const SymbolTable& t, uint32_t i,
                                            absl::string_view name) const {
    std::shared_ptr<SplitMemo>& memo = own_[&t];
    if (memo == nullptr) {
      if (shared_ != nullptr) {
        std::shared_ptr<const void>& slot = shared_->Memo(&t, ParseCache::MemoKind::kSplitNames);
        if (slot == nullptr) slot = std::make_shared<SplitMemo>();
        // The slot is this call's (one thread's) and only ever filled in here.
        memo = std::const_pointer_cast<SplitMemo>(std::static_pointer_cast<const SplitMemo>(slot));
      } else {
        memo = std::make_shared<SplitMemo>();
      }
    }
    auto [it, fresh] = memo->try_emplace(i);
    if (fresh) {
      FunctionParts f;
      if (SplitFunction(name, &f)) it->second = std::move(f);
    }
    return it->second;
  }

 private:
  // One check alone: one pass over a table. Most source names are not wanted: reject them on
  // (length, last byte) before hashing.
  void Scan(const Object* o, const absl::flat_hash_set<std::string>& wanted) {
    if (by_length_.empty()) {
      by_length_.resize(1024);
      for (const std::string& w : wanted) {
        if (w.size() < by_length_.size())
          by_length_[w.size()].set(static_cast<unsigned char>(w.back()));
      }
    }
    o->syms->ForEachSymbol([&](const Symbol& s) {
      if (!s.exported() || !absl::StartsWith(s.name, "_Z")) return;
      ForEachSourceName(s.name, [&](absl::string_view token) {
        if (token.size() >= by_length_.size() ||
            !by_length_[token.size()].test(static_cast<unsigned char>(token.back())) ||
            !MayBeBaseName(s.name, token)) {
          return;
        }
        auto it = wanted.find(token);
        if (it != wanted.end()) {
          auto& v = buckets_[*it];
          const Hit hit{o, s.index, ContextKey(s.name, token)};
          if (v.empty() || !(v.back() == hit)) v.push_back(hit);
        }
      });
    });
  }

  using SplitMemo = absl::node_hash_map<uint32_t, std::optional<FunctionParts>>;
  absl::flat_hash_map<std::string, std::vector<Hit>> buckets_;
  std::vector<std::bitset<256>> by_length_;  // Scan's filter
  ParseCache* shared_ = nullptr;
  mutable absl::flat_hash_map<const SymbolTable*, std::shared_ptr<SplitMemo>> own_;
};

// The base-name source names of the undefined C++ functions that may need candidates.
absl::flat_hash_set<std::string> problem_tokens(const Report* report) {
  absl::flat_hash_set<std::string> out;
  int n = 0;
  for (const Problem& p : report->problems) {
    if (p.kind != ProblemKind::kUndefinedSymbol || ++n > kMaxDiagnosed) continue;
    FunctionParts f;
    if (std::optional<FunctionBaseName> base = BaseNameOf(p.symbol, &f)) out.insert(base->token);
  }
  return out;
}

}  // namespace

std::string CauseExamples(const std::vector<Problem*>& members) {
  std::vector<absl::string_view> names;
  for (size_t i = 0; i < members.size() && i < 3; ++i) names.push_back(members[i]->demangled);
  return absl::StrCat(absl::StrJoin(names, ", "), members.size() > 3 ? ", ..." : "");
}

void AddCause(std::string id, std::string summary, const std::vector<Problem*>& members,
              Report* report) {
  for (Problem* p : members) p->cause = id;
  report->causes.push_back({std::move(id), std::move(summary), static_cast<int>(members.size())});
}

namespace {

// One change repeated across an API (int -> long in one parameter of 57 functions; every CUDA
// runtime symbol under libcudart.so.13 instead of .12) is one cause with a count and examples, not
// 57 unrelated findings.
void GroupRepeatedChanges(Report* report) {
  std::vector<std::pair<Difference, std::vector<Problem*>>> groups;
  for (Problem& p : report->problems) {
    if (p.kind != ProblemKind::kUndefinedSymbol || p.candidates.empty() || !p.cause.empty())
      continue;
    const Candidate& c = p.candidates.front();
    if ((c.relation != Relation::kSignatureChanged && c.relation != Relation::kVersionDiffers) ||
        c.differences.size() != 1)
      continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == c.differences.front(); });
    if (it == groups.end()) it = groups.insert(groups.end(), {c.differences.front(), {}});
    it->second.push_back(&p);
  }
  // A version named after a library that is missing (libcudart.so.12's symbols, versioned
  // libcudart.so.12): the misses follow from that one.
  absl::flat_hash_set<std::string> missing;
  for (const Problem& p : report->problems) {
    if (p.kind == ProblemKind::kMissingLibrary) missing.insert(p.library);
  }
  int n = 0;
  for (auto& [change, members] : groups) {
    if (members.size() < kMinCauseMembers) continue;
    std::vector<std::string> examples;
    for (size_t i = 0; i < members.size() && i < 3; ++i) {
      FunctionParts f;
      examples.push_back(SplitFunction(members[i]->symbol, &f) && !f.base.empty()
                             ? absl::StrCat(f.context.empty() ? "" : f.context + "::", f.base)
                             : members[i]->demangled);
    }
    const bool version = change.kind == Difference::Kind::kVersion;
    std::string summary = absl::StrCat(
        "one change, ", DifferenceText(change), ", in ", members.size(),
        version ? " symbols" : " functions", " (e.g. ", absl::StrJoin(examples, ", "),
        members.size() > 3 ? ", ..." : "", "): ",
        !version ? "the module was built against a build that declared them otherwise"
        : missing.contains(change.from)
            ? absl::StrCat("they come with ", change.from, ", which is not here (above); ",
                           "the libraries here define them under ", change.to)
            : absl::StrCat("the module was built against a library that defined them under ",
                           change.from));
    AddCause(absl::StrCat("same_change_", ++n), std::move(summary), members, report);
  }
}

// The undefined symbols whose version the referring object needs from a library that is missing
// (torchcodec's av_* @ LIBAVUTIL_60, from libavutil.so.60): by (object path, version), that file.
using MissingVersionFiles = absl::flat_hash_map<std::pair<std::string, std::string>, std::string>;
MissingVersionFiles VersionsOfMissingLibraries(const Loader& loader, const Report& report) {
  MissingVersionFiles out;
  for (const Problem& m : report.problems) {
    if (m.kind != ProblemKind::kMissingLibrary) continue;
    for (const Object* o : loader.loaded()) {
      if (o->path != m.object) continue;
      for (const VersionNeed& need : o->syms->version_needs()) {
        if (need.file != m.library) continue;
        for (const VersionNeedAux& v : need.aux) out[{m.object, std::string(v.name)}] = m.library;
      }
      break;
    }
  }
  return out;
}

// Three or more such symbols are one cause: they follow from the missing libraries, listed first.
void GroupSymbolsOfMissingLibraries(const MissingVersionFiles& files, Report* report) {
  std::vector<Problem*> members;
  std::vector<std::string> libraries;
  for (Problem& p : report->problems) {
    if (p.kind != ProblemKind::kUndefinedSymbol || !p.candidates.empty() || !p.cause.empty())
      continue;
    auto it = files.find({p.object, p.version});
    if (it == files.end()) continue;
    members.push_back(&p);
    if (std::find(libraries.begin(), libraries.end(), it->second) == libraries.end())
      libraries.push_back(it->second);
  }
  if (members.size() < kMinCauseMembers) return;
  std::string summary =
      absl::StrCat("symbols versioned by ", absl::StrJoin(libraries, ", "),
                   libraries.size() == 1 ? ", which is" : ", which are", " not here (above), e.g. ",
                   CauseExamples(members), ": they fail because ",
                   libraries.size() == 1 ? "it is" : "those are", " missing");
  AddCause("symbols_of_missing_libraries", std::move(summary), members, report);
}

// NVIDIA's libraries whose soname major is the CUDA major (libcudart.so.12 comes with CUDA 12,
// libnvrtc.so.13 with CUDA 13). The others keep majors of their own: CUDA 12 ships
// libcufft.so.11 and CUDA 13 libcufft.so.12; cuDNN's is cuDNN's (libcudnn.so.9 with both).
bool SonameMajorIsCudaMajor(absl::string_view stem) {
  static constexpr absl::string_view kStems[] = {
      "libcudart.so",    "libcublas.so",    "libcublasLt.so", "libnvblas.so", "libnvrtc.so",
      "libnvrtc.alt.so", "libnvJitLink.so", "libcupti.so",    "libnvjpeg.so", "libnvfatbin.so"};
  return absl::c_linear_search(kStems, stem) ||
         (absl::StartsWith(stem, "libnpp") && absl::EndsWith(stem, ".so"));
}

bool IsNvidiaLibrary(absl::string_view base) {
  return absl::StartsWith(base, "libcu") || absl::StartsWith(base, "libnv") ||
         absl::StartsWith(base, "libnccl") || absl::StartsWith(base, "libnpp");
}

// The hints of a missing library: another major of an NVIDIA library (another CUDA), a torch
// release named by a versioned soname, the driver's own libraries, or none found.
void ExplainMissingLibrary(const Loader& loader, Problem& p) {
  const std::string wanted = Basename(p.library);
  if (p.kind == ProblemKind::kMissingLibrary && IsNvidiaLibrary(wanted)) {
    // libnvrtc.so.12 needed, libnvrtc.so.13 loaded: a module built for another CUDA major.
    const std::string stem = SonameStem(wanted);
    for (const Object* o : loader.loaded()) {
      const std::string base = Basename(LibraryName(*o));
      if (stem.empty() || !absl::StartsWith(base, stem + ".") || base == wanted) continue;
      const std::string need_major = wanted.substr(stem.size() + 1),
                        have_major = base.substr(stem.size() + 1);
      p.hint = absl::StrCat(
          "needs ", wanted, "; ", base, " is what is here: ",
          SonameMajorIsCudaMajor(stem)
              ? absl::StrCat("the module was built for CUDA ", need_major,
                             ", this environment has CUDA ", have_major,
                             ". Use a build of the module for this CUDA, or install the CUDA ",
                             need_major, " runtime beside it")
              : absl::StrCat("another major release of that library, from another CUDA than the "
                             "module was built for. Use a build of the module for this CUDA, or "
                             "install ",
                             wanted, " beside it"));
      break;
    }
  }
  if (p.kind == ProblemKind::kMissingLibrary) {
    // A torch library's versioned soname says which torch the module was built for
    // (libc10.so.2.6: torch 2.6, as Debian's and source builds name them).
    if (const std::string release = TorchReleaseOfSoname(p.library); !release.empty()) {
      p.hint = absl::StrCat(p.hint.empty() ? "" : absl::StrCat(p.hint, "; "),
                            "the module was built for torch ", release, " (it names ", p.library,
                            "): check it against a torch ", release,
                            " build, or rebuild it against this one");
    }
  }
  if (p.kind == ProblemKind::kMissingLibrary && p.hint.empty() &&
      (Basename(p.library) == "libcuda.so.1" || Basename(p.library) == "libnvidia-ml.so.1")) {
    // The driver's own libraries: no wheel and no CUDA toolkit provides them.
    p.hint = absl::StrCat(
        p.library,
        " is the NVIDIA driver's library: it comes with the GPU driver (the driver package of "
        "the distribution, or NVIDIA's installer), not with CUDA wheels or the toolkit; on a "
        "machine without the driver, a module that needs it directly cannot be imported");
  }
  if (p.kind == ProblemKind::kMissingLibrary && p.hint.empty()) {
    p.hint = absl::StrCat("no file named ", p.library,
                          " among the given libraries or on the search path");
  }
}

void ExplainVersionNotFound(const Loader& loader, Problem& p) {
  if (p.kind == ProblemKind::kVersionNotFound) {
    for (const Object* o : loader.loaded()) {
      if (o->path != p.library) continue;
      p.hint = VersionHint(o->syms->version_defs(), p.version, Basename(o->path));
      break;
    }
  }
}

// 1. Defined with the same name, but in a loaded library outside the module's scope.
void NotInScopeCandidates(const Loader& loader, const absl::flat_hash_set<const Object*>& in_scope,
                          const HashedName& name, Problem& p) {
  for (const Object* o : loader.loaded()) {
    if (in_scope.contains(o) || p.candidates.size() >= kMaxCandidates) continue;
    std::optional<Symbol> s = loader.LookupIn(*o, name, nullptr, false);
    if (!s) continue;
    Candidate c;
    c.symbol = p.symbol;
    c.demangled = p.demangled;
    c.library = o->path;
    c.version = VersionOf(*o, s->index);
    c.relation = Relation::kNotInScope;
    p.candidates.push_back(c);
    std::string flag = LinkFlag(o->elf->soname().empty() ? o->path : o->elf->soname());
    p.hint = absl::StrCat("defined in ", Basename(o->path), ", which ", Basename(p.object),
                          " does not list in DT_NEEDED; libraries loaded RTLD_LOCAL are not "
                          "visible to it",
                          flag.empty() ? "" : absl::StrCat(": link it (", flag, ")"));
  }
}

// 2. The same name in scope under other versions.
void OtherVersionCandidates(const std::vector<const Object*>& scope, const HashedName& name,
                            Problem& p) {
  if (!p.version.empty()) {
    for (const Object* o : scope) {
      o->syms->ForEachNamed(name, [&](uint32_t idx) {
        Symbol s = o->syms->GetOrEmpty(idx);
        if (!s.exported() || p.candidates.size() >= kMaxCandidates) return false;
        Candidate c;
        c.symbol = p.symbol;
        c.demangled = p.demangled;
        c.library = o->path;
        c.version = VersionOf(*o, idx);
        c.relation = Relation::kVersionDiffers;
        c.differences.push_back({Difference::Kind::kVersion, 0, p.version, c.version});
        p.candidates.push_back(c);
        return false;
      });
    }
  }
}

// 3. The same qualified C++ function with another signature, anywhere loaded: the candidates.
// Those of the wanted scope (by its ContextKeys, `contexts`) are looked at first, and when one of
// them is a candidate the others are not looked at: they would rank after it.
void SignatureCandidates(const CandidateIndex& index, const std::string& token,
                         const FunctionParts& wanted, const std::vector<uint32_t>& contexts,
                         Problem& p) {
  auto consider = [&](const Object* o, uint32_t i) {
    const SymbolTable& t = *o->syms;
    std::optional<Symbol> s = t.Get(i);
    if (!s || s->name == p.symbol) return;
    const std::optional<FunctionParts>& split = index.Split(t, i, s->name);
    if (!split || StripAbiTags(split->base) != StripAbiTags(wanted.base)) return;
    const FunctionParts& found = *split;
    // Another scope is a candidate only when it is the one difference.
    if (found.context != wanted.context && CountDifferences(wanted, found, 2) > 1) return;
    std::vector<Difference> diff = DescribeDifferences(wanted, found);
    if (diff.empty()) {
      if (std::optional<Difference> tag = AbiTagChange(Demangle(p.symbol), Demangle(s->name)))
        diff.push_back(*tag);
    }
    if (diff.empty() || (found.context != wanted.context && diff.size() > 1)) return;
    const Relation relation =
        found.context == wanted.context ? Relation::kSignatureChanged : Relation::kScopeChanged;
    // Only the nearest are kept, as they come: the same qualified name always wins over another
    // one (at::_ops::narrow::call with SymInt parameters, not at::_ops::diagonal_copy::call with
    // the same ones), then fewer differences; a function template has an instance per type, and
    // the nearest (const_data_ptr<int>() for <int, 0>) may come after many others.
    // (r, n) ranks after (than_r, than_n): another name than one of the same, or more differences.
    auto worse = [](Relation r, size_t n, Relation than_r, size_t than_n) {
      const bool same = r == Relation::kSignatureChanged,
                 than_same = than_r == Relation::kSignatureChanged;
      return (than_same && !same) || (same == than_same && n > than_n);
    };
    const size_t n = diff.size();
    if (std::any_of(p.candidates.begin(), p.candidates.end(), [&](const Candidate& k) {
          return worse(relation, n, k.relation, k.differences.size());
        }))
      return;
    p.candidates.erase(std::remove_if(p.candidates.begin(), p.candidates.end(),
                                      [&](const Candidate& k) {
                                        return worse(k.relation, k.differences.size(), relation, n);
                                      }),
                       p.candidates.end());
    if (p.candidates.size() >= kMaxSignatureCandidates) return;  // as near as those kept
    Candidate c;
    c.symbol = std::string(s->name);
    c.demangled = Demangle(s->name);
    c.library = o->path;
    c.version = VersionOf(*o, i);
    c.relation = relation;
    c.differences = std::move(diff);
    p.candidates.push_back(std::move(c));
  };
  const std::vector<CandidateIndex::Hit>& hits = index.Find(token);
  auto in_scope = [&](const CandidateIndex::Hit& h) {
    return std::find(contexts.begin(), contexts.end(), h.context) != contexts.end();
  };
  absl::flat_hash_set<std::pair<const Object*, uint32_t>> seen;
  for (bool scope_pass : {true, false}) {
    for (const CandidateIndex::Hit& h : hits) {
      if (seen.size() >= kMaxSignatureHits) return;
      if (scope_pass && !in_scope(h)) continue;
      if (seen.insert({h.object, h.index}).second) consider(h.object, h.index);
    }
    if (std::any_of(p.candidates.begin(), p.candidates.end(),
                    [](const Candidate& c) { return c.relation == Relation::kSignatureChanged; })) {
      return;
    }
  }
}

// Complete- and base-object constructors (C1, C2) and destructors (D1, D2) demangle alike: of the
// candidates that read the same in the same library, the one mangled most like the wanted name
// stays (its own variant: a C1 reference binds to a C1 definition only), the others go.
void DropSameReading(Problem& p) {
  auto shared = [&](const Candidate& c) {
    const auto [w, s] =
        std::mismatch(p.symbol.begin(), p.symbol.end(), c.symbol.begin(), c.symbol.end());
    return w - p.symbol.begin();
  };
  std::vector<Candidate> kept;
  for (Candidate& c : p.candidates) {
    auto same = std::find_if(kept.begin(), kept.end(), [&](const Candidate& k) {
      return k.demangled == c.demangled && k.library == c.library;
    });
    if (same == kept.end()) {
      kept.push_back(std::move(c));
    } else if (shared(c) > shared(*same)) {
      *same = std::move(c);
    }
  }
  p.candidates = std::move(kept);
}

// SignatureCandidates kept only the nearest, equally near: one reading each, and the hint.
void FinishSignatureCandidates(const FunctionParts& wanted, Problem& p) {
  DropSameReading(p);
  if (!p.candidates.empty()) {
    const Candidate& c = p.candidates.front();
    p.hint = c.relation == Relation::kSignatureChanged
                 ? absl::StrCat(Basename(p.object), " was compiled against another declaration of ",
                                wanted.base, ": rebuild it against ", Basename(c.library),
                                ", or use the build it was compiled for")
                 : absl::StrCat(wanted.base, " moved to another namespace or class in ",
                                Basename(c.library));
  }
}

}  // namespace

void DiagnoseProblems(const Loader& loader, const std::vector<const Object*>& scope,
                      Report* report) {
  std::unique_ptr<CandidateIndex> index;
  const absl::flat_hash_set<const Object*> in_scope(scope.begin(), scope.end());
  absl::flat_hash_set<std::string> missing_versions;
  for (const Problem& p : report->problems) {
    if (p.kind == ProblemKind::kVersionNotFound) missing_versions.insert(p.version);
  }
  const MissingVersionFiles missing_files = VersionsOfMissingLibraries(loader, *report);
  int diagnosed = 0, undiagnosed = 0;
  for (Problem& p : report->problems) {
    if (p.kind == ProblemKind::kMissingLibrary) ExplainMissingLibrary(loader, p);
    if (p.kind == ProblemKind::kVersionNotFound) ExplainVersionNotFound(loader, p);
    if (p.kind != ProblemKind::kUndefinedSymbol) continue;
    if (diagnosed >= kMaxDiagnosed) {
      ++undiagnosed;
      continue;
    }
    ++diagnosed;
    HashedName name(p.symbol);
    NotInScopeCandidates(loader, in_scope, name, p);
    if (!p.version.empty()) OtherVersionCandidates(scope, name, p);
    FunctionParts wanted;
    std::optional<FunctionBaseName> base;
    if (p.candidates.empty() && (base = BaseNameOf(p.symbol, &wanted))) {
      if (index == nullptr)
        index = std::make_unique<CandidateIndex>(loader, problem_tokens(report));
      SignatureCandidates(*index, base->token, wanted, base->contexts, p);
      FinishSignatureCandidates(wanted, p);
    }
    if (p.candidates.size() > kMaxCandidates) p.candidates.resize(kMaxCandidates);
    if (p.candidates.empty() && p.hint.empty()) {
      const auto file =
          p.version.empty() ? missing_files.end() : missing_files.find({p.object, p.version});
      p.hint = file != missing_files.end()
                   ? absl::StrCat("it comes with ", file->second, " (version ", p.version,
                                  "), which is not here (above)")
               : missing_versions.contains(p.version)
                   ? absl::StrCat("it comes with version ", p.version,
                                  ", which the loaded library does not define (above)")
               : IsTorchShimName(p.symbol)
                   // torch/csrc/stable/c/shim_function_versions.txt: the stable C shim gains
                   // functions release by release (removals wait years of deprecation).
                   ? "a function of torch's stable C shim that this torch does not have: the "
                     "module was built against a newer torch; use that torch or a newer one"
                   : std::string(kNotExportedHint);
    }
  }
  if (undiagnosed > 0) {
    // The cap is said, not silent: the rest are listed with ld.so's words only.
    report->warnings.push_back(
        {report->module,
         absl::StrFormat("diagnosis stopped after %d undefined symbols: the other %d are listed "
                         "without nearest candidates",
                         kMaxDiagnosed, undiagnosed)});
  }
  GroupRepeatedChanges(report);
  GroupSymbolsOfMissingLibraries(missing_files, report);
  ClassifyStringAbi(scope, report);
  for (Problem& p : report->problems) {
    if (p.cause == "cxx11_string_abi") {
      p.hint = "a std::string ABI mismatch (the cause above), not a change in this function";
    }
  }
}

}  // namespace abicheck
