// Small ELF images for the reader and symbol-table tests, and the table reader they share.
#ifndef ABICHECK_TESTS_UNIT_ELF_TABLES_H_
#define ABICHECK_TESTS_UNIT_ELF_TABLES_H_

#include <cstring>
#include <map>

#include "lib/elf/elf_file.h"
#include "lib/io/byte_reader.h"
#include "lib/symbols/symbol_table.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_util.h"

namespace abicheck::testing {

inline ElfBuilder Basic() {
  ElfBuilder b;
  b.soname = "libfoo.so";
  b.needed = {"libc.so.6", "libbar.so.1"};
  b.syms = {{"foo"}, {"bar", false}, {"data", true, 1, 1}};
  b.relocs = {2};
  return b;
}

inline void Patch32(std::vector<uint8_t>& b, uint64_t at, uint32_t v) {
  std::memcpy(&b[at], &v, 4);
}
inline void Patch64(std::vector<uint8_t>& b, uint64_t at, uint64_t v) {
  std::memcpy(&b[at], &v, 8);
}
inline void Patch16(std::vector<uint8_t>& b, uint64_t at, uint16_t v) {
  std::memcpy(&b[at], &v, 2);
}

inline absl::StatusOr<SymbolTable> ReadTable(const std::vector<uint8_t>& bytes,
                                             std::unique_ptr<ElfFile>* keep) {
  absl::StatusOr<ElfFile> elf = ElfFile::Parse("libx.so", bytes);
  if (!elf.ok()) return elf.status();
  *keep = std::make_unique<ElfFile>(*std::move(elf));
  return SymbolTable::Read(**keep);
}

// docs/loader-model.md B7: where _dl_relocate_object stops, and what it would fault on.
inline absl::StatusOr<std::vector<Reference>> ReferencesOf(const std::vector<uint8_t>& bytes) {
  std::unique_ptr<ElfFile> keep;
  absl::StatusOr<SymbolTable> t = ReadTable(bytes, &keep);
  if (!t.ok()) return t.status();
  return t->References();
}

inline ElfBuilder Versioned() {
  ElfBuilder b;
  b.soname = "libv.so";
  b.with_versym = true;
  b.syms = {{"foo", true, 1, 2, 0, 2}, {"foo", true, 1, 2, 0, 0x8003}, {"ext", false, 1, 2, 0, 4}};
  b.verdefs = {{"libv.so", 1, 1}, {"V1", 2}, {"V2", 3}};
  b.verneeds = {{"libc.so.6", {{"GLIBC_2.2.5", 4}}}};
  return b;
}

}  // namespace abicheck::testing

#endif  // ABICHECK_TESTS_UNIT_ELF_TABLES_H_
