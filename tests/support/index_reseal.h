// Makes a modified index file consistent again — file size, every name block's CRC-32C, the
// header checksum — so that tests and the index fuzzer reach the parsers behind the checksums
// (docs/index-format.md). Every read is bounds-checked: on a mangled layout it fixes what it can.
#ifndef ABICHECK_TESTS_SUPPORT_INDEX_RESEAL_H_
#define ABICHECK_TESTS_SUPPORT_INDEX_RESEAL_H_

#include <isa-l/crc.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace abicheck::testing {

inline void ResealIndex(std::vector<uint8_t>& b) {
  constexpr uint64_t kHeader = 80;
  if (b.size() < kHeader) return;
  auto rd = [&](uint64_t at, int n) -> uint64_t {
    if (at > b.size() || static_cast<uint64_t>(n) > b.size() - at) return UINT64_MAX;
    uint64_t v = 0;
    std::memcpy(&v, &b[at], n);
    return v;
  };
  auto wr = [&](uint64_t at, uint64_t v, int n) {
    if (at <= b.size() && static_cast<uint64_t>(n) <= b.size() - at) std::memcpy(&b[at], &v, n);
  };
  wr(16, b.size(), 8);
  const uint64_t blocks = rd(64, 8);
  if (blocks < kHeader || blocks > b.size()) return;
  wr(72, b.size() - blocks, 8);
  // The name section: header, Bloom filter, attributes, entry lists, then the block table.
  const uint64_t s = rd(48, 8);
  const uint64_t nblocks = rd(s + 8, 4), nattrs = rd(s + 16, 4), words = rd(s + 20, 4);
  if (s == UINT64_MAX || nblocks == UINT64_MAX || nattrs == UINT64_MAX || words == UINT64_MAX)
    return;
  const uint64_t lists_at = s + 24 + words * 8 + nattrs * 8;
  const uint64_t nlists = rd(lists_at, 4);
  if (nlists == UINT64_MAX) return;
  const uint64_t list_bytes = rd(lists_at + 4 + nlists * 4, 4);
  if (list_bytes == UINT64_MAX) return;
  const uint64_t table = lists_at + 4 + (nlists + 1) * 4 + list_bytes;
  for (uint64_t i = 0; i < nblocks && i < (1u << 24); ++i) {
    const uint64_t from = rd(table + 16 * i, 4), to = rd(table + 16 * (i + 1), 4);
    if (from == UINT64_MAX || to == UINT64_MAX || from > to || to > b.size() - blocks) break;
    wr(table + 16 * i + 12, crc32_iscsi(b.data() + blocks + from, static_cast<int>(to - from), 0),
       4);
  }
  wr(24, crc32_iscsi(b.data() + kHeader, static_cast<int>(blocks - kHeader), 0), 4);
}

}  // namespace abicheck::testing

#endif  // ABICHECK_TESTS_SUPPORT_INDEX_RESEAL_H_
