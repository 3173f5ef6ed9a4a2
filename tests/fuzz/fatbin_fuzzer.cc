// Fuzzes the fat binary reader: the input is the content of a .nv_fatbin section, wrapped in a
// section-only ELF (tests/support/fatbin_elf.h), walked, and judged against a few GPUs. The walk
// fed in pieces, as an archive member's is while it inflates (issue 37 item 9), must find what the
// walk of the whole section finds: a difference traps.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "lib/elf/elf_file.h"
#include "lib/elf/fatbin.h"
#include "tests/support/fatbin_elf.h"

namespace {

bool Same(const abicheck::DeviceCode& a, const abicheck::DeviceCode& b) {
  if (a.images.size() != b.images.size() || a.notes != b.notes || a.problems != b.problems ||
      a.stopped != b.stopped || a.has_section_headers != b.has_section_headers)
    return false;
  for (size_t i = 0; i < a.images.size(); ++i) {
    if (a.images[i].offset != b.images[i].offset || a.images[i].size != b.images[i].size ||
        abicheck::ImageName(a.images[i]) != abicheck::ImageName(b.images[i]))
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> elf_bytes = abicheck::testing::FatbinElf(data, size);
  absl::StatusOr<abicheck::ElfFile> elf = abicheck::ElfFile::Parse("fuzz.so", elf_bytes);
  if (!elf.ok()) return 0;
  const abicheck::DeviceCode code = abicheck::ReadDeviceCode(*elf);
  for (const abicheck::DeviceImage& img : code.images) {
    for (int target : {75, 80, 90, 100, 120, 121}) (void)abicheck::RunsOn(img, target);
    (void)abicheck::CuobjdumpArchName(img);
  }
  abicheck::StreamedDeviceCode streamed;
  streamed.layout = abicheck::ReadFatbinLayout(*elf);
  for (const auto& [offset, len] : streamed.layout.sections)
    streamed.walks.emplace_back("fuzz.so", offset, len, elf->reader().big_endian());
  const size_t piece = 1 + size % 61;
  const absl::Span<const uint8_t> all(elf_bytes);
  for (size_t at = 0; at < all.size(); at += piece) {
    for (abicheck::FatbinWalk& w : streamed.walks)
      w.Feed(at, all.subspan(at, std::min(piece, all.size() - at)));
  }
  if (!Same(abicheck::DeviceCodeOf(streamed), code)) __builtin_trap();
  return 0;
}
