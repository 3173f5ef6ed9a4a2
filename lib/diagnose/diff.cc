// abicheck diff: exported-symbol sets of two builds, paired library by library, with removed
// C++ functions matched to their same-named replacements (DescribeDifferences).
#include "lib/diagnose/diff.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/demangle/demangle.h"
#include "lib/diagnose/diagnose.h"
#include "lib/diagnose/diagnosis.h"
#include "lib/elf/elf_constants.h"
#include "lib/elf/elf_file.h"
#include "lib/symbols/symbol_table.h"
#include "lib/util/paths.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

// Pairs libraries across builds: the soname stem, or the whole name when it has none.
std::string Stem(absl::string_view soname) {
  std::string stem = SonameStem(soname);
  return stem.empty() ? std::string(soname) : stem;
}

std::string BareName(const std::string& key) { return key.substr(0, key.find('@')); }

size_t CommonPrefix(absl::string_view a, absl::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

ExportDelta Entry(const std::string& key) {
  ExportDelta c;
  c.symbol = key;
  const std::string name = BareName(key);
  c.demangled = Demangle(name) + (key.size() > name.size() ? key.substr(name.size()) : "");
  return c;
}

// What the two libraries' dynamic sections say: soname, version definitions, DT_NEEDED.
void CompareHeaders(const ExportSet& a, const ExportSet& b, LibraryDelta* d) {
  if (a.has_soname && b.has_soname && a.soname != b.soname) {
    d->old_soname = a.soname;
    d->new_soname = b.soname;
  }
  std::set_difference(a.versions.begin(), a.versions.end(), b.versions.begin(), b.versions.end(),
                      std::back_inserter(d->versions_removed));
  std::set_difference(b.versions.begin(), b.versions.end(), a.versions.begin(), a.versions.end(),
                      std::back_inserter(d->versions_added));
  std::set_difference(a.needed.begin(), a.needed.end(), b.needed.begin(), b.needed.end(),
                      std::back_inserter(d->needed_removed));
  std::set_difference(b.needed.begin(), b.needed.end(), a.needed.begin(), a.needed.end(),
                      std::back_inserter(d->needed_added));
}

using Candidates = std::vector<std::pair<std::string, FunctionParts>>;

// The added function that replaces removed `f` (demangled `demangled`): a replacement, not
// another overload — the only candidate of that name, or one with the same arity that differs in
// at most half of its parameters; nullptr when none. `best_diff`: what differs.
const std::pair<std::string, FunctionParts>* BestReplacement(
    const FunctionParts& f, const std::string& demangled, const Candidates& candidates,
    bool unambiguous, const std::set<std::string>& paired, std::vector<PartChange>* best_diff) {
  const std::pair<std::string, FunctionParts>* best = nullptr;
  for (const auto& cand : candidates) {
    if (paired.contains(cand.first)) continue;
    const size_t n = f.params.size();
    size_t differing = 0;
    for (size_t i = 0; i < std::min(n, cand.second.params.size()); ++i)
      differing += f.params[i] != cand.second.params[i];
    if (!unambiguous && (cand.second.params.size() != n || differing > std::max<size_t>(1, n / 2)))
      continue;
    std::vector<PartChange> diff = DescribeDifferences(f, cand.second);
    // Ties (overloads whose parts compare alike, e.g. template arguments the comparison
    // does not see) go to the candidate whose demangled name agrees longest with the
    // removed one: const_data_ptr<unsigned short const, 0> pairs with <unsigned short
    // const>, not <unsigned long const>.
    const bool better = best == nullptr || diff.size() < best_diff->size() ||
                        (diff.size() == best_diff->size() &&
                         CommonPrefix(demangled, Entry(cand.first).demangled) >
                             CommonPrefix(demangled, Entry(best->first).demangled));
    if (better) {
      best = &cand;
      *best_diff = std::move(diff);
    }
  }
  return best;
}

LibraryDelta Compare(const ExportSet* a, const ExportSet* b) {
  LibraryDelta d;
  static const std::set<std::string> kEmpty;
  const std::set<std::string>& ea = a ? a->exports : kEmpty;
  const std::set<std::string>& eb = b ? b->exports : kEmpty;
  d.old_library = a ? a->path : "";
  d.new_library = b ? b->path : "";
  if (a && b) CompareHeaders(*a, *b, &d);
  std::vector<std::string> removed, added;
  std::set_difference(ea.begin(), ea.end(), eb.begin(), eb.end(), std::back_inserter(removed));
  std::set_difference(eb.begin(), eb.end(), ea.begin(), ea.end(), std::back_inserter(added));
  // Pair each removed C++ function with the closest added one of the same qualified name.
  std::map<std::string, std::vector<std::pair<std::string, FunctionParts>>> added_by_name;
  for (const std::string& k : added) {
    FunctionParts f;
    if (SplitFunction(BareName(k), &f)) added_by_name[f.context + "::" + f.base].push_back({k, f});
  }
  std::map<std::string, int> removed_by_name;
  for (const std::string& k : removed) {
    FunctionParts f;
    if (SplitFunction(BareName(k), &f)) ++removed_by_name[f.context + "::" + f.base];
  }
  std::set<std::string> paired;
  for (const std::string& k : removed) {
    FunctionParts f;
    ExportDelta c = Entry(k);
    if (SplitFunction(BareName(k), &f)) {
      auto it = added_by_name.find(f.context + "::" + f.base);
      const std::pair<std::string, FunctionParts>* best = nullptr;
      std::vector<PartChange> best_diff;
      if (it != added_by_name.end()) {
        const bool unambiguous =
            it->second.size() == 1 && removed_by_name[f.context + "::" + f.base] == 1;
        best = BestReplacement(f, c.demangled, it->second, unambiguous, paired, &best_diff);
      }
      if (best != nullptr) {
        paired.insert(best->first);
        ExportDelta n = Entry(best->first);
        c.new_symbol = n.symbol;
        c.new_demangled = n.demangled;
        if (best_diff.empty()) {
          // Same parts: the version moved, the [abi:cxx11] tag that the partial demangler's base
          // name omits (c10::getDtypeNames in torch 2.15), or something else the parts do not
          // show — said with both names, never as an empty "version:  → ".
          const std::string va = k.substr(BareName(k).size()),
                            vb = best->first.substr(BareName(best->first).size());
          const std::optional<PartChange> tag = AbiTagChange(c.demangled, n.demangled);
          best_diff.push_back(va != vb ? PartChange{PartChange::Kind::kVersion, 0, va, vb}
                              : tag    ? *tag
                                       : PartChange{PartChange::Kind::kMangledName, 0,
                                                 std::string(BareName(k)),
                                                 std::string(BareName(best->first))});
        }
        c.differences = best_diff;
        d.changed.push_back(std::move(c));
        continue;
      }
    }
    d.removed.push_back(std::move(c));
  }
  for (const std::string& k : added) {
    if (!paired.contains(k)) d.added.push_back(Entry(k));
  }
  return d;
}

}  // namespace

