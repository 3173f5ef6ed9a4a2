// Builds small, valid ELF shared objects in memory — one PT_LOAD mapping the whole file at
// vaddr == offset, PT_DYNAMIC, .dynstr, .dynsym, DT_HASH, versions, relocations — and records
// where each structure landed so that tests can corrupt exactly one field.
#ifndef ABICHECK_TESTS_UNIT_ELF_BUILDER_H_
#define ABICHECK_TESTS_UNIT_ELF_BUILDER_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace abicheck::testing {

struct SymSpec {
  std::string name;
  bool defined = true;
  uint8_t bind = 1;  // STB_GLOBAL
  uint8_t type = 2;  // STT_FUNC
  uint8_t vis = 0;   // STV_DEFAULT
  uint16_t versym = 1;
};

struct VerdefSpec {
  std::string name;
  uint16_t index;
  uint16_t flags = 0;
};

struct VerneedSpec {
  std::string file;
  std::vector<VerdefSpec> versions;  // name, vna_other index, vna_flags
};

struct Layout {
  uint64_t phoff = 0, dynstr = 0, dynsym = 0, hash = 0, versym = 0, verdef = 0, verneed = 0,
           rela = 0, dynamic = 0, size = 0;
  std::map<std::string, uint64_t> dyn_entry;  // "DT_x" -> offset of that entry's value
};

class ElfBuilder {
 public:
  bool is64 = true;
  bool big_endian = false;
  uint16_t machine = 62;
  uint16_t type = 3;  // ET_DYN
  std::string soname;
  std::vector<std::string> needed;
  std::string runpath;              // DT_RUNPATH, when not empty
  std::string rpath;                // DT_RPATH, when not empty
  std::vector<SymSpec> syms;        // index 0 (the null symbol) is added
  std::vector<VerdefSpec> verdefs;  // include the BASE entry yourself
  std::vector<VerneedSpec> verneeds;
  std::vector<uint32_t> relocs;  // symbol indices, one R_X86_64_GLOB_DAT each
  uint64_t relacount = 0;        // DT_RELACOUNT, when not 0
  bool with_hash = true;
  bool with_versym = false;

