// Nearest-candidate search for undefined symbols: the same name outside the module's scope
// (a library it does not list), the same name under another version, or the same qualified C++
// function with another signature.
#include "lib/diagnose/diagnose.h"

#include <algorithm>
#include <atomic>
#include <bitset>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/diagnose/diagnose_internal.h"
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
  // One job per table, made by whichever thread starts it first: the other core, in order, or a
  // check that needs it before that core got to it (MemoTable::Take) — a check never waits
  // behind the tables of the builds it is not checking.
  struct Job {
    const SymbolTable* table = nullptr;
    std::atomic<bool> started{false};
    std::promise<std::shared_ptr<const void>> done;
    std::shared_ptr<const void> Make() {
      if (started.exchange(true)) return nullptr;
      table->StringAbiMarkers();  // kept in the table itself (an atomic)
      std::shared_ptr<const void> made = std::make_shared<const TokenIndex>(*table);
      done.set_value(made);
      return made;
    }
  };
  auto jobs = std::make_shared<std::deque<Job>>();
  // Builds that pin the same wheel share its parses (ParseCache): each table is made once.
  absl::flat_hash_set<const SymbolTable*> seen;
  for (const SymbolTable* t : tables) {
    if (t == nullptr || t->external() || !seen.insert(t).second) continue;
    Job& job = jobs->emplace_back();
    job.table = t;
    cache->Pending(t, ParseCache::MemoKind::kSourceNames, job.done.get_future().share(),
                   [jobs, &job] { return job.Make(); });
  }
  if (jobs->empty()) return;
  cache->KeepUntilDone(std::async(std::launch::async, [jobs] {
    for (Job& job : *jobs) job.Make();
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
absl::flat_hash_set<std::string> problem_tokens(const Diagnosed* report) {
  absl::flat_hash_set<std::string> out;
  int n = 0;
  for (const DiagnosedFailure& p : report->problems) {
    if (p.kind != FailureKind::kUndefinedSymbol || ++n > kMaxDiagnosed) continue;
    FunctionParts f;
    if (std::optional<FunctionBaseName> base = BaseNameOf(p.symbol, &f)) out.insert(base->token);
  }
  return out;
}

}  // namespace

namespace {

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
// release named by a versioned soname, or none found (the GPU driver's are never missing: C2b).
void ExplainMissingLibrary(const Loader& loader, DiagnosedFailure& p) {
  const std::string wanted = Basename(p.library);
  if (p.kind == FailureKind::kMissingLibrary && IsNvidiaLibrary(wanted)) {
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
  if (p.kind == FailureKind::kMissingLibrary) {
    // A torch library's versioned soname says which torch the module was built for
    // (libc10.so.2.6: torch 2.6, as Debian's and source builds name them).
    if (const std::string release = TorchReleaseOfSoname(p.library); !release.empty()) {
      p.hint = absl::StrCat(p.hint.empty() ? "" : absl::StrCat(p.hint, "; "),
                            "the module was built for torch ", release, " (it names ", p.library,
                            "): check it against a torch ", release,
                            " build, or rebuild it against this one");
    }
  }
  if (p.kind == FailureKind::kMissingLibrary && p.hint.empty()) {
    p.hint = absl::StrCat("no file named ", p.library,
                          " among the given libraries or on the search path");
  }
}

void ExplainVersionNotFound(const Loader& loader, DiagnosedFailure& p) {
  if (p.kind == FailureKind::kVersionNotFound) {
    for (const Object* o : loader.loaded()) {
      if (o->path != p.library) continue;
      p.hint = VersionHint(o->syms->version_defs(), p.version, Basename(o->path));
      break;
    }
  }
}

// 1. Defined with the same name, but in a loaded library outside the module's scope.
void NotInScopeCandidates(const Loader& loader, const absl::flat_hash_set<const Object*>& in_scope,
                          const HashedName& name, DiagnosedFailure& p) {
  for (const Object* o : loader.loaded()) {
    if (in_scope.contains(o) || p.candidates.size() >= kMaxCandidates) continue;
    std::optional<Symbol> s = loader.LookupIn(*o, name, nullptr, false);
    if (!s) continue;
    NearDefinition c;
    c.symbol = p.symbol;
    c.demangled = p.demangled;
    c.library = o->path;
    c.version = VersionOf(*o, s->index);
    c.relation = NearRelation::kNotInScope;
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
                            DiagnosedFailure& p) {
  if (!p.version.empty()) {
    for (const Object* o : scope) {
      o->syms->ForEachNamed(name, [&](uint32_t idx) {
        Symbol s = o->syms->GetOrEmpty(idx);
        if (!s.exported() || p.candidates.size() >= kMaxCandidates) return false;
        NearDefinition c;
        c.symbol = p.symbol;
        c.demangled = p.demangled;
        c.library = o->path;
        c.version = VersionOf(*o, idx);
        c.relation = NearRelation::kVersionDiffers;
        c.differences.push_back({PartChange::Kind::kVersion, 0, p.version, c.version});
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
                         DiagnosedFailure& p) {
  auto consider = [&](const Object* o, uint32_t i) {
    const SymbolTable& t = *o->syms;
    std::optional<Symbol> s = t.Get(i);
    if (!s || s->name == p.symbol) return;
    const std::optional<FunctionParts>& split = index.Split(t, i, s->name);
    if (!split || StripAbiTags(split->base) != StripAbiTags(wanted.base)) return;
    const FunctionParts& found = *split;
    // Another scope is a candidate only when it is the one difference.
    if (found.context != wanted.context && CountDifferences(wanted, found, 2) > 1) return;
    std::vector<PartChange> diff = DescribeDifferences(wanted, found);
    if (diff.empty()) {
      if (std::optional<PartChange> tag = AbiTagChange(Demangle(p.symbol), Demangle(s->name)))
        diff.push_back(*tag);
    }
    if (diff.empty() || (found.context != wanted.context && diff.size() > 1)) return;
    const NearRelation relation = found.context == wanted.context ? NearRelation::kSignatureChanged
                                                                  : NearRelation::kScopeChanged;
    // Only the nearest are kept, as they come: the same qualified name always wins over another
    // one (at::_ops::narrow::call with SymInt parameters, not at::_ops::diagonal_copy::call with
    // the same ones), then fewer differences; a function template has an instance per type, and
    // the nearest (const_data_ptr<int>() for <int, 0>) may come after many others.
    // (r, n) ranks after (than_r, than_n): another name than one of the same, or more differences.
    auto worse = [](NearRelation r, size_t n, NearRelation than_r, size_t than_n) {
      const bool same = r == NearRelation::kSignatureChanged,
                 than_same = than_r == NearRelation::kSignatureChanged;
      return (than_same && !same) || (same == than_same && n > than_n);
    };
    const size_t n = diff.size();
    if (std::any_of(p.candidates.begin(), p.candidates.end(), [&](const NearDefinition& k) {
          return worse(relation, n, k.relation, k.differences.size());
        }))
      return;
    p.candidates.erase(std::remove_if(p.candidates.begin(), p.candidates.end(),
                                      [&](const NearDefinition& k) {
                                        return worse(k.relation, k.differences.size(), relation, n);
                                      }),
                       p.candidates.end());
    if (p.candidates.size() >= kMaxSignatureCandidates) return;  // as near as those kept
    NearDefinition c;
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
    if (std::any_of(p.candidates.begin(), p.candidates.end(), [](const NearDefinition& c) {
          return c.relation == NearRelation::kSignatureChanged;
        })) {
      return;
    }
  }
}

// Complete- and base-object constructors (C1, C2) and destructors (D1, D2) demangle alike: of the
// candidates that read the same in the same library, the one mangled most like the wanted name
// stays (its own variant: a C1 reference binds to a C1 definition only), the others go.
void DropSameReading(DiagnosedFailure& p) {
  auto shared = [&](const NearDefinition& c) {
    const auto [w, s] =
        std::mismatch(p.symbol.begin(), p.symbol.end(), c.symbol.begin(), c.symbol.end());
    return w - p.symbol.begin();
  };
  std::vector<NearDefinition> kept;
  for (NearDefinition& c : p.candidates) {
    auto same = std::find_if(kept.begin(), kept.end(), [&](const NearDefinition& k) {
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
void FinishSignatureCandidates(const FunctionParts& wanted, DiagnosedFailure& p) {
  DropSameReading(p);
  if (!p.candidates.empty()) {
    const NearDefinition& c = p.candidates.front();
    p.hint = c.relation == NearRelation::kSignatureChanged
                 ? absl::StrCat(Basename(p.object), " was compiled against another declaration of ",
                                wanted.base, ": rebuild it against ", Basename(c.library),
                                ", or use the build it was compiled for")
                 : absl::StrCat(wanted.base, " moved to another namespace or class in ",
                                Basename(c.library));
  }
}

}  // namespace

void DiagnoseProblems(const Loader& loader, const std::vector<const Object*>& scope,
                      Diagnosed* report) {
  std::unique_ptr<CandidateIndex> index;
  const absl::flat_hash_set<const Object*> in_scope(scope.begin(), scope.end());
  absl::flat_hash_set<std::string> missing_versions;
  for (const DiagnosedFailure& p : report->problems) {
    if (p.kind == FailureKind::kVersionNotFound) missing_versions.insert(p.version);
  }
  const MissingVersionFiles missing_files = VersionsOfMissingLibraries(loader, *report);
  int diagnosed = 0, undiagnosed = 0;
  for (DiagnosedFailure& p : report->problems) {
    if (p.kind == FailureKind::kMissingLibrary) ExplainMissingLibrary(loader, p);
    if (p.kind == FailureKind::kVersionNotFound) ExplainVersionNotFound(loader, p);
    if (p.kind != FailureKind::kUndefinedSymbol) continue;
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
  for (DiagnosedFailure& p : report->problems) {
    if (p.cause == "cxx11_string_abi") {
      p.hint = "a std::string ABI mismatch (the cause above), not a change in this function";
    }
  }
}

}  // namespace abicheck
