// The dynamic symbol table of one ELF file, with its version tables, its hash tables and the
// references its relocations make — the data ld.so consults for symbol binding
// (docs/loader-model.md §A, §B). Borrows from an ElfFile; names are string_views into .dynstr.
#ifndef ABICHECK_LIB_SYMBOLS_SYMBOL_TABLE_H_
#define ABICHECK_LIB_SYMBOLS_SYMBOL_TABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/elf/elf_constants.h"
#include "lib/elf/elf_file.h"
#include "lib/io/blob.h"
#include "lib/io/byte_reader.h"

namespace abicheck {

struct Symbol {
  uint32_t index = 0;
  absl::string_view name;
  // From an index (lib/index) only whether the value is zero is kept: then it is 0 or 1.
  uint64_t value = 0;
  uint64_t size = 0;
  uint16_t shndx = 0;
  uint8_t info = 0;
  uint8_t other = 0;

  uint8_t type() const { return info & 0xf; }
  uint8_t bind() const { return info >> 4; }
  uint8_t visibility() const { return other & 3; }
  bool defined() const { return shndx != elf::SHN_UNDEF; }
  // A definition other objects can bind to (docs/loader-model.md A): defined, not local, not
  // hidden/internal.
  bool exported() const {
    return defined() && bind() != elf::STB_LOCAL && visibility() != elf::STV_HIDDEN &&
           visibility() != elf::STV_INTERNAL;
  }
};

// check_match's tests that do not depend on the reference (dl-lookup.c): an entry without a
// value (unless SHN_ABS or TLS) or of a type the loader never binds is passed over.
inline bool IsLookupCandidate(const Symbol& s) {
  if (s.value == 0 && s.shndx != elf::SHN_ABS && s.type() != elf::STT_TLS) return false;
  constexpr uint32_t kAllowed = (1u << elf::STT_NOTYPE) | (1u << elf::STT_OBJECT) |
                                (1u << elf::STT_FUNC) | (1u << elf::STT_COMMON) |
                                (1u << elf::STT_TLS) | (1u << elf::STT_GNU_IFUNC);
  return ((1u << s.type()) & kAllowed) != 0;
}

// One slot of glibc's l_versions[] table, indexed by .gnu.version values (dl-version.c).
struct VersionSlot {
  absl::string_view name;
  uint32_t hash = 0;       // vd_hash / vna_hash as stored in the file, as glibc compares it
  bool hidden = false;     // vna_other bit 15
  bool defined = false;    // from .gnu.version_d (else .gnu.version_r or empty)
  absl::string_view file;  // vn_file for .gnu.version_r entries
};

struct VersionDef {
  uint16_t version = 1;  // vd_version: glibc refuses anything but 1 when it reads the record
  uint16_t index = 0;
  uint16_t flags = 0;
  uint32_t hash = 0;
  absl::string_view name;  // the first Verdaux name: the only one glibc compares
};

struct VersionNeedAux {
  absl::string_view name;
  uint32_t hash = 0;
  uint16_t flags = 0;
  uint16_t other = 0;
};

struct VersionNeed {
  uint16_t version = 1;  // vn_version: glibc refuses anything but 1 (docs/loader-model.md B6)
  absl::string_view file;
  std::vector<VersionNeedAux> aux;
};

// A symbol named by a dynamic relocation: what ld.so will look up. The last entry of a list may
// instead be the relocation where _dl_relocate_object stops (docs/loader-model.md B7): one of
// the first DT_RELACOUNT that is not R_X86_64_RELATIVE (an assertion), or one of a type
// elf_machine_rela does not know (_dl_reloc_bad_type) — looked up first when it names a symbol.
struct Reference {
  enum class Stop : uint8_t { kNone, kRelativeAssertion, kBadType };
  uint32_t symbol = 0;
  bool plt_class = false;  // ELF_RTYPE_CLASS_PLT: such lookups also reject SHN_UNDEF definitions
  Stop stop = Stop::kNone;
  uint32_t type = 0;  // the relocation type, when it stops there
};
// ld.so's words for a relocation it stops at: "unexpected reloc type 0x%02x" (eight digits past
// 0xff), or its assertion's text.
std::string RelocationStopMessage(const Reference& r);

// A name with its GNU hash, and its SysV hash made when first asked for (most libraries have
// only .gnu.hash).
struct HashedName {
  absl::string_view name;
  uint32_t gnu = 0;
  explicit HashedName(absl::string_view n);
  // The GNU hash made before, and the SysV hash kept in `sysv_memo` (0 until made, then
  // 1 << 32 | the hash; shared by threads) when a lookup first asks for it: Relocation keeps both
  // per table, as a module's names are looked up once per build it is checked against, and only
  // a DT_HASH-only library or an index asks for the SysV one.
  HashedName(absl::string_view n, uint32_t gnu_hash, std::atomic<uint64_t>* sysv_memo)
      : name(n), gnu(gnu_hash), sysv_memo_(sysv_memo) {}
  uint32_t sysv() const;

