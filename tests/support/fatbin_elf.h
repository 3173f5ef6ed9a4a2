// Test and fuzz support: an ELF64 shared object whose only content is a .nv_fatbin section of
// the given bytes (and its section name table), so that fat binary bytes — hand-made, mutated or
// fuzzed — reach ReadDeviceCode() through the same section-header path as nvcc's output.
#ifndef ABICHECK_TESTS_SUPPORT_FATBIN_ELF_H_
#define ABICHECK_TESTS_SUPPORT_FATBIN_ELF_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace abicheck::testing {

// One entry of a hand-made container: the fields the reader reads.
struct EntrySpec {
  uint16_t kind = 2;  // 1 PTX, 2 ELF
  uint32_t arch = 90;
  uint64_t flags = 0x11;
  uint16_t major = 1, minor = 8;
  uint64_t payload = 24;
  uint32_t header = 64;
};

inline void Put(std::vector<uint8_t>& b, size_t at, uint64_t v, int n) {
  std::memcpy(&b[at], &v, n);
}

// A fat binary container (16-byte header) of these entries, each with a zero payload.
inline std::vector<uint8_t> Container(const std::vector<EntrySpec>& entries) {
  std::vector<uint8_t> body;
  for (const EntrySpec& e : entries) {
    std::vector<uint8_t> h(e.header + e.payload, 0);
    Put(h, 0, e.kind, 2);
    Put(h, 2, 0x0101, 2);
    Put(h, 4, e.header, 4);
    Put(h, 8, e.payload, 8);
    Put(h, 24, e.minor, 2);
    Put(h, 26, e.major, 2);
    Put(h, 28, e.arch, 4);
    Put(h, 40, e.flags, 8);
    body.insert(body.end(), h.begin(), h.end());
  }
  std::vector<uint8_t> c(16, 0);
  Put(c, 0, 0xBA55ED50, 4);
  Put(c, 4, 1, 2);
  Put(c, 6, 16, 2);
  Put(c, 8, body.size(), 8);
  c.insert(c.end(), body.begin(), body.end());
  return c;
}

inline std::vector<uint8_t> FatbinElf(const uint8_t* data, size_t size) {
  const std::string names("\0.nv_fatbin\0.shstrtab\0", 22);
  const uint64_t data_off = 64, names_off = data_off + size;
  const uint64_t shoff = (names_off + names.size() + 7) & ~uint64_t{7};
  std::vector<uint8_t> b(shoff + 3 * 64, 0);
  auto put = [&](uint64_t at, uint64_t v, int n) { std::memcpy(&b[at], &v, n); };
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::memcpy(b.data(), ident, sizeof ident);
  put(16, 3, 2);      // ET_DYN
  put(18, 62, 2);     // EM_X86_64
  put(20, 1, 4);      // EV_CURRENT
  put(40, shoff, 8);  // e_shoff
  put(52, 64, 2);     // e_ehsize
  put(54, 56, 2);     // e_phentsize
  put(58, 64, 2);     // e_shentsize
  put(60, 3, 2);      // e_shnum
  put(62, 2, 2);      // e_shstrndx
  if (size > 0) std::memcpy(&b[data_off], data, size);
  std::memcpy(&b[names_off], names.data(), names.size());
  auto section = [&](int i, uint32_t name, uint32_t type, uint64_t off, uint64_t sz) {
    const uint64_t at = shoff + i * 64;
    put(at, name, 4);
    put(at + 4, type, 4);
    put(at + 24, off, 8);
    put(at + 32, sz, 8);
  };
  section(1, 1, 1, data_off, size);            // .nv_fatbin, SHT_PROGBITS
  section(2, 12, 3, names_off, names.size());  // .shstrtab, SHT_STRTAB
  return b;
}

}  // namespace abicheck::testing

#endif  // ABICHECK_TESTS_SUPPORT_FATBIN_ELF_H_