absl::StatusOr<ExportSet> ReadExportSet(const InputFile& f) {
  ABICHECK_ASSIGN_OR_RETURN(ParsedElf parsed, ParseElf(f));
  const ElfFile& elf = *parsed.elf;
  const SymbolTable& t = *parsed.syms;
  ExportSet lib;
  lib.path = f.name;
  lib.soname = elf.soname().empty() ? Basename(f.path) : std::string(elf.soname());
  lib.has_soname = !elf.soname().empty();
  for (const VersionDef& d : t.version_defs()) {
    if ((d.flags & elf::VER_FLG_BASE) == 0) lib.versions.emplace(d.name);
  }
  for (absl::string_view n : elf.needed()) lib.needed.emplace(n);
  std::optional<uint32_t> bad = t.ForEachSymbol([&](const Symbol& sym) {
    const Symbol* s = &sym;
    if (!s->exported() || s->name.empty()) return;
    std::string key(s->name);
    const uint16_t vs = t.Versym(s->index);
    const VersionSlot* slot = t.Slot(vs);
    if (slot != nullptr && slot->defined && (vs & 0x7fff) > 1) {
      if (s->shndx == elf::SHN_ABS && s->name == slot->name) return;  // the version node itself
      absl::StrAppend(&key, (vs & elf::VERSYM_HIDDEN) ? "@" : "@@", slot->name);
    }
    lib.exports.insert(std::move(key));
  });
  if (bad)
    return absl::DataLossError(
        absl::StrFormat("%s: .dynsym entry %u: name offset is outside .dynstr", f.name, *bad));
  ABICHECK_RETURN_IF_ERROR(t.status());
  return lib;
}

BuildDelta CompareBuilds(const std::string& old_build, const std::vector<ExportSet>& a,
                         const std::string& new_build, const std::vector<ExportSet>& b) {
  BuildDelta diff;
  diff.old_build = old_build;
  diff.new_build = new_build;
  // Pair by the path inside the build (functorch/_C.so and torch/_C.so have one soname: their
  // file name), then by soname, then by stem; each library once; two single files are always a
  // pair. Every library is offered each pass before the next, so that a looser key never takes
  // what a stricter one would have paired.
  std::vector<bool> used(b.size(), false);
  std::vector<const ExportSet*> match(a.size(), nullptr);
  for (int pass = 0; pass < 3; ++pass) {
    for (size_t i = 0; i < a.size(); ++i) {
      const ExportSet& la = a[i];
      if (match[i] != nullptr) continue;
      for (size_t j = 0; j < b.size(); ++j) {
        if (used[j]) continue;
        const bool same = pass == 0   ? !la.relative.empty() && la.relative == b[j].relative
                          : pass == 1 ? la.soname == b[j].soname
                                      : Stem(la.soname) == Stem(b[j].soname);
        if (same || (a.size() == 1 && b.size() == 1)) {
          match[i] = &b[j];
          used[j] = true;
          break;
        }
      }
    }
  }
  std::vector<std::pair<const ExportSet*, const ExportSet*>> pairs;
  for (size_t i = 0; i < a.size(); ++i) pairs.push_back({&a[i], match[i]});
  for (size_t j = 0; j < b.size(); ++j) {
    if (!used[j]) pairs.push_back({nullptr, &b[j]});
  }
  for (const auto& [la, lb] : pairs) {
    LibraryDelta d = Compare(la, lb);
    if (!d.removed.empty() || !d.added.empty() || !d.changed.empty() || !d.new_soname.empty() ||
        !d.versions_removed.empty() || !d.versions_added.empty() || !d.needed_removed.empty() ||
        !d.needed_added.empty())
      diff.libraries.push_back(std::move(d));
  }
  std::sort(diff.libraries.begin(), diff.libraries.end(),
            [](const LibraryDelta& x, const LibraryDelta& y) {
              return (x.old_library.empty() ? x.new_library : x.old_library) <
                     (y.old_library.empty() ? y.new_library : y.old_library);
            });
  return diff;
}

}  // namespace abicheck