 private:
  mutable std::optional<uint32_t> sysv_;
  std::atomic<uint64_t>* sysv_memo_ = nullptr;
};

uint32_t GnuHash(absl::string_view name);
uint32_t SysvHash(absl::string_view name);

// Symbols kept outside the ELF image: an index (lib/index) stores, for each library, the entries
// do_lookup_x can meet for a name, in the library's own hash-chain order, and none of .dynsym.
class ExternalSymbols {
 public:
  struct Entry {
    uint32_t handle = 0;  // >= 1: the symbol index a SymbolTable gives out for it
    uint8_t info = 0;
    uint8_t other = 0;
    uint16_t shndx = 0;
    uint16_t versym = 0;  // with the hidden bit
    bool has_value = false;
  };
  virtual ~ExternalSymbols() = default;
  // f(entry) for each of `library`'s entries named `name`, in chain order, until f returns true.
  virtual void ForEachNamed(uint32_t library, const HashedName& name,
                            absl::FunctionRef<bool(const Entry&)> f) const = 0;
  // f(entry, name) for every entry of `library`, in name order.
  virtual void ForEach(uint32_t library,
                       absl::FunctionRef<void(const Entry&, absl::string_view)> f) const = 0;
  // The entry with `handle` and its name, which lives as long as this object.
  virtual std::optional<std::pair<Entry, absl::string_view>> Get(uint32_t handle) const = 0;
  // The diagnosis's base-name buckets, where the table stores them (an index does): f(handle,
  // context key) for each exported entry of `library` whose name holds a source name hashing to
  // `token` (SourceNameHash) where a base name can be (MayBeBaseName, with its ContextKey:
  // lib/symbols/source_names.h), by name; an entry whose name holds it twice may come twice. A
  // hash is not a name: the caller compares. False when the table stores none.
  virtual bool ForEachWithBaseName(uint32_t library, uint32_t token,
                                   absl::FunctionRef<void(uint32_t, uint32_t)> f) const {
    (void)library, (void)token, (void)f;
    return false;
  }
  // What the library's strings say of the std::string ABI: bit 0 "St7__cxx11"/"B5cxx11",
  // bit 1 "RKSs"/"ESs" (lib/diagnose).
  virtual uint8_t StringAbiMarkers(uint32_t library) const = 0;
  // The first error met while decoding lazily (then lookups found nothing): checked after use.
  virtual absl::Status status() const = 0;
};

// How a library's symbols reach an external table: the per-library facts besides its entries.
struct ExternalLibrary {
  std::shared_ptr<const ExternalSymbols> symbols;
  uint32_t library = 0;
  uint32_t entries = 0;
  bool has_hash_table = false;
  bool has_versym = false;
};

class SymbolTable {
 public:
  // Reads the tables named by `elf`'s PT_DYNAMIC. `elf` must outlive the table.
  static absl::StatusOr<SymbolTable> Read(const ElfFile& elf);
  // The version tables from `elf`, the symbols from `ext` (.dynsym, its hash tables and
  // .gnu.version are not read).
  static absl::StatusOr<SymbolTable> ReadExternal(const ElfFile& elf, ExternalLibrary ext);

