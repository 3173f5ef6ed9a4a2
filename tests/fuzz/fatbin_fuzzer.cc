// Fuzzes the fat binary reader: the input is the content of a .nv_fatbin section, wrapped in a
// section-only ELF (tests/support/fatbin_elf.h), walked, and judged against a few GPUs.
#include <cstddef>
#include <cstdint>

#include "lib/elf/elf_file.h"
#include "lib/elf/fatbin.h"
#include "tests/support/fatbin_elf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> elf_bytes = abicheck::testing::FatbinElf(data, size);
  absl::StatusOr<abicheck::ElfFile> elf = abicheck::ElfFile::Parse("fuzz.so", elf_bytes);
  if (!elf.ok()) return 0;
  const abicheck::DeviceCode code = abicheck::ReadDeviceCode(*elf);
  for (const abicheck::DeviceImage& img : code.images) {
    for (int target : {75, 80, 90, 100, 120, 121}) (void)abicheck::RunsOn(img, target);
    (void)abicheck::CuobjdumpArchName(img);
  }
  return 0;
}
