// Reading .dynsym, .gnu.version{,_d,_r}, DT_GNU_HASH/DT_HASH and relocations through PT_DYNAMIC.
#include "lib/symbols/symbol_table.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/elf/records.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

// Generous for any real library (libtorch_cuda.so has ~50k dynamic symbols), small enough that a
// lying header cannot make us walk billions of entries.
constexpr uint32_t kMaxSymbols = 1u << 24;
constexpr uint32_t kMaxVersionEntries = 1u << 16;

absl::Status Corrupt(const ElfFile& elf, absl::string_view what) {
  return absl::DataLossError(absl::StrCat(elf.name(), ": ", what));
}

}  // namespace

uint32_t GnuHash(absl::string_view name) {
  uint32_t h = 5381;
  for (unsigned char c : name) h = h * 33 + c;
  return h;
}

uint32_t SysvHash(absl::string_view name) {
  uint32_t h = 0;
  for (unsigned char c : name) {
    h = (h << 4) + c;
    uint32_t g = h & 0xf0000000u;
    h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

HashedName::HashedName(absl::string_view n) : name(n), gnu(GnuHash(n)) {}

uint32_t HashedName::sysv() const {
  if (sysv_) return *sysv_;
  if (sysv_memo_ != nullptr) {
    if (const uint64_t known = sysv_memo_->load(std::memory_order_relaxed); known >> 32 != 0)
      return *(sysv_ = static_cast<uint32_t>(known));
  }
  sysv_ = SysvHash(name);
  // Two threads making it at once store the same value.
  if (sysv_memo_ != nullptr)
    sysv_memo_->store(uint64_t{1} << 32 | *sysv_, std::memory_order_relaxed);
  return *sysv_;
}

namespace {

// The lowest address above `symtab` of a table the dynamic section places (strings, versions,
// hashes, relocations): where .dynsym must end when nothing else says. 0 when none lies above.
uint64_t NextTableAfter(const ElfFile& elf, uint64_t symtab) {
  uint64_t next = 0;
  for (int64_t tag : {elf::DT_STRTAB, elf::DT_VERSYM, elf::DT_VERNEED, elf::DT_VERDEF,
                      elf::DT_GNU_HASH, elf::DT_HASH, elf::DT_RELA, elf::DT_REL, elf::DT_JMPREL}) {
    if (std::optional<uint64_t> v = elf.DynamicValue(tag); v && *v > symtab)
      next = next == 0 ? *v : std::min(next, *v);
  }
  return next;
}

}  // namespace

// Long: the dynamic symbol table's pieces (DT_SYMTAB, its count from DT_GNU_HASH or DT_HASH,
// the hash tables themselves) read and bounds-checked in the order each depends on the last.
absl::StatusOr<SymbolTable> SymbolTable::Read(const ElfFile& elf) {
  SymbolTable t;
  t.elf_ = &elf;
  const uint64_t want_ent = elf::SymSize(elf.is_64());
  std::optional<uint64_t> symtab = elf.DynamicValue(elf::DT_SYMTAB);
  if (!symtab) return t;  // No dynamic symbols at all.
  t.entsize_ = elf.DynamicValue(elf::DT_SYMENT).value_or(want_ent);
  if (t.entsize_ != want_ent) {
    return Corrupt(elf,
                   absl::StrFormat(".dynsym: DT_SYMENT is %u, expected %u", t.entsize_, want_ent));
  }

  // The symbol count, from the hash tables as ld.so sees them.
  bool counted = false;
  if (std::optional<uint64_t> gh = elf.DynamicValue(elf::DT_GNU_HASH)) {
    std::optional<ByteReader> h = elf.VaddrToSegmentEnd(*gh);
    const std::optional<elf::GnuHashHeader> hdr = h ? elf::ReadGnuHashHeader(*h) : std::nullopt;
    if (!hdr) return Corrupt(elf, ".gnu.hash (DT_GNU_HASH): header truncated");
    t.footprint_.emplace_back(elf.OffsetOf(*h), elf::kGnuHashHeaderSize);
    if (hdr->nbuckets > 0) {
      if (hdr->bloom_size == 0 || (hdr->bloom_size & (hdr->bloom_size - 1)) != 0) {
        return Corrupt(elf, absl::StrFormat(".gnu.hash: Bloom filter size %u is not a power of two",
                                            hdr->bloom_size));
      }
      const uint64_t bloom_bytes = uint64_t{hdr->bloom_size} * elf.word_size();
      std::optional<ByteReader> bloom = h->Slice(elf::kGnuHashHeaderSize, bloom_bytes);
      std::optional<ByteReader> buckets =
          bloom ? h->Slice(elf::kGnuHashHeaderSize + bloom_bytes, uint64_t{hdr->nbuckets} * 4)
                : std::nullopt;
      if (!bloom || !buckets) {
        return Corrupt(elf, absl::StrFormat(".gnu.hash: %u Bloom words and %u buckets run past the "
                                            "end of their segment",
                                            hdr->bloom_size, hdr->nbuckets));
      }
      const uint64_t chains_off =
          elf::kGnuHashHeaderSize + bloom_bytes + uint64_t{hdr->nbuckets} * 4;
      std::optional<ByteReader> chains =
          h->Slice(chains_off, h->size() - std::min(h->size(), chains_off));
      if (!chains) return Corrupt(elf, ".gnu.hash: chains start past the end of their segment");
      // Count = one past the end of the chain that starts at the highest bucket.
      uint32_t max_bucket = 0;
      if (!buckets->big_endian()) {
        // The slice holds every bucket (checked above): a plain loop the compiler vectorizes
        // (torch's largest library has 11,000 buckets, in every check that loads it).
        const uint8_t* p = buckets->data().data();
        for (uint32_t b = 0; b < hdr->nbuckets; ++b) {
          uint32_t v;
          std::memcpy(&v, p + uint64_t{b} * 4, 4);
          max_bucket = std::max(max_bucket, v);
        }
      } else {
        for (uint32_t b = 0; b < hdr->nbuckets; ++b)
          max_bucket = std::max(max_bucket, *buckets->ReadAt<uint32_t>(b * 4ull));
      }
      uint64_t count = hdr->symoffset;
      if (max_bucket >= hdr->symoffset) {
        uint64_t idx = max_bucket;
        for (;; ++idx) {
          if (idx - hdr->symoffset >= kMaxSymbols) {
            return Corrupt(elf,
                           absl::StrFormat(".gnu.hash: chain from symbol %u does not end within "
                                           "%u entries",
                                           max_bucket, kMaxSymbols));
          }
          std::optional<uint32_t> c = chains->ReadAt<uint32_t>((idx - hdr->symoffset) * 4);
          if (!c) {
            return Corrupt(elf,
                           absl::StrFormat(".gnu.hash: chain entry for symbol %u runs past the "
                                           "end of its segment",
                                           idx));
          }
          if (*c & 1) break;
        }
        count = idx + 1;
      } else if (const uint64_t next = NextTableAfter(elf, *symtab); next > *symtab) {
        // No symbol is hashed (a library that exports nothing: Debian's stock ld writes
        // symoffset 1 there, whatever the undefined entries before it): the hash does not say
        // where .dynsym ends. ld.so reads whatever index a relocation names; nm reads the
        // section's size — .dynsym runs to the next table the dynamic section places after it
        // (.dynstr in the usual layout; .gnu.version in Debian's CUDA torch build).
        count = std::max<uint64_t>(count, (next - *symtab) / t.entsize_);
      }
      t.gnu_nbuckets_ = hdr->nbuckets;
      t.gnu_symoffset_ = hdr->symoffset;
      t.gnu_bloom_size_ = hdr->bloom_size;
      t.gnu_bloom_shift_ = hdr->bloom_shift;
      t.gnu_bloom_ = *bloom;
      t.gnu_buckets_ = *buckets;
      t.gnu_chains_ = *chains;
      t.count_ = static_cast<uint32_t>(std::min<uint64_t>(count, kMaxSymbols + 1));
      counted = true;
    }
  }
  if (std::optional<uint64_t> hh = elf.DynamicValue(elf::DT_HASH)) {
    std::optional<ByteReader> h = elf.VaddrToSegmentEnd(*hh);
    const std::optional<elf::SysvHashHeader> hdr = h ? elf::ReadSysvHashHeader(*h) : std::nullopt;
    if (!hdr) return Corrupt(elf, ".hash (DT_HASH): header truncated");
    t.footprint_.emplace_back(elf.OffsetOf(*h), elf::kSysvHashHeaderSize);
    std::optional<ByteReader> buckets =
        h->Slice(elf::kSysvHashHeaderSize, uint64_t{hdr->nbucket} * 4);
    std::optional<ByteReader> chains =
        buckets ? h->Slice(elf::kSysvHashHeaderSize + uint64_t{hdr->nbucket} * 4,
                           uint64_t{hdr->nchain} * 4)
                : std::nullopt;
    if (!buckets || !chains) {
      return Corrupt(elf, absl::StrFormat(".hash: %u buckets and %u chain entries run past the end "
                                          "of their segment",
                                          hdr->nbucket, hdr->nchain));
    }
    if (!counted) {
      t.count_ = hdr->nchain;
      counted = true;
    }
    if (t.gnu_nbuckets_ == 0 && hdr->nbucket > 0) {  // ld.so prefers DT_GNU_HASH when both exist.
      t.sysv_nbucket_ = hdr->nbucket;
      t.sysv_nchain_ = hdr->nchain;
      t.sysv_buckets_ = *buckets;
      t.sysv_chains_ = *chains;
    }
  }
  if (!counted) {
    // No hash table: ld.so will find nothing here. For listing, fall back to the usual layout in
    // which .dynstr directly follows .dynsym.
    std::optional<uint64_t> strtab = elf.DynamicValue(elf::DT_STRTAB);
    if (strtab && *strtab > *symtab)
      t.count_ = static_cast<uint32_t>(
          std::min<uint64_t>((*strtab - *symtab) / t.entsize_, kMaxSymbols + 1));
  }
  if (t.count_ > kMaxSymbols) {
    return Corrupt(elf,
                   absl::StrFormat(".dynsym: more than %u symbols (the cap on symbols per library)",
                                   kMaxSymbols));
  }
  std::optional<ByteReader> syms = elf.VaddrSlice(*symtab, uint64_t{t.count_} * t.entsize_);
  if (!syms) {
    return Corrupt(elf, absl::StrFormat(".dynsym (DT_SYMTAB 0x%x): %u entries run past the end of "
                                        "their segment",
                                        *symtab, t.count_));
  }
  t.syms_ = *syms;
  ABICHECK_RETURN_IF_ERROR(t.ReadVersions());
  return t;
}

absl::StatusOr<SymbolTable> SymbolTable::ReadExternal(const ElfFile& elf, ExternalLibrary ext) {
  SymbolTable t;
  t.elf_ = &elf;
  t.ext_ = std::move(ext);
  t.count_ = t.ext_.entries;
  t.has_versym_ = t.ext_.has_versym;
  ABICHECK_RETURN_IF_ERROR(t.ReadVersions());
  return t;
}

Symbol SymbolTable::FromEntry(const ExternalSymbols::Entry& e, absl::string_view name) {
  Symbol s;
  s.index = e.handle;
  s.name = name;
  s.value = e.has_value ? 1 : 0;
  s.shndx = e.shndx;
  s.info = e.info;
  s.other = e.other;
  return s;
}

uint8_t SymbolTable::StringAbiMarkers() const {
  if (external()) return ext_.symbols->StringAbiMarkers(ext_.library);
  // A scan of all of .dynstr, asked for by every diagnosed check that loads this table: once.
  if (std::optional<uint8_t> known = string_abi_markers_.get()) return *known;
  absl::string_view strings(reinterpret_cast<const char*>(elf_->dynstr().data().data()),
                            elf_->dynstr().size());
  // Whether `core` occurs preceded by one of `before`: each pattern pair shares its end, so one
  // pass of glibc's memmem (not a search by first byte: 'E' and 'R' are on every line of mangled
  // names) answers both.
  auto contains = [&](absl::string_view core, std::initializer_list<absl::string_view> before) {
    for (const char* at = strings.data(); at != nullptr;) {
      const size_t left = static_cast<size_t>(strings.data() + strings.size() - at);
      at = static_cast<const char*>(::memmem(at, left, core.data(), core.size()));
      if (at == nullptr) break;
      const absl::string_view head = strings.substr(0, static_cast<size_t>(at - strings.data()));
      for (absl::string_view b : before)
        if (absl::EndsWith(head, b)) return true;
      ++at;
    }
    return false;
  };
  uint8_t m = 0;
  if (contains("cxx11", {"St7__", "B5"})) m |= 1;  // St7__cxx11, B5cxx11
  // "RKSs" (std::string const&) and "EOSs"/"ESs" are the common old-ABI spellings.
  if (contains("Ss", {"RK", "E"})) m |= 2;
  string_abi_markers_.set(m);
  return m;
}

std::vector<std::pair<uint64_t, uint64_t>> SymbolTable::HeaderFootprint() const {
  std::vector<std::pair<uint64_t, uint64_t>> out = elf_->Footprint(/*whole_dynstr=*/false);
  out.insert(out.end(), footprint_.begin(), footprint_.end());
  out.insert(out.end(), version_strings_.begin(), version_strings_.end());
  return out;
}

// Long: _dl_check_map_versions' two chain walks (verneed, then verdef) and the l_versions[]
// they fill, each bound check beside the field it guards (docs/loader-model.md B4-B6).
absl::Status SymbolTable::ReadVersions() {
  const ElfFile& elf = *elf_;
  if (std::optional<uint64_t> vs = external() ? std::nullopt : elf.DynamicValue(elf::DT_VERSYM)) {
    std::optional<ByteReader> v = elf.VaddrSlice(*vs, uint64_t{count_} * 2);
    if (!v) {
      return Corrupt(elf, absl::StrFormat(".gnu.version (DT_VERSYM 0x%x): %u entries (one per "
                                          ".dynsym symbol) run past the end of their segment",
                                          *vs, count_));
    }
    versym_ = *v;
    has_versym_ = true;
  }
  // Capacity from the record counts PT_DYNAMIC states (hints only, never trusted for reading, and
  // capped): growing these one record at a time was a sixth of a check's allocations.
  const uint64_t def_hint =
      std::min<uint64_t>(elf.DynamicValue(elf::DT_VERDEFNUM).value_or(0), 256);
  const uint64_t need_hint =
      std::min<uint64_t>(elf.DynamicValue(elf::DT_VERNEEDNUM).value_or(0), 64);
  defs_.reserve(def_hint);
  needs_.reserve(need_hint);
  footprint_.reserve(footprint_.size() + 2 * def_hint + 6 * need_hint);
  version_strings_.reserve(def_hint + 5 * need_hint);
  // Messages are formatted only when there is an error: this runs for every library of a check.
  auto name_at = [&](uint64_t off,
                     absl::FunctionRef<std::string()> where) -> absl::StatusOr<absl::string_view> {
    std::optional<absl::string_view> s = elf.dynstr().CString(off);
    if (!s) {
      return Corrupt(elf, absl::StrFormat("%s: name offset 0x%x is outside .dynstr (0x%x bytes)",
                                          where(), off, elf.dynstr().size()));
    }
    version_strings_.emplace_back(elf.OffsetOf(elf.dynstr()) + off, s->size() + 1);
    return *s;
  };
  uint32_t max_index = 0;
  if (std::optional<uint64_t> vd = elf.DynamicValue(elf::DT_VERDEF)) {
    std::optional<ByteReader> sec = elf.VaddrToSegmentEnd(*vd);
    if (!sec) return Corrupt(elf, ".gnu.version_d (DT_VERDEF) is not inside a loaded segment");
    // _dl_check_map_versions and match_symbol follow vd_next until it is 0; DT_VERDEFNUM is
    // not read (docs/loader-model.md B6).
    uint64_t off = 0;
    for (uint64_t i = 0;; ++i) {
      if (i == kMaxVersionEntries) {
        return Corrupt(elf,
                       absl::StrFormat(".gnu.version_d: more than %u entries", kMaxVersionEntries));
      }
      auto where = [&] { return absl::StrFormat(".gnu.version_d entry %u", i); };
      const std::optional<elf::Verdef> def = elf::ReadVerdef(*sec, off);
      if (!def) {
        return Corrupt(elf,
                       absl::StrFormat("%s at offset 0x%x runs past the end of its segment (0x%x)",
                                       where(), off, sec->size()));
      }
      // A vd_version other than 1 is kept: the loader refuses it only when it reads the record
      // (docs/loader-model.md B6); the layout is the same.
      // Only the first Verdaux's name is read (the only one glibc compares).
      const std::optional<elf::Verdaux> vda = elf::ReadVerdaux(*sec, off + def->aux);
      if (!vda) {
        return Corrupt(elf, absl::StrFormat("%s: vd_aux 0x%x runs past the end of its segment",
                                            where(), def->aux));
      }
      ABICHECK_ASSIGN_OR_RETURN(absl::string_view name, name_at(vda->name, where));
      defs_.push_back(
          {def->version, static_cast<uint16_t>(def->ndx & 0x7fff), def->flags, def->hash, name});
      footprint_.emplace_back(elf.OffsetOf(*sec) + off, elf::kVerdefSize);
      footprint_.emplace_back(elf.OffsetOf(*sec) + off + def->aux, elf::kVerdauxSize);
      max_index = std::max<uint32_t>(max_index, def->ndx & 0x7fff);
      if (def->next == 0) break;
      if (def->next > sec->size() - off) {
        return Corrupt(elf, absl::StrFormat("%s: vd_next 0x%x runs past the section end (0x%x)",
                                            where(), def->next, sec->size() - off));
      }
      off += def->next;
    }
  }
  if (std::optional<uint64_t> vn = elf.DynamicValue(elf::DT_VERNEED)) {
    std::optional<ByteReader> sec = elf.VaddrToSegmentEnd(*vn);
    if (!sec) return Corrupt(elf, ".gnu.version_r (DT_VERNEED) is not inside a loaded segment");
    // The same for vn_next and vna_next: DT_VERNEEDNUM and vn_cnt are not read.
    uint64_t off = 0;
    uint32_t total_aux = 0;
    for (uint64_t i = 0;; ++i) {
      if (i == kMaxVersionEntries) {
        return Corrupt(elf,
                       absl::StrFormat(".gnu.version_r: more than %u entries", kMaxVersionEntries));
      }
      auto where = [&] { return absl::StrFormat(".gnu.version_r entry %u", i); };
      const std::optional<elf::Verneed> need_rec = elf::ReadVerneed(*sec, off);
      if (!need_rec) {
        return Corrupt(elf,
                       absl::StrFormat("%s at offset 0x%x runs past the end of its segment (0x%x)",
                                       where(), off, sec->size()));
      }
      VersionNeed need;
      need.aux.reserve(std::min<uint16_t>(need_rec->cnt, 64));  // vn_cnt: a hint, as above
      need.version = need_rec->version;  // refused by the verneed check, not here (B6)
      footprint_.emplace_back(elf.OffsetOf(*sec) + off, elf::kVerneedSize);
      ABICHECK_ASSIGN_OR_RETURN(need.file, name_at(need_rec->file, where));
      uint64_t aoff = off + need_rec->aux;
      for (uint32_t j = 0;; ++j) {
        auto awhere = [&] { return absl::StrFormat("%s aux %u", where(), j); };
        const std::optional<elf::Vernaux> vna = elf::ReadVernaux(*sec, aoff);
        if (!vna) {
          return Corrupt(
              elf, absl::StrFormat("%s at offset 0x%x runs past the end of its segment (0x%x)",
                                   awhere(), aoff, sec->size()));
        }
        if (++total_aux > kMaxVersionEntries) {
          return Corrupt(
              elf, absl::StrFormat(".gnu.version_r: more than %u entries", kMaxVersionEntries));
        }
        VersionNeedAux aux;
        footprint_.emplace_back(elf.OffsetOf(*sec) + aoff, elf::kVernauxSize);
        ABICHECK_ASSIGN_OR_RETURN(aux.name, name_at(vna->name, awhere));
        aux.hash = vna->hash;
        aux.flags = vna->flags;
        aux.other = vna->other;
        need.aux.push_back(aux);
        max_index = std::max<uint32_t>(max_index, vna->other & 0x7fff);
        if (vna->next == 0) break;
        aoff += vna->next;
      }
      needs_.push_back(std::move(need));
      if (need_rec->next == 0) break;
      if (need_rec->next > sec->size() - off) {
        return Corrupt(elf, absl::StrFormat("%s: vn_next 0x%x runs past the section end (0x%x)",
                                            where(), need_rec->next, sec->size() - off));
      }
      off += need_rec->next;
    }
  }
  if (defs_.empty() && needs_.empty()) return absl::OkStatus();
  // glibc's _dl_check_map_versions builds l_versions[] the same way: verneed entries first, then
  // verdef entries, each at its own index.
  slots_.assign(max_index + 1, VersionSlot{});
  for (const VersionNeed& n : needs_) {
    for (const VersionNeedAux& a : n.aux) {
      VersionSlot& s = slots_[a.other & 0x7fff];
      s.name = a.name;
      s.hash = a.hash;
      s.hidden = (a.other & elf::VERSYM_HIDDEN) != 0;
      s.file = n.file;
      s.defined = false;
    }
  }
  for (const VersionDef& d : defs_) {
    // dl-version.c: "The name of the base version should not be available for matching a
    // versioned symbol": the VER_FLG_BASE entry never enters l_versions[], so index 1 keeps hash 0
    // (verified by fixtures/loader/versioned_ref_unversioned_def_with_verdef).
    if (d.flags & elf::VER_FLG_BASE) continue;
    VersionSlot& s = slots_[d.index];
    s.name = d.name;
    s.hash = d.hash;
    s.hidden = false;
    s.file = {};
    s.defined = true;
  }
  return absl::OkStatus();
}

std::vector<std::pair<uint64_t, uint64_t>> SymbolTable::Footprint(bool with_relocations) const {
  const ElfFile& elf = *elf_;
  if (external()) return HeaderFootprint();
  std::vector<std::pair<uint64_t, uint64_t>> out = elf.Footprint();
  out.insert(out.end(), footprint_.begin(), footprint_.end());
  auto add = [&](const ByteReader& r, uint64_t len) {
    if (len > 0) out.emplace_back(elf.OffsetOf(r), len);
  };
  add(syms_, syms_.size());
  add(versym_, versym_.size());
  if (gnu_nbuckets_ > 0) {
    out.emplace_back(elf.OffsetOf(gnu_bloom_) - elf::kGnuHashHeaderSize, elf::kGnuHashHeaderSize);
    add(gnu_bloom_, gnu_bloom_.size());
    add(gnu_buckets_, gnu_buckets_.size());
    add(gnu_chains_, count_ > gnu_symoffset_ ? uint64_t{count_ - gnu_symoffset_} * 4 : 0);
  }
  if (sysv_nbucket_ > 0) {
    out.emplace_back(elf.OffsetOf(sysv_buckets_) - elf::kSysvHashHeaderSize,
                     elf::kSysvHashHeaderSize);
    add(sysv_buckets_, sysv_buckets_.size());
    add(sysv_chains_, sysv_chains_.size());
  }
  if (!with_relocations) return out;
  // The relocation pass also reads the constructor and destructor arrays' slots as the file
  // holds them (a slot no relocation writes: musl-built libraries' libgcc_s).
  for (auto [addr_tag, size_tag] :
       {std::pair{elf::DT_REL, elf::DT_RELSZ}, std::pair{elf::DT_RELA, elf::DT_RELASZ},
        std::pair{elf::DT_JMPREL, elf::DT_PLTRELSZ},
        std::pair{elf::DT_INIT_ARRAY, elf::DT_INIT_ARRAYSZ},
        std::pair{elf::DT_FINI_ARRAY, elf::DT_FINI_ARRAYSZ}}) {
    std::optional<uint64_t> addr = elf.DynamicValue(addr_tag);
    std::optional<uint64_t> size = elf.DynamicValue(size_tag);
    if (!addr || !size) continue;
    if (std::optional<ByteReader> r = elf.VaddrSlice(*addr, *size)) add(*r, r->size());
  }
  return out;
}

uint16_t SymbolTable::Versym(uint32_t i) const {
  if (!has_versym_) return elf::VER_NDX_GLOBAL;
  if (external()) {
    auto e = ext_.symbols->Get(i);
    return e ? e->first.versym : elf::VER_NDX_GLOBAL;
  }
  return versym_.ReadAt<uint16_t>(uint64_t{i} * 2).value_or(elf::VER_NDX_GLOBAL);
}

const VersionSlot* SymbolTable::Slot(uint16_t index) const {
  index &= 0x7fff;
  if (index >= slots_.size()) return nullptr;
  return &slots_[index];
}

bool SymbolTable::NameIs(uint32_t i, absl::string_view name) const {
  // st_name is the first field of Elf32_Sym and Elf64_Sym alike: read alone on this hot path.
  std::optional<uint32_t> st_name = syms_.ReadAt<uint32_t>(uint64_t{i} * entsize_);
  if (!st_name) return false;
  const ByteReader& str = elf_->dynstr();
  // Byte-equal including the terminating NUL, without scanning for it first.
  if (!str.Contains(*st_name, name.size() + 1)) return false;
  const uint8_t* p = str.data().data() + *st_name;
  return std::memcmp(p, name.data(), name.size()) == 0 && p[name.size()] == 0;
}

std::optional<Symbol> SymbolTable::Get(uint32_t i) const {
  if (external()) {
    auto e = ext_.symbols->Get(i);
    if (!e) return std::nullopt;
    return FromEntry(e->first, e->second);
  }
  if (i >= count_) return std::nullopt;
  const std::optional<elf::Sym> e = elf::ReadSym(syms_, uint64_t{i} * entsize_, elf_->is_64());
  if (!e) return std::nullopt;
  Symbol s;
  s.index = i;
  s.info = e->info;
  s.other = e->other;
  s.shndx = e->shndx;
  s.value = e->value;
  s.size = e->size;
  std::optional<absl::string_view> name = elf_->dynstr().CString(e->name);
  if (!name) return std::nullopt;
  s.name = *name;
  return s;
}

bool SymbolTable::EveryNameReadable() const {
  if (external()) return false;
  const ByteReader& strings = elf_->dynstr();
  if (strings.size() == 0 || strings.data()[strings.size() - 1] != 0) return false;
  if (count_ < 2) return true;
  // Entry count_ - 1 whole, as Get reads it, so every entry before it too.
  if (entsize_ == 0 ||
      !syms_.Contains(uint64_t{count_ - 1} * entsize_, elf::SymSize(elf_->is_64())))
    return false;
  for (uint32_t i = 1; i < count_; ++i) {  // st_name opens Elf32_Sym and Elf64_Sym
    if (syms_.ReadChecked<uint32_t>(uint64_t{i} * entsize_) >= strings.size()) return false;
  }
  return true;
}

Symbol SymbolTable::GetOrEmpty(uint32_t i) const {
  std::optional<Symbol> s = Get(i);
  if (s) return *s;
  Symbol empty;
  empty.index = i;
  return empty;
}

namespace {

// Relocation types whose lookups glibc makes with ELF_RTYPE_CLASS_PLT (elf_machine_type_class).
bool IsPltClass(uint16_t machine, uint32_t type, bool in_jmprel) {
  switch (machine) {
    case elf::EM_X86_64:
      return type == 7 || type == 16 || type == 17 || type == 18 || type == 36;
    case elf::EM_386:
      return type == 7 || type == 14 || type == 35 || type == 36 || type == 37 || type == 41;
    case elf::EM_AARCH64:
      return type == 1026 || (type >= 1028 && type <= 1031);
    default:
      return in_jmprel;
  }
}

}  // namespace

std::string RelocationStopMessage(const Reference& r) {
  if (r.stop == Reference::Stop::kRelativeAssertion) {
    return "Inconsistency detected by ld.so: ../sysdeps/x86_64/dl-machine.h: 487: "
           "elf_machine_rela_relative: Assertion `ELFW(R_TYPE) (reloc->r_info) == "
           "R_X86_64_RELATIVE' failed!";
  }
  // _dl_reloc_bad_type: two hex digits, or eight when the type does not fit in a byte.
  return r.type > 0xff ? absl::StrFormat("unexpected reloc type 0x%08x", r.type)
                       : absl::StrFormat("unexpected reloc type 0x%02x", r.type);
}

namespace {

// elf_machine_rela's cases on x86-64 (docs/loader-model.md B7); the rest are _dl_reloc_bad_type.
bool IsKnownX86_64Type(uint32_t type) {
  switch (type) {
    case elf::R_X86_64_NONE:
    case elf::R_X86_64_64:
    case elf::R_X86_64_PC32:
    case elf::R_X86_64_COPY:
    case elf::R_X86_64_GLOB_DAT:
    case elf::R_X86_64_JUMP_SLOT:
    case elf::R_X86_64_RELATIVE:
    case elf::R_X86_64_32:
    case elf::R_X86_64_DTPMOD64:
    case elf::R_X86_64_DTPOFF64:
    case elf::R_X86_64_TPOFF64:
    case elf::R_X86_64_SIZE32:
    case elf::R_X86_64_SIZE64:
    case elf::R_X86_64_TLSDESC:
    case elf::R_X86_64_IRELATIVE:
    case elf::R_X86_64_RELATIVE64:
      return true;
    default:
      return false;
  }
}

// How many bytes an x86-64 relocation of `type` writes at its target.
uint64_t X86_64TargetSize(uint32_t type) {
  switch (type) {
    case elf::R_X86_64_PC32:
    case elf::R_X86_64_32:
    case elf::R_X86_64_SIZE32:
      return 4;
    case elf::R_X86_64_TLSDESC:
      return 16;
    default:
      return 8;
  }
}

// Whether [vaddr, vaddr + len) lies in a segment with `flags`; code (PF_X) only in the segment's
// file-backed part.
bool InSegment(const ElfFile& elf, uint64_t vaddr, uint64_t len, uint32_t flags) {
  return elf.Maps(vaddr, len, flags, /*file_backed=*/(flags & elf::PF_X) != 0);
}

const char* DynamicTagName(int64_t tag) {
  switch (tag) {
    case elf::DT_INIT_ARRAYSZ:
      return "DT_INIT_ARRAYSZ";
    case elf::DT_FINI_ARRAYSZ:
      return "DT_FINI_ARRAYSZ";
    case elf::DT_RELASZ:
      return "DT_RELASZ";
    case elf::DT_RELAENT:
      return "DT_RELAENT";
    case elf::DT_JMPREL:
      return "DT_JMPREL";
    case elf::DT_PLTRELSZ:
      return "DT_PLTRELSZ";
    case elf::DT_INIT:
      return "DT_INIT";
    case elf::DT_FINI:
      return "DT_FINI";
    default:
      return "a dynamic entry";
  }
}

// What ld.so dereferences without a check (docs/loader-model.md B7): a table address without its
// size reads a null entry of l_info[]; DT_INIT and DT_FINI are called, DT_INIT_ARRAY and
// DT_FINI_ARRAY read, wherever they point. Either faults: the file is corrupt.
absl::Status CheckUncheckedTables(const ElfFile& elf, bool x86_64) {
  struct Pair {
    int64_t addr, size;
    const char* what;
  };
  std::vector<Pair> pairs = {{elf::DT_INIT_ARRAY, elf::DT_INIT_ARRAYSZ, "DT_INIT_ARRAY"},
                             {elf::DT_FINI_ARRAY, elf::DT_FINI_ARRAYSZ, "DT_FINI_ARRAY"}};
  if (x86_64) {
    pairs.push_back({elf::DT_RELA, elf::DT_RELASZ, "DT_RELA"});
    pairs.push_back({elf::DT_RELA, elf::DT_RELAENT, "DT_RELA"});
    pairs.push_back({elf::DT_PLTREL, elf::DT_JMPREL, "DT_PLTREL"});
    pairs.push_back({elf::DT_PLTREL, elf::DT_PLTRELSZ, "DT_PLTREL"});
  }
  // A table's size without the table: its relocations are never applied, its pointers stay
  // unrelocated — never made by a linker.
  if (x86_64 && !elf.DynamicValue(elf::DT_RELA) &&
      (elf.DynamicValue(elf::DT_RELASZ) || elf.DynamicValue(elf::DT_RELACOUNT))) {
    return Corrupt(elf,
                   "DT_RELASZ or DT_RELACOUNT without DT_RELA: its relocations are not applied");
  }
  if (x86_64 && elf.DynamicValue(elf::DT_JMPREL) && !elf.DynamicValue(elf::DT_PLTREL)) {
    return Corrupt(elf, "DT_JMPREL without DT_PLTREL: its relocations are not applied");
  }
  for (const Pair& p : pairs) {
    if (elf.DynamicValue(p.addr) && !elf.DynamicValue(p.size)) {
      return Corrupt(elf, absl::StrFormat("%s without %s: the loader reads a missing entry", p.what,
                                          DynamicTagName(p.size)));
    }
  }
  for (int64_t tag : {elf::DT_INIT, elf::DT_FINI}) {
    std::optional<uint64_t> at = elf.DynamicValue(tag);
    if (at && !InSegment(elf, *at, 1, elf::PF_X)) {
      return Corrupt(
          elf, absl::StrFormat("%s 0x%x is outside the object's code", DynamicTagName(tag), *at));
    }
  }
  for (const Pair& p : {pairs[0], pairs[1]}) {
    std::optional<uint64_t> at = elf.DynamicValue(p.addr);
    if (!at) continue;
    const uint64_t size = *elf.DynamicValue(p.size);
    if (!InSegment(elf, *at, size, 0)) {
      return Corrupt(elf, absl::StrFormat("%s: 0x%x bytes at 0x%x are outside the loaded segments",
                                          p.what, size, *at));
    }
  }
  return absl::OkStatus();
}

}  // namespace

// Long: elf_dynamic_do_Rel(a)'s walk in one loop, every check of an entry beside the field it
// reads and in the loader's order (docs/loader-model.md B7); split, that order would be spread
// over functions that share the walk's whole state.
absl::StatusOr<std::vector<Reference>> SymbolTable::References() const {
  const ElfFile& elf = *elf_;
  if (external()) {
    return absl::FailedPreconditionError(absl::StrCat(
        elf.name(),
        ": an index holds what a library exports, not its relocations: check the library itself"));
  }
  // x86-64 is modelled exactly (docs/loader-model.md B7): no DT_REL (ELF_MACHINE_NO_REL), the
  // first DT_RELACOUNT entries asserted R_X86_64_RELATIVE, unknown types refused, targets
  // written inside the writable segments (all of them under DT_TEXTREL). Other machines: their
  // symbol references only.
  const bool x86_64 = elf.machine() == elf::EM_X86_64 && elf.is_64();
  ABICHECK_RETURN_IF_ERROR(CheckUncheckedTables(elf, x86_64));
  // _dl_check_map_versions sets l_versyms from DT_VERSYM without looking: version tables without
  // it fault the loader.
  if ((!defs_.empty() || !needs_.empty()) && !has_versym_) {
    return Corrupt(elf, "version tables (DT_VERNEED/DT_VERDEF) without .gnu.version (DT_VERSYM)");
  }
  const bool textrel = elf.DynamicValue(elf::DT_TEXTREL).has_value() ||
                       (elf.DynamicValue(elf::DT_FLAGS).value_or(0) & elf::DF_TEXTREL) != 0;
  struct Range {
    int64_t addr_tag, size_tag, ent_tag;
    bool rela;
    const char* name;
  };
  std::vector<std::pair<Range, bool>> ranges;  // (range, is_jmprel)
  if (!x86_64) {
    ranges.push_back(
        {{elf::DT_REL, elf::DT_RELSZ, elf::DT_RELENT, false, ".rel.dyn (DT_REL)"}, false});
  }
  ranges.push_back(
      {{elf::DT_RELA, elf::DT_RELASZ, elf::DT_RELAENT, true, ".rela.dyn (DT_RELA)"}, false});
  const bool plt_rela = elf.DynamicValue(elf::DT_PLTREL).value_or(elf::DT_RELA) == elf::DT_RELA;
  // _ELF_DYNAMIC_DO_RELOC relocates DT_JMPREL only when DT_PLTREL is there.
  if (!x86_64 || elf.DynamicValue(elf::DT_PLTREL)) {
    ranges.push_back(
        {{elf::DT_JMPREL, elf::DT_PLTRELSZ, 0, plt_rela, ".rela.plt (DT_JMPREL)"}, true});
  }

  // The constructors and destructors call_init and _dl_fini call: each slot of DT_INIT_ARRAY and
  // DT_FINI_ARRAY as relocated (a relative relocation's addend) or as in the file.
  struct Slots {
    uint64_t addr = 0, size = 0;
    const char* what = nullptr;
  };
  std::vector<Slots> arrays;
  for (auto [tag, size_tag, what] :
       {std::tuple{elf::DT_INIT_ARRAY, elf::DT_INIT_ARRAYSZ, "DT_INIT_ARRAY"},
        std::tuple{elf::DT_FINI_ARRAY, elf::DT_FINI_ARRAYSZ, "DT_FINI_ARRAY"}}) {
    if (std::optional<uint64_t> a = elf.DynamicValue(tag); a && x86_64) {
      const uint64_t size = *elf.DynamicValue(size_tag);
      // Real arrays hold a few entries; a declared size past 2^20 of them (all of it inside a
      // segment, say a zero-filled one) would only make this walk long (docs/limits.md).
      if (size > (uint64_t{8} << 20)) {
        return Corrupt(elf, absl::StrFormat("%s: 0x%x bytes, more than 2^20 entries", what, size));
      }
      arrays.push_back({*a, size / 8 * 8, what});
    }
  }
  absl::flat_hash_map<uint64_t, std::optional<uint64_t>> slot_values;  // nullopt: symbolic
  auto in_arrays = [&](uint64_t at) {
    return std::any_of(arrays.begin(), arrays.end(),
                       [&](const Slots& a) { return at >= a.addr && at - a.addr < a.size; });
  };

  std::vector<Reference> refs;
  absl::flat_hash_set<uint64_t> seen;
  for (const auto& [range, jmprel] : ranges) {
    std::optional<uint64_t> addr = elf.DynamicValue(range.addr_tag);
    if (!addr) continue;
    const uint64_t size = elf.DynamicValue(range.size_tag).value_or(0);
    const uint64_t want_ent = elf::RelaSize(elf.is_64(), range.rela);
    const uint64_t ent =
        range.ent_tag ? elf.DynamicValue(range.ent_tag).value_or(want_ent) : want_ent;
    if (ent != want_ent) {
      return Corrupt(elf,
                     absl::StrFormat("%s: entry size %u, expected %u", range.name, ent, want_ent));
    }
    if (size % ent != 0) {
      return Corrupt(elf, absl::StrFormat("%s: size 0x%x is not a multiple of the entry size %u",
                                          range.name, size, ent));
    }
    std::optional<ByteReader> bytes = elf.VaddrSlice(*addr, size);
    if (!bytes) {
      return Corrupt(elf, absl::StrFormat("%s: 0x%x bytes at 0x%x are not inside a loaded segment",
                                          range.name, size, *addr));
    }
    const uint64_t n = size / ent;
    // elf_dynamic_do_Rela: the first DT_RELACOUNT entries of DT_RELA are relative ones.
    const uint64_t relative =
        x86_64 && !jmprel ? std::min(n, elf.DynamicValue(elf::DT_RELACOUNT).value_or(0)) : 0;
    for (uint64_t i = 0; i < n; ++i) {
      const elf::Rela rel = *elf::ReadRela(*bytes, i * ent, elf.is_64(), range.rela);  // i < n
      const uint64_t offset = rel.offset, addend = rel.addend;
      const uint32_t sym = rel.symbol, type = rel.type;
      if (x86_64) {
        if (i < relative && type != elf::R_X86_64_RELATIVE && type != elf::R_X86_64_RELATIVE64) {
          refs.push_back({0, false, Reference::Stop::kRelativeAssertion, type});
          return refs;
        }
        if (type == elf::R_X86_64_NONE) continue;
        // Every other relocation writes at its target: outside the mapped, writable memory the
        // loader faults (a corrupt file, not a verdict).
        if (IsKnownX86_64Type(type) &&
            !InSegment(elf, offset, X86_64TargetSize(type), textrel ? 0 : elf::PF_W)) {
          return Corrupt(elf, absl::StrFormat("%s entry %u: it writes at 0x%x, outside the "
                                              "object's writable segments",
                                              range.name, i, offset));
        }
        if (type == elf::R_X86_64_IRELATIVE && range.rela &&
            !InSegment(elf, addend, 1, elf::PF_X)) {
          return Corrupt(elf, absl::StrFormat("%s entry %u: its resolver 0x%x is outside the "
                                              "object's code",
                                              range.name, i, addend));
        }
        if (!arrays.empty() && in_arrays(offset)) {
          const bool is_relative =
              type == elf::R_X86_64_RELATIVE || type == elf::R_X86_64_RELATIVE64;
          slot_values[offset] = is_relative ? std::optional<uint64_t>(addend) : std::nullopt;
        }
        if (type == elf::R_X86_64_RELATIVE || type == elf::R_X86_64_RELATIVE64) continue;
      }
      if (sym >= count_ && sym != 0) {
        return Corrupt(elf,
                       absl::StrFormat("%s entry %u: symbol index %u is past the end of .dynsym "
                                       "(%u entries)",
                                       range.name, i, sym, count_));
      }
      if (sym != 0 && has_versym()) {
        // do-rel.h: &l_versions[versym & 0x7fff], read whatever it holds (l_nversions entries;
        // none without version tables): past the end, the loader reads garbage.
        const uint16_t ndx = Versym(sym) & 0x7fff;
        if (slots_.empty() ? ndx != elf::VER_NDX_LOCAL : ndx >= slots_.size()) {
          return Corrupt(elf, absl::StrFormat(".gnu.version entry %u: version index %u is past "
                                              "the version table (%u entries)",
                                              sym, ndx, slots_.size()));
        }
      }
      const bool bad_type = x86_64 && !IsKnownX86_64Type(type);
      if (sym == 0 && !bad_type) continue;
      const bool plt = IsPltClass(elf.machine(), type, jmprel);
      if (bad_type) {
        refs.push_back({sym, plt, Reference::Stop::kBadType, type});
        return refs;
      }
      if (seen.insert((uint64_t{sym} << 1) | plt).second) refs.push_back({sym, plt});
    }
  }
  for (const Slots& a : arrays) {
    for (uint64_t at = a.addr; at < a.addr + a.size; at += 8) {
      std::optional<uint64_t> target;
      if (auto it = slot_values.find(at); it != slot_values.end()) {
        if (!it->second) continue;  // bound to a symbol: that definition's code
        target = it->second;
      } else if (std::optional<ByteReader> raw = elf.VaddrSlice(at, 8)) {
        target = raw->ReadWord(0, 8);
      } else {
        target = 0;  // zero-filled
      }
      if (!InSegment(elf, *target, 1, elf::PF_X)) {
        return Corrupt(elf, absl::StrFormat("%s entry %u calls 0x%x, outside the object's code",
                                            a.what, (at - a.addr) / 8, *target));
      }
    }
  }
  return refs;
}

namespace {

absl::StatusOr<ParsedElf> Parse(const std::string& name, absl::Span<const uint8_t> bytes,
                                const ExternalLibrary* external) {
  ABICHECK_ASSIGN_OR_RETURN(ElfFile elf, ElfFile::Parse(name, bytes));
  ParsedElf p;
  p.elf = std::make_unique<ElfFile>(std::move(elf));
  ABICHECK_ASSIGN_OR_RETURN(SymbolTable t, external ? SymbolTable::ReadExternal(*p.elf, *external)
                                                    : SymbolTable::Read(*p.elf));
  p.syms = std::make_unique<SymbolTable>(std::move(t));
  return p;
}

}  // namespace

absl::StatusOr<ParsedElf> ParseElf(const std::string& name, absl::Span<const uint8_t> bytes) {
  return Parse(name, bytes, nullptr);
}

absl::StatusOr<ParsedElf> ParseElf(const InputFile& input) {
  return Parse(input.name, input.blob->bytes(), input.external.get());
}

}  // namespace abicheck
