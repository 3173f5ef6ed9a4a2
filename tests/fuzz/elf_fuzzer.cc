// Fuzzes the ELF reader and symbol tables: headers, PT_DYNAMIC, .dynsym/.dynstr, versions, both
// hash tables, relocations — every accessor a check or a listing uses.
#include <cstddef>
#include <cstdint>

#include "abicheck/abicheck.h"
#include "lib/demangle/demangle.h"
#include "lib/elf/elf_file.h"
#include "lib/symbols/symbol_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<abicheck::ElfFile> elf = abicheck::ElfFile::Parse("fuzz.so", {data, size});
  if (!elf.ok()) return 0;
  (void)elf->Footprint();
  absl::StatusOr<abicheck::SymbolTable> t = abicheck::SymbolTable::Read(*elf);
  if (!t.ok()) return 0;
  (void)t->Footprint();
  (void)t->References();
  for (uint32_t i = 0; i < t->size() && i < 4096; ++i) {
    abicheck::Symbol s = t->GetOrEmpty(i);
    (void)t->Slot(t->Versym(i));
    if (i < 64 && !s.name.empty()) {
      int seen = 0;
      t->ForEachNamed(abicheck::HashedName(s.name), [&](uint32_t) { return ++seen > 1000; });
      if (s.name.size() < 256) (void)abicheck::Demangle(s.name);
      if (s.name.size() < 4096) (void)abicheck::DemangleLikeNm(s.name);
    }
  }
  return 0;
}