  std::vector<uint8_t> Build(Layout* layout = nullptr) {
    bytes_.clear();
    Layout L;
    const uint64_t ehsize = is64 ? 64 : 52, phentsize = is64 ? 56 : 32;
    bytes_.resize(ehsize + 2 * phentsize);
    L.phoff = ehsize;
    // .dynstr
    std::string strtab(1, '\0');
    // A string already in the table is shared (a map, not a search of the table: tests build
    // tables of 40,000 names).
    std::unordered_map<std::string, size_t> offsets;
    auto add_str = [&](const std::string& s) {
      if (!s.empty()) {
        if (auto it = offsets.find(s); it != offsets.end()) return it->second;
      }
      const size_t at = strtab.size();
      strtab += s;
      strtab.push_back('\0');
      if (!s.empty()) offsets.emplace(s, at);
      return at;
    };
    std::vector<uint64_t> needed_off;
    for (const std::string& n : needed) needed_off.push_back(add_str(n));
    uint64_t soname_off = soname.empty() ? 0 : add_str(soname);
    uint64_t runpath_off = runpath.empty() ? 0 : add_str(runpath);
    uint64_t rpath_off = rpath.empty() ? 0 : add_str(rpath);
    std::vector<uint64_t> sym_off;
    for (const SymSpec& s : syms) sym_off.push_back(add_str(s.name));
    std::vector<uint64_t> vd_off, vn_file_off;
    std::vector<std::vector<uint64_t>> vn_off;
    for (const VerdefSpec& v : verdefs) vd_off.push_back(add_str(v.name));
    for (const VerneedSpec& n : verneeds) {
      vn_file_off.push_back(add_str(n.file));
      vn_off.emplace_back();
      for (const VerdefSpec& v : n.versions) vn_off.back().push_back(add_str(v.name));
    }
    Align(8);
    L.dynstr = bytes_.size();
    bytes_.insert(bytes_.end(), strtab.begin(), strtab.end());
    // .dynsym
    Align(8);
    L.dynsym = bytes_.size();
    const uint32_t nsyms = static_cast<uint32_t>(syms.size() + 1);
    const uint64_t symsz = is64 ? 24 : 16;
    bytes_.resize(bytes_.size() + symsz * nsyms, 0);
    for (size_t i = 0; i < syms.size(); ++i) {
      const SymSpec& s = syms[i];
      const uint64_t at = L.dynsym + symsz * (i + 1);
      const uint8_t info = static_cast<uint8_t>((s.bind << 4) | s.type);
      const uint16_t shndx = s.defined ? 7 : 0;
      const uint64_t value = s.defined ? 0x1000 + 16 * i : 0;
      Put32(at, static_cast<uint32_t>(sym_off[i]));
      if (is64) {
        bytes_[at + 4] = info;
        bytes_[at + 5] = s.vis;
        Put16(at + 6, shndx);
        Put64(at + 8, value);
        Put64(at + 16, 8);
      } else {
        Put32(at + 4, static_cast<uint32_t>(value));
        Put32(at + 8, 8);
        bytes_[at + 12] = info;
        bytes_[at + 13] = s.vis;
        Put16(at + 14, shndx);
      }
    }
    // DT_HASH with one bucket: every symbol in one chain, highest index first.
    if (with_hash) {
      Align(8);
      L.hash = bytes_.size();
      bytes_.resize(bytes_.size() + 4 * (2 + 1 + nsyms), 0);
      Put32(L.hash, 1);
      Put32(L.hash + 4, nsyms);
      Put32(L.hash + 8, nsyms - 1);
      for (uint32_t i = 1; i < nsyms; ++i) Put32(L.hash + 12 + 4 * i, i - 1);
    }
    if (with_versym) {
      Align(8);
      L.versym = bytes_.size();
      bytes_.resize(bytes_.size() + 2 * nsyms, 0);
      for (size_t i = 0; i < syms.size(); ++i) Put16(L.versym + 2 * (i + 1), syms[i].versym);
    }
    if (!verdefs.empty()) {
      Align(8);
      L.verdef = bytes_.size();
      for (size_t i = 0; i < verdefs.size(); ++i) {
        const uint64_t at = bytes_.size();
        bytes_.resize(at + 28, 0);
        Put16(at, 1);
        Put16(at + 2, verdefs[i].flags);
        Put16(at + 4, verdefs[i].index);
        Put16(at + 6, 1);
        Put32(at + 8, ElfHash(verdefs[i].name));
        Put32(at + 12, 20);
        Put32(at + 16, i + 1 < verdefs.size() ? 28 : 0);
        Put32(at + 20, static_cast<uint32_t>(vd_off[i]));
        Put32(at + 24, 0);
      }
    }
    if (!verneeds.empty()) {
      Align(8);
      L.verneed = bytes_.size();
      for (size_t i = 0; i < verneeds.size(); ++i) {
        const uint64_t at = bytes_.size();
        const size_t n = verneeds[i].versions.size();
        bytes_.resize(at + 16 + 16 * n, 0);
        Put16(at, 1);
        Put16(at + 2, static_cast<uint16_t>(n));
        Put32(at + 4, static_cast<uint32_t>(vn_file_off[i]));
        Put32(at + 8, 16);
        Put32(at + 12, i + 1 < verneeds.size() ? static_cast<uint32_t>(16 + 16 * n) : 0);
        for (size_t j = 0; j < n; ++j) {
          const uint64_t a = at + 16 + 16 * j;
          Put32(a, ElfHash(verneeds[i].versions[j].name));
          Put16(a + 4, verneeds[i].versions[j].flags);
          Put16(a + 6, verneeds[i].versions[j].index);
          Put32(a + 8, static_cast<uint32_t>(vn_off[i][j]));
          Put32(a + 12, j + 1 < n ? 16 : 0);
        }
      }
    }
    const uint64_t relasz = is64 ? 24 : 12;
    if (!relocs.empty()) {
      Align(8);
      L.rela = bytes_.size();
      bytes_.resize(bytes_.size() + relasz * relocs.size(), 0);
      for (size_t i = 0; i < relocs.size(); ++i) {
        const uint64_t at = L.rela + relasz * i;
        if (is64) {
          Put64(at, 0x2000 + 8 * i);
          Put64(at + 8, (uint64_t{relocs[i]} << 32) | 6);  // R_X86_64_GLOB_DAT
        } else {
          Put32(at, static_cast<uint32_t>(0x2000 + 4 * i));
          Put32(at + 4, (relocs[i] << 8) | 6);
        }
      }
    }
    // PT_DYNAMIC
    std::vector<std::pair<std::string, std::pair<int64_t, uint64_t>>> dyn;
    for (uint64_t off : needed_off) dyn.push_back({"DT_NEEDED", {1, off}});
    if (!soname.empty()) dyn.push_back({"DT_SONAME", {14, soname_off}});
    if (!runpath.empty()) dyn.push_back({"DT_RUNPATH", {29, runpath_off}});
    if (!rpath.empty()) dyn.push_back({"DT_RPATH", {15, rpath_off}});
    dyn.push_back({"DT_STRTAB", {5, L.dynstr}});
    dyn.push_back({"DT_STRSZ", {10, strtab.size()}});
    dyn.push_back({"DT_SYMTAB", {6, L.dynsym}});
    dyn.push_back({"DT_SYMENT", {11, symsz}});
    if (with_hash) dyn.push_back({"DT_HASH", {4, L.hash}});
    if (with_versym) dyn.push_back({"DT_VERSYM", {0x6ffffff0, L.versym}});
    if (!verdefs.empty()) {
      dyn.push_back({"DT_VERDEF", {0x6ffffffc, L.verdef}});
      dyn.push_back({"DT_VERDEFNUM", {0x6ffffffd, verdefs.size()}});
    }
    if (!verneeds.empty()) {
      dyn.push_back({"DT_VERNEED", {0x6ffffffe, L.verneed}});
      dyn.push_back({"DT_VERNEEDNUM", {0x6fffffff, verneeds.size()}});
    }
    if (!relocs.empty()) {
      dyn.push_back({"DT_RELA", {7, L.rela}});
      dyn.push_back({"DT_RELASZ", {8, relasz * relocs.size()}});
      dyn.push_back({"DT_RELAENT", {9, relasz}});
      if (relacount != 0) dyn.push_back({"DT_RELACOUNT", {0x6ffffff9, relacount}});
    }
    dyn.push_back({"DT_NULL", {0, 0}});
    Align(8);
    L.dynamic = bytes_.size();
    const uint64_t dsz = is64 ? 16 : 8;
    bytes_.resize(bytes_.size() + dsz * dyn.size(), 0);
    for (size_t i = 0; i < dyn.size(); ++i) {
      const uint64_t at = L.dynamic + dsz * i;
      PutWord(at, static_cast<uint64_t>(dyn[i].second.first));
      PutWord(at + dsz / 2, dyn[i].second.second);
      L.dyn_entry[dyn[i].first] = at + dsz / 2;
    }
    L.size = bytes_.size();
    // ELF header and program headers.
    const uint8_t ident[] = {0x7f,
                             'E',
                             'L',
                             'F',
                             static_cast<uint8_t>(is64 ? 2 : 1),
                             static_cast<uint8_t>(big_endian ? 2 : 1),
                             1};
    std::memcpy(bytes_.data(), ident, sizeof ident);
    Put16(16, type);
    Put16(18, machine);
    Put32(20, 1);
    PutWord(is64 ? 32 : 28, L.phoff);
    Put16(is64 ? 52 : 40, static_cast<uint16_t>(ehsize));
    Put16(is64 ? 54 : 42, static_cast<uint16_t>(phentsize));
    Put16(is64 ? 56 : 44, 2);
    // PT_LOAD, read-write-execute, its memory image reaching past the file to the relocation
    // targets at 0x2000 (the loader writes there: docs/loader-model.md B7).
    PutPhdr(L.phoff, 1, 7, 0, L.size, std::max<uint64_t>(L.size, 0x3000 + 8 * relocs.size()));
    PutPhdr(L.phoff + phentsize, 2, 6, L.dynamic, dsz * dyn.size());  // PT_DYNAMIC
    if (layout != nullptr) *layout = L;
    return bytes_;
  }