  // .dynsym entries; for an external table, its entries (their indexes are handles, not 1..n).
  uint32_t size() const { return count_; }
  bool external() const { return ext_.symbols != nullptr; }
  // An external table decodes lazily: the first error it met (then it found nothing), else OK.
  absl::Status status() const { return external() ? ext_.symbols->status() : absl::OkStatus(); }
  const ExternalLibrary& external_library() const { return ext_; }
  // f(symbol) for every entry (not the null entry 0), in table order; entries whose name is
  // unreadable are skipped, and the first of them is returned.
  template <typename F>
  std::optional<uint32_t> ForEachSymbol(F&& f) const;
  // f(index, name) for every exported entry whose name is readable, roughly in the order of the
  // names in .dynstr rather than of the table: .dynsym is sorted by GNU hash bucket, so a pass
  // over every name in table order reads .dynstr at random (a cache miss a name on torch's 6 MB
  // tables); by the 4 KiB page of its name it reads it front to back. An external table's, in its
  // own order.
  template <typename F>
  void ForEachExportedNameInStringOrder(F&& f) const;
  // The std::string ABI markers of the library's strings (see ExternalSymbols).
  uint8_t StringAbiMarkers() const;
  // nullopt only when entry `i` has a name offset outside .dynstr (or i >= size()).
  std::optional<Symbol> Get(uint32_t i) const;
  // Symbol `i` with an empty name when its name is unreadable.
  Symbol GetOrEmpty(uint32_t i) const;
  // True when Get(i) finds every entry 0 < i < size(): .dynstr ends in a NUL and every name
  // offset lies inside it. Reads only the offsets, so that a listing can split the table over
  // threads once it knows no entry will fail.
  bool EveryNameReadable() const;

  bool has_versym() const { return versym_.size() > 0 || has_versym_; }
  // The raw .gnu.version value of entry `i` (with the hidden bit), or 1 (global) without a table.
  uint16_t Versym(uint32_t i) const;
  bool has_versions() const { return !slots_.empty(); }
  // The l_versions[] slot for a version index (bit 15 masked off), or nullptr when none exists.
  const VersionSlot* Slot(uint16_t index) const;
  const std::vector<VersionDef>& version_defs() const { return defs_; }
  const std::vector<VersionNeed>& version_needs() const { return needs_; }

  // False when the object has neither DT_GNU_HASH nor DT_HASH: ld.so skips such objects in lookups.
  bool has_hash_table() const {
    return gnu_nbuckets_ > 0 || sysv_nbucket_ > 0 || ext_.has_hash_table;
  }
  // Calls f(index) for every symbol in `name`'s hash chain whose name is byte-equal, in chain
  // order — the order in which do_lookup_x tries them. Stops when f returns true.
  template <typename F>
  void ForEachNamed(const HashedName& name, F&& f) const;
  // The same walk handing f(symbol, versym) — what do_lookup_x reads of each entry. An index
  // has both at hand when it finds the name, so nothing is looked up twice.
  template <typename F>
  void ForEachNamedSymbol(const HashedName& name, F&& f) const;

  // Every symbol named by DT_RELA/DT_REL/DT_JMPREL entries, deduplicated, in relocation order
  // (DT_REL, DT_RELA, then DT_JMPREL: the order _dl_relocate_object processes them; x86-64 has
  // no DT_REL), up to the first relocation ld.so stops at. A relocation that would write outside
  // the object's writable segments, call outside its code, or read a version past its version
  // table is a corrupt input (ld.so crashes or reads garbage there: docs/loader-model.md B7).
  absl::StatusOr<std::vector<Reference>> References() const;

  // Every byte range (file offset, length) this table read or will read — symbols, strings,
  // versions, hash tables, relocations — with the ElfFile's own. When all of it is real data, a
  // parse is exact even over a partly retained image (lib/inputs).
  std::vector<std::pair<uint64_t, uint64_t>> Footprint(bool with_relocations = true) const;
  // What an index keeps of the file: the headers, PT_DYNAMIC and the strings it names, the
  // version tables and their strings — the rest of the table lives in the index's name blocks.
  std::vector<std::pair<uint64_t, uint64_t>> HeaderFootprint() const;

