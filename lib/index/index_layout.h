// The index file's fixed-layout parts (docs/index-format.md), defined once for the writer, the
// reader and the tests that reseal edited indexes: the file header, the name section's header,
// and where the name section's parts lie. All integers little-endian.
#ifndef ABICHECK_LIB_INDEX_INDEX_LAYOUT_H_
#define ABICHECK_LIB_INDEX_INDEX_LAYOUT_H_

#include <isa-l/crc.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "lib/io/byte_reader.h"

namespace abicheck::index_layout {

// CRC-32C (Castagnoli, ISA-L), the checksum of every part of an index that carries one; in
// pieces under 1 GiB (ISA-L takes an int length).
inline uint32_t Crc32c(absl::Span<const uint8_t> b) {
  uint32_t crc = 0;
  for (size_t at = 0; at < b.size();) {
    const size_t n = std::min<size_t>(b.size() - at, size_t{1} << 30);
    crc = crc32_iscsi(const_cast<uint8_t*>(b.data() + at), static_cast<int>(n), crc);
    at += n;
  }
  return crc;
}

inline constexpr char kMagic[8] = {'A', 'B', 'I', 'C', 'H', 'K', 'I', 'X'};

inline void PutU16(std::string* s, uint16_t v) { s->append(reinterpret_cast<const char*>(&v), 2); }
inline void PutU32(std::string* s, uint32_t v) { s->append(reinterpret_cast<const char*>(&v), 4); }
inline void PutU64(std::string* s, uint64_t v) { s->append(reinterpret_cast<const char*>(&v), 8); }

// The file header: magic, u32 version, u32 flags (0), u64 file size, u32 CRC-32C of the bytes
// from the header's end to the base-name section, u32 CRC-32C of the base-name section, then
// (offset, size) of the table of contents, the name section, the compressed name blocks (which end
// the file) and the base-name section (just before them). The blocks and the base names carry
// their own checksums, verified when a check first uses them.
struct FileHeader {
  uint32_t version = 0;
  uint32_t flags = 0;
  uint64_t file_size = 0;
  uint32_t crc = 0;
  uint32_t base_names_crc = 0;
  uint64_t toc_offset = 0, toc_size = 0;
  uint64_t names_offset = 0, names_size = 0;
  uint64_t blocks_offset = 0, blocks_size = 0;
  uint64_t base_names_offset = 0, base_names_size = 0;
};
inline constexpr uint64_t kFileHeaderSize = 96;
// The fields a resealing rewrites in place.
inline constexpr uint64_t kFileSizeAt = 16, kCrcAt = 24, kBaseNamesCrcAt = 28, kBlocksSizeAt = 72;

inline std::string EncodeFileHeader(const FileHeader& h) {
  std::string out(kMagic, sizeof(kMagic));
  PutU32(&out, h.version);
  PutU32(&out, h.flags);
  PutU64(&out, h.file_size);
  PutU32(&out, h.crc);
  PutU32(&out, h.base_names_crc);
  PutU64(&out, h.toc_offset);
  PutU64(&out, h.toc_size);
  PutU64(&out, h.names_offset);
  PutU64(&out, h.names_size);
  PutU64(&out, h.blocks_offset);
  PutU64(&out, h.blocks_size);
  PutU64(&out, h.base_names_offset);
  PutU64(&out, h.base_names_size);
  return out;
}
// nullopt when `r` is shorter than a header (the magic and the version are not checked here).
inline std::optional<FileHeader> DecodeFileHeader(const ByteReader& r) {
  if (!r.Contains(0, kFileHeaderSize)) return std::nullopt;
  FileHeader h;
  h.version = *r.ReadAt<uint32_t>(8);
  h.flags = *r.ReadAt<uint32_t>(12);
  h.file_size = *r.ReadAt<uint64_t>(kFileSizeAt);
  h.crc = *r.ReadAt<uint32_t>(kCrcAt);
  h.base_names_crc = *r.ReadAt<uint32_t>(kBaseNamesCrcAt);
  h.toc_offset = *r.ReadAt<uint64_t>(32);
  h.toc_size = *r.ReadAt<uint64_t>(40);
  h.names_offset = *r.ReadAt<uint64_t>(48);
  h.names_size = *r.ReadAt<uint64_t>(56);
  h.blocks_offset = *r.ReadAt<uint64_t>(64);
  h.blocks_size = *r.ReadAt<uint64_t>(kBlocksSizeAt);
  h.base_names_offset = *r.ReadAt<uint64_t>(80);
  h.base_names_size = *r.ReadAt<uint64_t>(88);
  return h;
}

// The name section's header (lib/index/name_blocks.cc has the rest of its layout): u32 names per
// block, names, blocks, records, attributes, Bloom words. Then the Bloom filter (u64 words), the
// attributes (8 bytes each), the entry lists (u32 count, count + 1 u32 offsets, the bytes), the
// block table (blocks + 1 entries of 16 bytes: u32 offset in the block data, u32 first record,
// u32 decompressed size, u32 CRC-32C of the compressed block), the separators.
struct NameSectionHeader {
  uint32_t names_per_block = 0;
  uint32_t names = 0;
  uint32_t blocks = 0;
  uint32_t records = 0;
  uint32_t attributes = 0;
  uint32_t bloom_words = 0;
};
inline constexpr uint64_t kNameSectionHeaderSize = 24;
inline constexpr uint64_t kAttributeSize = 8;
inline constexpr uint64_t kBlockTableEntrySize = 16;
inline constexpr uint64_t kBlockCrcAt = 12;  // in a block-table entry
struct BlockTableEntry {
  uint32_t offset = 0;        // in the block data
  uint32_t first_record = 0;  // the block's first record
  uint32_t size = 0;          // decompressed
  uint32_t crc = 0;           // CRC-32C of the compressed block
};
inline std::string EncodeBlockTableEntry(const BlockTableEntry& e) {
  std::string out;
  PutU32(&out, e.offset);
  PutU32(&out, e.first_record);
  PutU32(&out, e.size);
  PutU32(&out, e.crc);
  return out;
}
// Entry `b` of a table that holds it (checked when the section is opened).
inline BlockTableEntry ReadBlockTableEntry(const ByteReader& table, uint64_t b) {
  const uint64_t at = b * kBlockTableEntrySize;
  return {*table.ReadAt<uint32_t>(at), *table.ReadAt<uint32_t>(at + 4),
          *table.ReadAt<uint32_t>(at + 8), *table.ReadAt<uint32_t>(at + kBlockCrcAt)};
}

inline std::string EncodeNameSectionHeader(const NameSectionHeader& h) {
  std::string out;
  PutU32(&out, h.names_per_block);
  PutU32(&out, h.names);
  PutU32(&out, h.blocks);
  PutU32(&out, h.records);
  PutU32(&out, h.attributes);
  PutU32(&out, h.bloom_words);
  return out;
}
inline std::optional<NameSectionHeader> DecodeNameSectionHeader(const ByteReader& section) {
  if (!section.Contains(0, kNameSectionHeaderSize)) return std::nullopt;
  return NameSectionHeader{*section.ReadAt<uint32_t>(0),  *section.ReadAt<uint32_t>(4),
                           *section.ReadAt<uint32_t>(8),  *section.ReadAt<uint32_t>(12),
                           *section.ReadAt<uint32_t>(16), *section.ReadAt<uint32_t>(20)};
}
// Where the entry lists start in the section (after the header, Bloom filter and attributes).
inline uint64_t EntryListsOffset(const NameSectionHeader& h) {
  return kNameSectionHeaderSize + uint64_t{h.bloom_words} * 8 +
         uint64_t{h.attributes} * kAttributeSize;
}

// The base-name section (docs/index-format.md, "Base names"): u32 buckets (a power of two), u32
// entries, u32 starts[buckets + 1], then the entries, bucketed by the low bits of their source
// name's hash.
struct BaseNameEntry {
  uint32_t token = 0;         // SourceNameHash of the source name
  uint32_t context = 0;       // ContextKey of the scope before it
  uint32_t first_record = 0;  // the name's first entry in the name section
  uint32_t list = 0;          // the name's entry list
};
inline constexpr uint64_t kBaseNamesHeaderSize = 8;
inline constexpr uint64_t kBaseNameEntrySize = 16;

}  // namespace abicheck::index_layout

#endif  // ABICHECK_LIB_INDEX_INDEX_LAYOUT_H_