  static uint32_t ElfHash(const std::string& name) {
    uint32_t h = 0;
    for (unsigned char c : name) {
      h = (h << 4) + c;
      uint32_t g = h & 0xf0000000u;
      h ^= g >> 24;
      h &= ~g;
    }
    return h;
  }

 private:
  void Align(size_t a) { bytes_.resize((bytes_.size() + a - 1) / a * a, 0); }
  void PutN(uint64_t at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) {
      const int shift = big_endian ? 8 * (n - 1 - i) : 8 * i;
      bytes_[at + i] = static_cast<uint8_t>(v >> shift);
    }
  }
  void Put16(uint64_t at, uint16_t v) { PutN(at, v, 2); }
  void Put32(uint64_t at, uint64_t v) { PutN(at, v, 4); }
  void Put64(uint64_t at, uint64_t v) { PutN(at, v, 8); }
  void PutWord(uint64_t at, uint64_t v) { PutN(at, v, is64 ? 8 : 4); }
  void PutPhdr(uint64_t at, uint32_t type_, uint32_t flags, uint64_t off, uint64_t size,
               uint64_t memsz = 0) {
    if (memsz == 0) memsz = size;
    Put32(at, type_);
    if (is64) {
      Put32(at + 4, flags);
      Put64(at + 8, off);
      Put64(at + 16, off);
      Put64(at + 24, off);
      Put64(at + 32, size);
      Put64(at + 40, memsz);
      Put64(at + 48, 0x1000);
    } else {
      Put32(at + 4, static_cast<uint32_t>(off));
      Put32(at + 8, static_cast<uint32_t>(off));
      Put32(at + 12, static_cast<uint32_t>(off));
      Put32(at + 16, static_cast<uint32_t>(size));
      Put32(at + 20, static_cast<uint32_t>(memsz));
      Put32(at + 24, flags);
      Put32(at + 28, 0x1000);
    }
  }

  std::vector<uint8_t> bytes_;
};

// A library: soname, what it needs, what it defines, what it references (each reference named
// by a relocation).
inline std::vector<uint8_t> SmallLibrary(const std::string& soname, std::vector<std::string> needed,
                                         std::vector<std::string> defs,
                                         std::vector<std::string> refs) {
  ElfBuilder b;
  b.soname = soname;
  b.needed = std::move(needed);
  for (const std::string& d : defs) b.syms.push_back({d});
  for (const std::string& r : refs) {
    b.syms.push_back({r, false});
    b.relocs.push_back(static_cast<uint32_t>(b.syms.size()));
  }
  return b.Build();
}

}  // namespace abicheck::testing

#endif  // ABICHECK_TESTS_UNIT_ELF_BUILDER_H_