 private:
  SymbolTable() = default;
  absl::Status ReadVersions();
  bool NameIs(uint32_t i, absl::string_view name) const;
  static Symbol FromEntry(const ExternalSymbols::Entry& e, absl::string_view name);

  const ElfFile* elf_ = nullptr;
  ExternalLibrary ext_;
  // StringAbiMarkers(), made on first use by whichever thread asks first (tables are shared by
  // the checks against an opened Build, on any thread): every thread computes the same byte.
  class LazyByte {
   public:
    LazyByte() = default;
    LazyByte(const LazyByte& o) : v_(o.v_.load(std::memory_order_relaxed)) {}
    LazyByte& operator=(const LazyByte& o) {
      v_.store(o.v_.load(std::memory_order_relaxed), std::memory_order_relaxed);
      return *this;
    }
    std::optional<uint8_t> get() const {
      const int v = v_.load(std::memory_order_relaxed);
      return v < 0 ? std::nullopt : std::optional<uint8_t>(static_cast<uint8_t>(v));
    }
    void set(uint8_t b) const { v_.store(b, std::memory_order_relaxed); }

   private:
    mutable std::atomic<int> v_{-1};
  };
  LazyByte string_abi_markers_;
  ByteReader syms_;
  uint32_t count_ = 0;
  uint64_t entsize_ = 0;
  ByteReader versym_;
  bool has_versym_ = false;
  std::vector<VersionSlot> slots_;
  std::vector<VersionDef> defs_;
  std::vector<VersionNeed> needs_;
  std::vector<std::pair<uint64_t, uint64_t>> footprint_;  // version walks, relocation ranges
  std::vector<std::pair<uint64_t, uint64_t>> version_strings_;
  // DT_GNU_HASH
  uint32_t gnu_nbuckets_ = 0, gnu_symoffset_ = 0, gnu_bloom_size_ = 0, gnu_bloom_shift_ = 0;
  ByteReader gnu_bloom_, gnu_buckets_, gnu_chains_;
  // DT_HASH
  uint32_t sysv_nbucket_ = 0, sysv_nchain_ = 0;
  ByteReader sysv_buckets_, sysv_chains_;
};

template <typename F>
std::optional<uint32_t> SymbolTable::ForEachSymbol(F&& f) const {
  if (external()) {
    ext_.symbols->ForEach(ext_.library, [&](const ExternalSymbols::Entry& e,
                                            absl::string_view name) { f(FromEntry(e, name)); });
    return std::nullopt;
  }
  std::optional<uint32_t> bad;
  for (uint32_t i = 1; i < count_; ++i) {
    std::optional<Symbol> s = Get(i);
    if (!s) {
      if (!bad) bad = i;
      continue;
    }
    f(*s);
  }
  return bad;
}

template <typename F>
void SymbolTable::ForEachExportedNameInStringOrder(F&& f) const {
  if (external()) {
    ForEachSymbol([&](const Symbol& s) {
      if (s.exported()) f(s.index, s.name);
    });
    return;
  }
  // A counting sort of the exported entries by the page of their name: two passes over .dynsym
  // in order, one over .dynstr.
  constexpr int kPageBits = 12;
  const uint64_t strings = elf_->dynstr().size();
  std::vector<uint32_t> starts((strings >> kPageBits) + 2, 0);
  std::vector<std::pair<uint32_t, uint32_t>> exported;  // (st_name, index)
  for (uint32_t i = 1; i < count_; ++i) {
    const std::optional<elf::Sym> e = elf::ReadSym(syms_, uint64_t{i} * entsize_, elf_->is_64());
    if (!e || e->name >= strings) continue;
    Symbol s;
    s.info = e->info;
    s.other = e->other;
    s.shndx = e->shndx;
    if (!s.exported()) continue;
    exported.emplace_back(e->name, i);
    ++starts[(e->name >> kPageBits) + 1];
  }
  for (size_t p = 1; p < starts.size(); ++p) starts[p] += starts[p - 1];
  std::vector<std::pair<uint32_t, uint32_t>> by_page(exported.size());
  for (const auto& e : exported) by_page[starts[e.first >> kPageBits]++] = e;
  for (const auto& [name, index] : by_page) {
    if (std::optional<absl::string_view> n = elf_->dynstr().CString(name)) f(index, *n);
  }
}

template <typename F>
void SymbolTable::ForEachNamed(const HashedName& h, F&& f) const {
  if (external()) {
    if (!ext_.has_hash_table) return;
    ext_.symbols->ForEachNamed(ext_.library, h,
                               [&](const ExternalSymbols::Entry& e) { return f(e.handle); });
    return;
  }
  if (gnu_nbuckets_ > 0) {
    // dl-lookup.c do_lookup_x: Bloom filter, bucket, then the chain until its end bit.
    const uint32_t bits = elf_->is_64() ? 64 : 32;
    const uint64_t word_index = (h.gnu / bits) & (gnu_bloom_size_ - 1);
    std::optional<uint64_t> bloom =
        gnu_bloom_.ReadWord(word_index * (bits / 8), static_cast<int>(bits / 8));
    if (!bloom) return;
    const uint32_t bit1 = h.gnu & (bits - 1);
    // glibc shifts by l_gnu_shift as read from the file; the 32-bit shift instructions of
    // x86-64 and AArch64 use the count modulo 32, which is what the loader does in effect.
    const uint32_t bit2 = (h.gnu >> (gnu_bloom_shift_ & 31)) & (bits - 1);
    if ((((*bloom >> bit1) & (*bloom >> bit2)) & 1) == 0) return;
    std::optional<uint32_t> bucket = gnu_buckets_.ReadAt<uint32_t>((h.gnu % gnu_nbuckets_) * 4ull);
    if (!bucket || *bucket == 0 || *bucket < gnu_symoffset_) return;
    for (uint32_t idx = *bucket; idx < count_; ++idx) {
      std::optional<uint32_t> chain = gnu_chains_.ReadAt<uint32_t>((idx - gnu_symoffset_) * 4ull);
      if (!chain) return;
      if (((*chain ^ h.gnu) >> 1) == 0 && NameIs(idx, h.name) && f(idx)) return;
      if (*chain & 1) return;
    }
    return;
  }
  if (sysv_nbucket_ > 0) {
    std::optional<uint32_t> idx = sysv_buckets_.ReadAt<uint32_t>((h.sysv() % sysv_nbucket_) * 4ull);
    // A chain can be made cyclic by a hostile file: never take more steps than there are entries.
    for (uint32_t steps = 0; idx && *idx != 0 && *idx < count_ && steps <= sysv_nchain_; ++steps) {
      if (NameIs(*idx, h.name) && f(*idx)) return;
      idx = sysv_chains_.ReadAt<uint32_t>(*idx * 4ull);
    }
  }
}

template <typename F>
void SymbolTable::ForEachNamedSymbol(const HashedName& h, F&& f) const {
  if (external()) {
    if (!ext_.has_hash_table) return;
    ext_.symbols->ForEachNamed(ext_.library, h, [&](const ExternalSymbols::Entry& e) {
      return f(FromEntry(e, h.name), has_versym_ ? e.versym : uint16_t{elf::VER_NDX_GLOBAL});
    });
    return;
  }
  ForEachNamed(h, [&](uint32_t idx) { return f(GetOrEmpty(idx), Versym(idx)); });
}

// An ElfFile and its SymbolTable parsed together; the table points into the file, so both live
// on the heap and move as a pair.
struct ParsedElf {
  std::unique_ptr<ElfFile> elf;
  std::unique_ptr<SymbolTable> syms;
};
absl::StatusOr<ParsedElf> ParseElf(const std::string& name, absl::Span<const uint8_t> bytes);
// An input as the pipeline sees it: an ELF image, or an index's library (external symbols).
absl::StatusOr<ParsedElf> ParseElf(const InputFile& input);

}  // namespace abicheck

#endif  // ABICHECK_LIB_SYMBOLS_SYMBOL_TABLE_H_
