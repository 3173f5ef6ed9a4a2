// Makes a modified index file consistent again — file size, every name block's CRC-32C, the
// base-name section's and the header's checksums — so that tests and the index fuzzer reach the
// parsers behind the checksums (docs/index-format.md). The layout is the index's own
// (lib/index/index_layout.h); every read is bounds-checked: on a mangled layout it fixes what it
// can.
#ifndef ABICHECK_TESTS_SUPPORT_INDEX_RESEAL_H_
#define ABICHECK_TESTS_SUPPORT_INDEX_RESEAL_H_

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "lib/index/index_layout.h"
#include "lib/io/byte_reader.h"

namespace abicheck::testing {

inline void ResealIndex(std::vector<uint8_t>& b) {
  namespace L = index_layout;
  auto wr = [&](uint64_t at, uint32_t v, int n) {
    if (at <= b.size() && static_cast<uint64_t>(n) <= b.size() - at) std::memcpy(&b[at], &v, n);
  };
  const ByteReader r({b.data(), b.size()}, /*big_endian=*/false);
  std::optional<L::FileHeader> h = L::DecodeFileHeader(r);
  if (!h) return;
  const uint64_t size = b.size();
  std::memcpy(&b[L::kFileSizeAt], &size, 8);
  const uint64_t blocks = h->blocks_offset;
  if (blocks < L::kFileHeaderSize || blocks > b.size()) return;
  const uint64_t blocks_size = b.size() - blocks;
  std::memcpy(&b[L::kBlocksSizeAt], &blocks_size, 8);
  // The name section: header, Bloom filter, attributes, entry lists, then the block table.
  std::optional<ByteReader> section =
      r.Slice(h->names_offset, b.size() - std::min<uint64_t>(b.size(), h->names_offset));
  std::optional<L::NameSectionHeader> nh =
      section ? L::DecodeNameSectionHeader(*section) : std::nullopt;
  if (!nh) return;
  const uint64_t lists_at = L::EntryListsOffset(*nh);
  const std::optional<uint32_t> nlists = section->ReadAt<uint32_t>(lists_at);
  if (!nlists) return;
  const std::optional<uint32_t> list_bytes =
      section->ReadAt<uint32_t>(lists_at + 4 + uint64_t{*nlists} * 4);
  if (!list_bytes) return;
  const uint64_t table = h->names_offset + lists_at + 4 + (uint64_t{*nlists} + 1) * 4 + *list_bytes;
  for (uint64_t i = 0; i < nh->blocks && i < (1u << 24); ++i) {
    const std::optional<uint32_t> from = r.ReadAt<uint32_t>(table + L::kBlockTableEntrySize * i);
    const std::optional<uint32_t> to =
        r.ReadAt<uint32_t>(table + L::kBlockTableEntrySize * (i + 1));
    if (!from || !to || *from > *to || *to > b.size() - blocks) break;
    wr(table + L::kBlockTableEntrySize * i + L::kBlockCrcAt,
       L::Crc32c({b.data() + blocks + *from, *to - *from}), 4);
  }
  // The base-name section ends where the blocks begin; the header checksum covers what precedes it.
  const uint64_t base = h->base_names_offset;
  if (base < L::kFileHeaderSize || base > blocks) return;
  wr(L::kBaseNamesCrcAt, L::Crc32c({b.data() + base, blocks - base}), 4);
  wr(L::kCrcAt, L::Crc32c({b.data() + L::kFileHeaderSize, base - L::kFileHeaderSize}), 4);
}

}  // namespace abicheck::testing

#endif  // ABICHECK_TESTS_SUPPORT_INDEX_RESEAL_H_
