// The ELF records abicheck reads, each layout written once for both classes and both byte orders
// (the System V gABI's Elf32_*/Elf64_* structures, field for field). A Read* function returns the
// record at `at` decoded into the 64-bit form, or nullopt when the record does not lie wholly
// inside the reader: nothing else in abicheck knows a field's offset.
#ifndef ABICHECK_LIB_ELF_RECORDS_H_
#define ABICHECK_LIB_ELF_RECORDS_H_

#include <cstdint>
#include <optional>

#include "lib/io/byte_reader.h"

namespace abicheck::elf {

namespace internal {

// Fixed-offset reads of one record whose bounds were checked once (each Read* below checks
// r.Contains(at, size of the record) before it makes a Fields).
class Fields {
 public:
  Fields(const ByteReader& r, uint64_t at) : r_(r), at_(at) {}
  template <typename T>
  T Get(uint64_t off) const {
    return r_.ReadChecked<T>(at_ + off);
  }
  // An address-sized field: at `off64` in ELFCLASS64, at `off32` in ELFCLASS32.
  uint64_t Word(bool is64, uint64_t off64, uint64_t off32) const {
    return is64 ? Get<uint64_t>(off64) : Get<uint32_t>(off32);
  }

 private:
  const ByteReader& r_;
  uint64_t at_;
};

}  // namespace internal

// Elf{32,64}_Ehdr, past e_ident (EI_CLASS and EI_DATA say how to read the rest).
struct Ehdr {
  uint16_t type = 0;
  uint16_t machine = 0;
  uint32_t version = 0;
  uint64_t phoff = 0;
  uint64_t shoff = 0;
  uint16_t phentsize = 0;
  uint16_t phnum = 0;
  uint16_t shentsize = 0;
  uint16_t shnum = 0;
  uint16_t shstrndx = 0;
};
constexpr uint64_t EhdrSize(bool is64) { return is64 ? 64 : 52; }
inline std::optional<Ehdr> ReadEhdr(const ByteReader& r, bool is64) {
  if (!r.Contains(0, EhdrSize(is64))) return std::nullopt;
  const internal::Fields f(r, 0);
  Ehdr h;
  h.type = f.Get<uint16_t>(16);
  h.machine = f.Get<uint16_t>(18);
  h.version = f.Get<uint32_t>(20);
  h.phoff = f.Word(is64, 32, 28);
  h.shoff = f.Word(is64, 40, 32);
  h.phentsize = f.Get<uint16_t>(is64 ? 54 : 42);
  h.phnum = f.Get<uint16_t>(is64 ? 56 : 44);
  h.shentsize = f.Get<uint16_t>(is64 ? 58 : 46);
  h.shnum = f.Get<uint16_t>(is64 ? 60 : 48);
  h.shstrndx = f.Get<uint16_t>(is64 ? 62 : 50);
  return h;
}

// Elf{32,64}_Phdr (p_paddr and p_align are not read).
struct Phdr {
  uint32_t type = 0;
  uint32_t flags = 0;
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t filesz = 0;
  uint64_t memsz = 0;
};
constexpr uint64_t PhdrSize(bool is64) { return is64 ? 56 : 32; }
inline std::optional<Phdr> ReadPhdr(const ByteReader& r, uint64_t at, bool is64) {
  if (!r.Contains(at, PhdrSize(is64))) return std::nullopt;
  const internal::Fields f(r, at);
  Phdr p;
  p.type = f.Get<uint32_t>(0);
  p.flags = f.Get<uint32_t>(is64 ? 4 : 24);
  p.offset = f.Word(is64, 8, 4);
  p.vaddr = f.Word(is64, 16, 8);
  p.filesz = f.Word(is64, 32, 16);
  p.memsz = f.Word(is64, 40, 20);
  return p;
}

// Elf{32,64}_Shdr (only nvcc's fat binaries are found through section headers: docs/gpu-model.md).
struct Shdr {
  uint32_t name = 0;
  uint32_t type = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t info = 0;
};
constexpr uint64_t ShdrSize(bool is64) { return is64 ? 64 : 40; }
inline std::optional<Shdr> ReadShdr(const ByteReader& r, uint64_t at, bool is64) {
  if (!r.Contains(at, ShdrSize(is64))) return std::nullopt;
  const internal::Fields f(r, at);
  Shdr s;
  s.name = f.Get<uint32_t>(0);
  s.type = f.Get<uint32_t>(4);
  s.offset = f.Word(is64, 24, 16);
  s.size = f.Word(is64, 32, 20);
  s.info = f.Get<uint32_t>(is64 ? 44 : 28);
  return s;
}
// sh_info of section header 0, where e_phnum == PN_XNUM keeps the real program-header count.
constexpr uint64_t ShdrInfoOffset(bool is64) { return is64 ? 44 : 28; }

// Elf{32,64}_Dyn. A 32-bit d_tag is signed: sign-extended.
struct Dyn {
  int64_t tag = 0;
  uint64_t value = 0;
};
constexpr uint64_t DynSize(bool is64) { return is64 ? 16 : 8; }
inline std::optional<Dyn> ReadDyn(const ByteReader& r, uint64_t at, bool is64) {
  if (!r.Contains(at, DynSize(is64))) return std::nullopt;
  const internal::Fields f(r, at);
  return Dyn{is64 ? static_cast<int64_t>(f.Get<uint64_t>(0)) : f.Get<int32_t>(0),
             f.Word(is64, 8, 4)};
}

// Elf{32,64}_Sym.
struct Sym {
  uint32_t name = 0;
  uint8_t info = 0;
  uint8_t other = 0;
  uint16_t shndx = 0;
  uint64_t value = 0;
  uint64_t size = 0;
};
constexpr uint64_t SymSize(bool is64) { return is64 ? 24 : 16; }
inline std::optional<Sym> ReadSym(const ByteReader& r, uint64_t at, bool is64) {
  if (!r.Contains(at, SymSize(is64))) return std::nullopt;
  const internal::Fields f(r, at);
  Sym s;
  s.name = f.Get<uint32_t>(0);
  s.info = f.Get<uint8_t>(is64 ? 4 : 12);
  s.other = f.Get<uint8_t>(is64 ? 5 : 13);
  s.shndx = f.Get<uint16_t>(is64 ? 6 : 14);
  s.value = f.Word(is64, 8, 4);
  s.size = f.Word(is64, 16, 8);
  return s;
}

// Elf{32,64}_Rel and _Rela: r_info splits into symbol and type as ELF{32,64}_R_SYM/_R_TYPE do.
struct Rela {
  uint64_t offset = 0;
  uint32_t symbol = 0;
  uint32_t type = 0;
  uint64_t addend = 0;  // 0 for Rel
};
constexpr uint64_t RelaSize(bool is64, bool rela) {
  return uint64_t{is64 ? 8u : 4u} * (rela ? 3 : 2);
}
inline std::optional<Rela> ReadRela(const ByteReader& r, uint64_t at, bool is64, bool rela) {
  if (!r.Contains(at, RelaSize(is64, rela))) return std::nullopt;
  const internal::Fields f(r, at);
  const uint64_t info = f.Word(is64, 8, 4);
  Rela e;
  e.offset = f.Word(is64, 0, 0);
  e.symbol = static_cast<uint32_t>(is64 ? info >> 32 : info >> 8);
  e.type = static_cast<uint32_t>(is64 ? info & 0xffffffff : info & 0xff);
  if (rela) e.addend = f.Word(is64, 16, 8);
  return e;
}

// The version records have one layout in both classes.
struct Verdef {  // Elf_Verdef
  uint16_t version = 0;
  uint16_t flags = 0;
  uint16_t ndx = 0;
  uint16_t cnt = 0;
  uint32_t hash = 0;
  uint32_t aux = 0;
  uint32_t next = 0;
};
inline constexpr uint64_t kVerdefSize = 20;
inline std::optional<Verdef> ReadVerdef(const ByteReader& r, uint64_t at) {
  if (!r.Contains(at, kVerdefSize)) return std::nullopt;
  const internal::Fields f(r, at);
  return Verdef{f.Get<uint16_t>(0), f.Get<uint16_t>(2),  f.Get<uint16_t>(4), f.Get<uint16_t>(6),
                f.Get<uint32_t>(8), f.Get<uint32_t>(12), f.Get<uint32_t>(16)};
}

struct Verdaux {  // Elf_Verdaux
  uint32_t name = 0;
  uint32_t next = 0;
};
inline constexpr uint64_t kVerdauxSize = 8;
inline std::optional<Verdaux> ReadVerdaux(const ByteReader& r, uint64_t at) {
  if (!r.Contains(at, kVerdauxSize)) return std::nullopt;
  const internal::Fields f(r, at);
  return Verdaux{f.Get<uint32_t>(0), f.Get<uint32_t>(4)};
}

struct Verneed {  // Elf_Verneed
  uint16_t version = 0;
  uint16_t cnt = 0;
  uint32_t file = 0;
  uint32_t aux = 0;
  uint32_t next = 0;
};
inline constexpr uint64_t kVerneedSize = 16;
inline std::optional<Verneed> ReadVerneed(const ByteReader& r, uint64_t at) {
  if (!r.Contains(at, kVerneedSize)) return std::nullopt;
  const internal::Fields f(r, at);
  return Verneed{f.Get<uint16_t>(0), f.Get<uint16_t>(2), f.Get<uint32_t>(4), f.Get<uint32_t>(8),
                 f.Get<uint32_t>(12)};
}

struct Vernaux {  // Elf_Vernaux
  uint32_t hash = 0;
  uint16_t flags = 0;
  uint16_t other = 0;
  uint32_t name = 0;
  uint32_t next = 0;
};
inline constexpr uint64_t kVernauxSize = 16;
inline std::optional<Vernaux> ReadVernaux(const ByteReader& r, uint64_t at) {
  if (!r.Contains(at, kVernauxSize)) return std::nullopt;
  const internal::Fields f(r, at);
  return Vernaux{f.Get<uint32_t>(0), f.Get<uint16_t>(4), f.Get<uint16_t>(6), f.Get<uint32_t>(8),
                 f.Get<uint32_t>(12)};
}

// Elf_Nhdr; the name follows, then the descriptor (each padded to 4 bytes).
struct Nhdr {
  uint32_t namesz = 0;
  uint32_t descsz = 0;
  uint32_t type = 0;
};
inline constexpr uint64_t kNhdrSize = 12;
inline std::optional<Nhdr> ReadNhdr(const ByteReader& r, uint64_t at) {
  if (!r.Contains(at, kNhdrSize)) return std::nullopt;
  const internal::Fields f(r, at);
  return Nhdr{f.Get<uint32_t>(0), f.Get<uint32_t>(4), f.Get<uint32_t>(8)};
}

// The header of .gnu.hash (DT_GNU_HASH); the Bloom filter's words, the buckets and the chains
// follow.
struct GnuHashHeader {
  uint32_t nbuckets = 0;
  uint32_t symoffset = 0;
  uint32_t bloom_size = 0;
  uint32_t bloom_shift = 0;
};
inline constexpr uint64_t kGnuHashHeaderSize = 16;
inline std::optional<GnuHashHeader> ReadGnuHashHeader(const ByteReader& r) {
  if (!r.Contains(0, kGnuHashHeaderSize)) return std::nullopt;
  const internal::Fields f(r, 0);
  return GnuHashHeader{f.Get<uint32_t>(0), f.Get<uint32_t>(4), f.Get<uint32_t>(8),
                       f.Get<uint32_t>(12)};
}

// The header of .hash (DT_HASH); nbucket buckets and nchain chain entries follow.
struct SysvHashHeader {
  uint32_t nbucket = 0;
  uint32_t nchain = 0;
};
inline constexpr uint64_t kSysvHashHeaderSize = 8;
inline std::optional<SysvHashHeader> ReadSysvHashHeader(const ByteReader& r) {
  if (!r.Contains(0, kSysvHashHeaderSize)) return std::nullopt;
  const internal::Fields f(r, 0);
  return SysvHashHeader{f.Get<uint32_t>(0), f.Get<uint32_t>(4)};
}

}  // namespace abicheck::elf

#endif  // ABICHECK_LIB_ELF_RECORDS_H_
