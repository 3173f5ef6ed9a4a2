// Name section layout (all integers little-endian; offsets relative to the section):
//   u32 names per block, u32 names, u32 blocks, u32 records, u32 attributes, u32 Bloom words
//   Bloom filter: u64 words (12 bits per name), 5 bits per name at (gnu + i * sysv) mod bits
//     for i in 0..4 (0.5 % false positives) — names not in the index are answered without
//     inflating anything (most of a module's references go to libc and libstdc++)
//   attributes: 8 bytes each: u8 st_info, u8 st_other, u16 st_shndx, u16 versym, u16 flags (bit 0:
//     st_value is not zero)
//   entry lists: u32 lists, lists + 1 u32 offsets, then per list varint count and per entry
//     varint library and varint attribute index — the distinct (library, attributes) sequences;
//     a few hundred serve every name of the four Debian builds
//   block table: blocks + 1 entries of u32 offset in the block data, u32 first record, u32
//     decompressed size, u32 CRC-32C of the compressed block (0 in the last entry)
//   separators: blocks + 1 u32 offsets into the separator bytes, then the bytes; separator b is
//     the shortest prefix of block b's first name that sorts after block b-1's last name
// The LZ4-compressed blocks are not part of the section: the index file stores them last. A block
// is, per name: varint bytes shared with the previous
//     name (0 for a block's first), varint suffix length, the suffix, varint entry list.
#include "lib/index/name_blocks.h"

#include <lz4.h>
#include <lz4hc.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/index/index_layout.h"
#include "lib/symbols/source_names.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

constexpr uint32_t kNamesPerBlock = 16;
constexpr int kBloomProbes = 5;
constexpr uint64_t kBloomBitsPerName = 12;
using index_layout::BlockTableEntry;
using index_layout::kBlockTableEntrySize;
using index_layout::ReadBlockTableEntry;
// A block of 16 names is a few KB; a hostile size field cannot make us allocate more than this,
// and the writer refuses names that would need more.
constexpr uint32_t kMaxBlockBytes = 4u << 20;

using index_layout::PutU16;
using index_layout::PutU32;
using index_layout::PutU64;
void PutVarint(std::string* s, uint64_t v) {
  while (v >= 0x80) {
    s->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  s->push_back(static_cast<char>(v));
}

uint64_t PackAttr(const ExternalSymbols::Entry& e) {
  return uint64_t{e.info} | uint64_t{e.other} << 8 | uint64_t{e.shndx} << 16 |
         uint64_t{e.versym} << 32 | uint64_t{e.has_value} << 48;
}

// LZ4 (high-compression mode): a block of front-coded names decodes in a few thousand
// instructions. Raw deflate (ISA-L) was 17 % smaller and cost ~30,000 instructions a block —
// mostly building its Huffman tables — which was half of a whole check against an index.
std::string Compress(const std::string& raw) {
  std::string out(LZ4_compressBound(static_cast<int>(raw.size())), '\0');
  const int n = LZ4_compress_HC(raw.data(), out.data(), static_cast<int>(raw.size()),
                                static_cast<int>(out.size()), LZ4HC_CLEVEL_DEFAULT);
  out.resize(n > 0 ? n : 0);
  return out;
}

// A varint reader over one decompressed block.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  bool Varint(uint32_t* v) {
    uint64_t r = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (p == end) return false;
      const uint8_t b = *p++;
      r |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) {
        if (r > UINT32_MAX) return false;
        *v = static_cast<uint32_t>(r);
        return true;
      }
    }
    return false;
  }
  // A front-coded name of a block: how many bytes it keeps of the previous name, then its own
  // (`tail`, within the block's bytes). False when the bytes run out.
  bool Name(uint32_t* shared, absl::string_view* tail) {
    uint32_t suffix;
    if (!Varint(shared) || !Varint(&suffix) || static_cast<uint64_t>(end - p) < suffix)
      return false;
    *tail = absl::string_view(reinterpret_cast<const char*>(p), suffix);
    p += suffix;
    return true;
  }
};

}  // namespace

void NameBlocksWriter::Add(absl::string_view name, uint32_t library,
                           const ExternalSymbols::Entry& e) {
  const uint64_t packed = PackAttr(e);
  auto it = std::find(attrs_.begin(), attrs_.end(), packed);
  uint32_t attr = static_cast<uint32_t>(it - attrs_.begin());
  if (it == attrs_.end()) attrs_.push_back(packed);
  items_.push_back({name, library, static_cast<uint32_t>(items_.size()), attr});
}

// Long: the name section written in its layout's order (sorted names, blocks, Bloom filter,
// block table), docs/index-format.md; NameBlocks::Open reads the same order.
absl::StatusOr<NameBlocksWriter::Output> NameBlocksWriter::Finish() {
  std::sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) {
    return std::tie(a.name, a.library, a.seq) < std::tie(b.name, b.library, b.seq);
  });
  // Names, each with its run of items.
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < items_.size();) {
    size_t j = i + 1;
    while (j < items_.size() && items_[j].name == items_[i].name) ++j;
    runs.emplace_back(i, j);
    i = j;
  }
  names_ = runs.size();
  const uint32_t nblocks =
      static_cast<uint32_t>((runs.size() + kNamesPerBlock - 1) / kNamesPerBlock);
  std::string data, table, seps, sep_offsets;
  std::vector<index_layout::BaseNameEntry> base_names;
  uint32_t record = 0;
  absl::flat_hash_map<std::string, uint32_t> list_ids;
  std::vector<std::string> lists;
  for (uint32_t b = 0; b < nblocks; ++b) {
    const size_t first = size_t{b} * kNamesPerBlock,
                 last = std::min(runs.size(), first + kNamesPerBlock);
    // The separator: the shortest prefix of this block's first name above the previous block's
    // last.
    PutU32(&sep_offsets, static_cast<uint32_t>(seps.size()));
    if (b > 0) {
      absl::string_view prev = items_[runs[first - 1].first].name,
                        cur = items_[runs[first].first].name;
      size_t n = 0;
      while (n < prev.size() && n < cur.size() && prev[n] == cur[n]) ++n;
      seps.append(cur.data(), std::min(cur.size(), n + 1));
    }
    std::string raw;
    absl::string_view prev;
    const uint32_t block_first_record = record;
    for (size_t r = first; r < last; ++r) {
      absl::string_view name = items_[runs[r].first].name;
      size_t shared = 0;
      while (r > first && shared < prev.size() && shared < name.size() &&
             prev[shared] == name[shared])
        ++shared;
      PutVarint(&raw, shared);
      PutVarint(&raw, name.size() - shared);
      raw.append(name.data() + shared, name.size() - shared);
      const uint32_t name_first_record = record;
      std::string list;
      PutVarint(&list, runs[r].second - runs[r].first);
      for (size_t i = runs[r].first; i < runs[r].second; ++i) {
        PutVarint(&list, items_[i].library);
        PutVarint(&list, items_[i].attr);
        ++record;
      }
      auto [it, added] = list_ids.try_emplace(list, static_cast<uint32_t>(lists.size()));
      if (added) lists.push_back(std::move(list));
      PutVarint(&raw, it->second);
      FunctionParts parts;
      if (std::optional<FunctionBaseName> base = BaseNameOf(name, &parts)) {
        for (uint32_t context : base->contexts) {
          base_names.push_back(
              {SourceNameHash(base->token), context, name_first_record, it->second});
        }
      }
      prev = name;
    }
    if (raw.size() > kMaxBlockBytes) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("16 names of over %d bytes: too long to index", kMaxBlockBytes));
    }
    const std::string compressed = Compress(raw);
    if (data.size() + compressed.size() > UINT32_MAX) {
      return absl::ResourceExhaustedError(
          "the compressed names exceed 4 GiB: too many to index in one file");
    }
    table += index_layout::EncodeBlockTableEntry(
        {static_cast<uint32_t>(data.size()), block_first_record, static_cast<uint32_t>(raw.size()),
         index_layout::Crc32c(
             {reinterpret_cast<const uint8_t*>(compressed.data()), compressed.size()})});
    data += compressed;
  }
  PutU32(&sep_offsets, static_cast<uint32_t>(seps.size()));
  table += index_layout::EncodeBlockTableEntry({static_cast<uint32_t>(data.size()), record, 0, 0});

  const uint64_t words = (runs.size() * kBloomBitsPerName + 63) / 64 + 1;
  std::vector<uint64_t> bloom(words);
  for (const auto& run : runs) {
    const HashedName h(items_[run.first].name);
    for (int i = 0; i < kBloomProbes; ++i) {
      const uint64_t bit = (uint64_t{h.gnu} + uint64_t{h.sysv()} * i) % (words * 64);
      bloom[bit / 64] |= uint64_t{1} << (bit % 64);
    }
  }

  std::string out = index_layout::EncodeNameSectionHeader(
      {kNamesPerBlock, static_cast<uint32_t>(runs.size()), nblocks, record,
       static_cast<uint32_t>(attrs_.size()), static_cast<uint32_t>(words)});
  for (uint64_t w : bloom) PutU64(&out, w);
  for (uint64_t a : attrs_) {
    out.push_back(static_cast<char>(a & 0xff));
    out.push_back(static_cast<char>((a >> 8) & 0xff));
    PutU16(&out, static_cast<uint16_t>(a >> 16));
    PutU16(&out, static_cast<uint16_t>(a >> 32));
    PutU16(&out, static_cast<uint16_t>(a >> 48));
  }
  PutU32(&out, static_cast<uint32_t>(lists.size()));
  uint32_t list_bytes = 0;
  for (const std::string& l : lists) {
    PutU32(&out, list_bytes);
    list_bytes += static_cast<uint32_t>(l.size());
  }
  PutU32(&out, list_bytes);
  for (const std::string& l : lists) out += l;
  out += table;
  out += sep_offsets;
  out += seps;
  return Output{std::move(out), std::move(data), EncodeBaseNames(std::move(base_names))};
}

// The base-name section (docs/index-format.md, "Base names"): the entries bucketed by the low bits
// of their source name's hash, about two a bucket; in a bucket by hash, then by name.
std::string NameBlocksWriter::EncodeBaseNames(std::vector<index_layout::BaseNameEntry> entries) {
  uint32_t buckets = 1;
  while (buckets < entries.size() / 2) buckets <<= 1;
  const uint32_t mask = buckets - 1;
  std::sort(entries.begin(), entries.end(), [&](const auto& a, const auto& b) {
    return std::make_tuple(a.token & mask, a.token, a.first_record, a.context) <
           std::make_tuple(b.token & mask, b.token, b.first_record, b.context);
  });
  entries.erase(std::unique(entries.begin(), entries.end(),
                            [](const auto& a, const auto& b) {
                              return a.token == b.token && a.context == b.context &&
                                     a.first_record == b.first_record;
                            }),
                entries.end());
  std::string out;
  PutU32(&out, buckets);
  PutU32(&out, static_cast<uint32_t>(entries.size()));
  std::vector<uint32_t> starts(uint64_t{buckets} + 1, 0);
  for (const auto& e : entries) ++starts[(e.token & mask) + 1];
  for (uint32_t b = 0; b < buckets; ++b) starts[b + 1] += starts[b];
  for (uint32_t v : starts) PutU32(&out, v);
  for (const auto& e : entries) {
    PutU32(&out, e.token);
    PutU32(&out, e.context);
    PutU32(&out, e.first_record);
    PutU32(&out, e.list);
  }
  return out;
}

// Long: the name section's layout verified in file order, each bound beside the field it
// guards (docs/index-format.md).
absl::StatusOr<std::shared_ptr<NameBlocks>> NameBlocks::Open(
    std::string file, ByteReader section, ByteReader blocks, ByteReader base_names,
    uint32_t base_names_crc, std::shared_ptr<const void> keepalive, std::vector<uint8_t> markers) {
  auto corrupt = [&](absl::string_view what) {
    return absl::DataLossError(absl::StrCat(file, ": index name section: ", what));
  };
  static std::atomic<uint64_t> serial{0};
  std::shared_ptr<NameBlocks> t(new NameBlocks());
  t->serial_ = ++serial;
  const std::optional<index_layout::NameSectionHeader> h =
      index_layout::DecodeNameSectionHeader(section);
  if (!h) return corrupt("header truncated");
  t->per_block_ = h->names_per_block;
  t->nnames_ = h->names;
  t->nblocks_ = h->blocks;
  t->nrecords_ = h->records;
  const uint32_t nattrs = h->attributes;
  const uint32_t words = h->bloom_words;
  if (t->per_block_ == 0 || t->per_block_ > 4096 ||
      uint64_t{t->nblocks_} != (uint64_t{t->nnames_} + t->per_block_ - 1) / t->per_block_) {
    return corrupt(absl::StrFormat("%d names cannot fill %d blocks of %d", t->nnames_, t->nblocks_,
                                   t->per_block_));
  }
  uint64_t at = index_layout::kNameSectionHeaderSize;
  std::optional<ByteReader> bloom = section.Slice(at, uint64_t{words} * 8);
  if (words == 0 || !bloom)
    return corrupt(absl::StrFormat("Bloom filter of %d words runs past the end", words));
  at += uint64_t{words} * 8;
  std::optional<ByteReader> attrs =
      section.Slice(at, uint64_t{nattrs} * index_layout::kAttributeSize);
  if (!attrs) return corrupt(absl::StrFormat("%d attributes run past the end", nattrs));
  t->attrs_.reserve(nattrs);
  for (uint32_t i = 0; i < nattrs; ++i) {
    const uint64_t info = *attrs->ReadAt<uint8_t>(i * 8ull),
                   other = *attrs->ReadAt<uint8_t>(i * 8ull + 1);
    const uint64_t shndx = *attrs->ReadAt<uint16_t>(i * 8ull + 2),
                   versym = *attrs->ReadAt<uint16_t>(i * 8ull + 4);
    const uint64_t flags = *attrs->ReadAt<uint16_t>(i * 8ull + 6);
    t->attrs_.push_back(info | other << 8 | shndx << 16 | versym << 32 | (flags & 1) << 48);
  }
  at += uint64_t{nattrs} * index_layout::kAttributeSize;
  // The entry lists begin where the layout says (what the tests' resealing computes too).
  if (at != index_layout::EntryListsOffset(*h)) return corrupt("attributes misplaced");
  std::optional<uint32_t> nlists = section.ReadAt<uint32_t>(at);
  if (!nlists || !section.Contains(at + 4, (uint64_t{*nlists} + 1) * 4))
    return corrupt("the entry lists run past the end");
  const uint32_t list_bytes = *section.ReadAt<uint32_t>(at + 4 + uint64_t{*nlists} * 4);
  std::optional<ByteReader> list_data =
      section.Slice(at + 4 + (uint64_t{*nlists} + 1) * 4, list_bytes);
  if (!list_data) return corrupt("the entry lists run past the end");
  // Sized once, not grown: a growing vector writes each of its sizes (each a page fault).
  // Every record takes at least two bytes (two varints).
  t->list_begin_.reserve(uint64_t{*nlists} + 1);
  t->list_records_.reserve(list_bytes / 2);
  t->list_begin_.push_back(0);
  for (uint32_t i = 0; i < *nlists; ++i) {
    const uint32_t from = *section.ReadAt<uint32_t>(at + 4 + uint64_t{i} * 4);
    const uint32_t to = *section.ReadAt<uint32_t>(at + 8 + uint64_t{i} * 4);
    if (from > to || to > list_bytes)
      return corrupt(absl::StrFormat("entry list %d lies outside its area", i));
    Cursor c{list_data->data().data() + from, list_data->data().data() + to};
    uint32_t count;
    if (!c.Varint(&count) || count == 0 || count > to - from)
      return corrupt(absl::StrFormat("entry list %d is malformed", i));
    for (uint32_t k = 0; k < count; ++k) {
      uint32_t lib, attr;
      if (!c.Varint(&lib) || !c.Varint(&attr) || lib >= markers.size() || attr >= nattrs) {
        return corrupt(absl::StrFormat("entry list %d names no library or attribute", i));
      }
      t->list_records_.emplace_back(lib, attr);
    }
    t->list_begin_.push_back(static_cast<uint32_t>(t->list_records_.size()));
  }
  at += 4 + (uint64_t{*nlists} + 1) * 4 + list_bytes;
  std::optional<ByteReader> table =
      section.Slice(at, (uint64_t{t->nblocks_} + 1) * kBlockTableEntrySize);
  if (!table)
    return corrupt(absl::StrFormat("the table of %d blocks runs past the end", t->nblocks_));
  at += (uint64_t{t->nblocks_} + 1) * kBlockTableEntrySize;
  std::optional<ByteReader> sep_offsets = section.Slice(at, (uint64_t{t->nblocks_} + 1) * 4);
  if (!sep_offsets) return corrupt("the separator offsets run past the end");
  at += (uint64_t{t->nblocks_} + 1) * 4;
  const uint32_t sep_size = *sep_offsets->ReadAt<uint32_t>(uint64_t{t->nblocks_} * 4);
  std::optional<ByteReader> sep_bytes = section.Slice(at, sep_size);
  if (!sep_bytes) return corrupt("the separators run past the end");
  at += sep_size;
  if (at != section.size()) return corrupt("bytes follow the separators");
  // The section passed the index checksum, so only a crafted file has offsets out of order:
  // each block's are checked where they are used (Separator, DecodeBlock, Get), not all 5,000 of
  // them on every open. The separators are, in one pass over their few bytes: a lookup's binary
  // search over them is only right when they ascend strictly (docs/index-format.md).
  for (uint64_t b = 1; b + 1 < t->nblocks_; ++b) {
    const uint32_t from = *sep_offsets->ReadAt<uint32_t>(b * 4),
                   mid = *sep_offsets->ReadAt<uint32_t>(b * 4 + 4),
                   to = *sep_offsets->ReadAt<uint32_t>(b * 4 + 8);
    if (from > mid || mid > to || to > sep_size)
      return corrupt(absl::StrFormat("separator %d lies outside its area", b));
    const auto text = [&](uint32_t x, uint32_t y) {
      return absl::string_view(reinterpret_cast<const char*>(sep_bytes->data().data()) + x, y - x);
    };
    if (!(text(from, mid) < text(mid, to)))
      return corrupt(absl::StrFormat("separators %d and %d are out of order", b, b + 1));
  }
  const BlockTableEntry end = ReadBlockTableEntry(*table, t->nblocks_);
  if (end.offset != blocks.size() || end.first_record != t->nrecords_) {
    return corrupt("the block table does not end at the end of the blocks");
  }
  t->file_ = std::move(file);
  t->keepalive_ = std::move(keepalive);
  t->data_ = blocks;
  t->base_names_ = base_names;
  t->base_names_crc_ = base_names_crc;
  t->bloom_ = *bloom;
  t->bloom_bits_ = uint64_t{words} * 64;
  t->table_ = *table;
  t->sep_offsets_ = *sep_offsets;
  t->sep_bytes_ = *sep_bytes;
  t->markers_ = std::move(markers);
  t->groups_ = std::make_unique<std::atomic<BlockSlot*>[]>(
      (uint64_t{t->nblocks_} + kSlotsPerGroup - 1) / kSlotsPerGroup);
  return t;
}

NameBlocks::~NameBlocks() {
  for (uint64_t g = 0; groups_ && g * kSlotsPerGroup < nblocks_; ++g) delete[] groups_[g].load();
}

NameBlocks::BlockSlot& NameBlocks::Slot(uint32_t b) const {
  std::atomic<BlockSlot*>& group = groups_[b / kSlotsPerGroup];
  BlockSlot* slots = group.load(std::memory_order_acquire);
  if (slots == nullptr) {
    auto fresh = std::make_unique<BlockSlot[]>(kSlotsPerGroup);
    // Another thread may have made this group meanwhile: then `slots` is its, and ours goes.
    if (group.compare_exchange_strong(slots, fresh.get(), std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      slots = fresh.release();
    }
  }
  return slots[b % kSlotsPerGroup];
}

void NameBlocks::Fail(absl::Status s) const {
  absl::MutexLock lock(&mu_);
  if (status_.ok()) status_ = std::move(s);
}

absl::Status NameBlocks::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

uint8_t NameBlocks::StringAbiMarkers(uint32_t library) const {
  return library < markers_.size() ? markers_[library] : 0;
}

absl::string_view NameBlocks::Separator(uint32_t b) const {
  const uint32_t from = *sep_offsets_.ReadAt<uint32_t>(b * 4ull),
                 to = *sep_offsets_.ReadAt<uint32_t>(b * 4ull + 4);
  if (from > to || to > sep_bytes_.size()) {
    Fail(absl::DataLossError(
        absl::StrFormat("%s: index separator %d lies outside its area", file_, b)));
    return {};
  }
  return {reinterpret_cast<const char*>(sep_bytes_.data().data()) + from, to - from};
}

uint32_t NameBlocks::NamesIn(uint32_t b) const {
  return std::min(per_block_, nnames_ - b * per_block_);
}

absl::Status NameBlocks::Corrupt(uint32_t b, absl::string_view what) const {
  return absl::DataLossError(absl::StrFormat("%s: index name block %d: %s", file_, b, what));
}

absl::Status NameBlocks::Decompress(uint32_t b, std::string* raw, uint32_t* records) const {
  const BlockTableEntry entry = ReadBlockTableEntry(table_, b);
  const BlockTableEntry next = ReadBlockTableEntry(table_, uint64_t{b} + 1);
  const uint64_t off = entry.offset;
  const uint64_t end = next.offset;
  if (off > end || end > data_.size() || entry.first_record > next.first_record ||
      next.first_record > nrecords_) {
    return Corrupt(b, "offsets out of order or out of range");
  }
  *records = next.first_record - entry.first_record;
  const uint32_t raw_size = entry.size;
  if (raw_size > kMaxBlockBytes)
    return Corrupt(b, absl::StrFormat("decompressed size %d is implausible", raw_size));
  if (end - off > static_cast<uint64_t>(INT32_MAX)) return Corrupt(b, "is implausibly large");
  const uint8_t* compressed = data_.data().data() + off;
  if (index_layout::Crc32c({compressed, end - off}) != entry.crc) {
    return Corrupt(b, "checksum mismatch: the file is corrupt");
  }
  raw->resize(raw_size);
  if (LZ4_decompress_safe(reinterpret_cast<const char*>(compressed), raw->data(),
                          static_cast<int>(end - off),
                          static_cast<int>(raw_size)) != static_cast<int>(raw_size)) {
    return Corrupt(b, "does not decompress to its stated size");
  }
  return absl::OkStatus();
}

absl::Status NameBlocks::ScanBlock(uint32_t b, absl::string_view raw, uint32_t records,
                                   std::string* name,
                                   absl::FunctionRef<bool(uint32_t list, uint32_t first)> f) const {
  Cursor c{reinterpret_cast<const uint8_t*>(raw.data()),
           reinterpret_cast<const uint8_t*>(raw.data()) + raw.size()};
  name->clear();
  uint32_t first = 0;
  for (uint32_t i = 0, names = NamesIn(b); i < names; ++i) {
    uint32_t shared, list;
    absl::string_view tail;
    if (!c.Name(&shared, &tail) || shared > name->size()) {
      return Corrupt(b, absl::StrFormat("name %d is truncated", i));
    }
    // Strictly ascending (a lookup stops at the first name past the one it wants): past the
    // shared bytes, the new name sorts after the previous one.
    if (i > 0 && !(absl::string_view(*name).substr(shared) < tail)) {
      return Corrupt(b, absl::StrFormat("name %d is out of order", i));
    }
    name->resize(shared);
    name->append(tail.data(), tail.size());
    // The block lies where its separators put it: its first name starts with its own separator
    // (the shortest prefix of it above the previous block's last name), and its last name sorts
    // before the next block's. A lookup that lands here trusts both.
    if (i == 0 && b > 0 && !absl::StartsWith(*name, Separator(b)))
      return Corrupt(b, "its first name does not start with its separator");
    if (i + 1 == names && b + 1 < nblocks_ && !(absl::string_view(*name) < Separator(b + 1)))
      return Corrupt(b, "its last name does not sort before the next block's separator");
    if (!c.Varint(&list) || uint64_t{list} + 1 >= list_begin_.size())
      return Corrupt(b, absl::StrFormat("name %d: no such entry list", i));
    const uint32_t count = list_begin_[list + 1] - list_begin_[list];
    if (count > records - first)
      return Corrupt(b, absl::StrFormat("name %d: entry count is wrong", i));
    if (f(list, first)) return absl::OkStatus();
    first += count;
  }
  if (first != records || c.p != c.end) return Corrupt(b, "entries do not add up");
  return absl::OkStatus();
}

std::optional<std::pair<uint32_t, uint32_t>> NameBlocks::FindInBlock(uint32_t b, const RawBlock& r,
                                                                     absl::string_view want) const {
  // Invariant: every name so far sorts before `want` and shares `common` bytes with it. A name
  // that keeps more of the previous one than `common` differs from `want` where the previous did,
  // the same way: it sorts before it too, and nothing need be compared. Raw() checked the block:
  // the reads stay bounds-checked, the order is not checked again.
  Cursor c{reinterpret_cast<const uint8_t*>(r.bytes.data()),
           reinterpret_cast<const uint8_t*>(r.bytes.data()) + r.bytes.size()};
  size_t common = 0;
  uint32_t first = 0;
  for (uint32_t i = 0, names = NamesIn(b); i < names; ++i) {
    uint32_t shared, list;
    absl::string_view tail;
    if (!c.Name(&shared, &tail)) return std::nullopt;
    if (!c.Varint(&list) || uint64_t{list} + 1 >= list_begin_.size()) return std::nullopt;
    if (i == 0 || shared <= common) {
      if (shared > want.size()) return std::nullopt;
      const absl::string_view rest = want.substr(shared);
      const size_t n = std::min(tail.size(), rest.size());
      const size_t same = static_cast<size_t>(
          std::mismatch(tail.begin(), tail.begin() + n, rest.begin()).first - tail.begin());
      if (same == tail.size() && same == rest.size()) return std::make_pair(list, first);
      // `tail` sorts after `rest`: so does this name after `want`, and every later one.
      if (same == rest.size() || (same < tail.size() && static_cast<uint8_t>(tail[same]) >
                                                            static_cast<uint8_t>(rest[same]))) {
        return std::nullopt;
      }
      common = shared + same;
    }
    first += list_begin_[list + 1] - list_begin_[list];
  }
  return std::nullopt;
}

absl::Status NameBlocks::DecodeBlock(uint32_t b, Decoded* out) const {
  // The compressed bytes are decoded into a buffer each thread reuses: only the names are kept.
  thread_local std::string raw, name;
  uint32_t records = 0;
  ABICHECK_RETURN_IF_ERROR(Decompress(b, &raw, &records));
  out->names.reserve(std::min<size_t>(raw.size() * 3, size_t{1} << 20));
  out->list.reserve(per_block_);
  out->records = records;
  return ScanBlock(b, raw, records, &name, [&](uint32_t list, uint32_t first) {
    out->list.push_back({static_cast<uint32_t>(out->names.size()),
                         static_cast<uint32_t>(name.size()), first, list});
    out->names.append(name);
    return false;
  });
}

const NameBlocks::Decoded* NameBlocks::Block(uint32_t b) const {
  BlockSlot& slot = Slot(b);
  absl::call_once(slot.decoded_once, [&] {
    auto d = std::make_unique<Decoded>();
    absl::Status s = DecodeBlock(b, d.get());
    if (s.ok()) {
      slot.decoded = std::move(d);
    } else {
      Fail(std::move(s));
    }
  });
  return slot.decoded.get();
}

const NameBlocks::RawBlock* NameBlocks::Raw(uint32_t b) const {
  BlockSlot& slot = Slot(b);
  absl::call_once(slot.raw_once, [&] {
    auto r = std::make_unique<RawBlock>();
    thread_local std::string name;
    absl::Status s = Decompress(b, &r->bytes, &r->records);
    // Every name of the block is checked once, as DecodeBlock checks them: a lookup that stops
    // at its name must not leave a malformed rest unreported.
    if (s.ok())
      s = ScanBlock(b, r->bytes, r->records, &name, [](uint32_t, uint32_t) { return false; });
    if (s.ok()) {
      slot.raw = std::move(r);
    } else {
      Fail(std::move(s));
    }
  });
  return slot.raw.get();
}

ExternalSymbols::Entry NameBlocks::MakeEntry(uint32_t handle, uint32_t attr) const {
  const uint64_t a = attrs_[attr];
  Entry e;
  e.handle = handle;
  e.info = static_cast<uint8_t>(a);
  e.other = static_cast<uint8_t>(a >> 8);
  e.shndx = static_cast<uint16_t>(a >> 16);
  e.versym = static_cast<uint16_t>(a >> 32);
  e.has_value = ((a >> 48) & 1) != 0;
  return e;
}

bool NameBlocks::MayHold(const HashedName& h) const {
  auto set = [&](uint64_t bit) {
    bit %= bloom_bits_;
    return ((*bloom_.ReadAt<uint64_t>(bit / 64 * 8) >> (bit % 64)) & 1) != 0;
  };
  // Probe 0 is the GNU hash alone: about half the names the index lacks stop there, before their
  // SysV hash (a pass over the name) is computed.
  if (!set(h.gnu)) return false;
  for (int i = 1; i < kBloomProbes; ++i) {
    if (!set(uint64_t{h.gnu} + uint64_t{h.sysv()} * i)) return false;
  }
  return true;
}

void NameBlocks::ForEachNamed(uint32_t library, const HashedName& h,
                              absl::FunctionRef<bool(const Entry&)> f) const {
  if (nblocks_ == 0) return;
  const absl::string_view name = h.name;
  // A check asks every library of its scope for the same name in a row: remember the last answer,
  // the Bloom filter's "not here" included (most references go to libc and libstdc++).
  struct Last {
    uint64_t table = 0;  // serial_, not the address: a freed table's address can be reused
    std::string name;
    uint32_t list = 0, base = 0;  // its entry list; the handle of its first entry, less one
    int at = -1;                  // 1: found, -1: not in the index
  };
  thread_local Last last;
  if (last.table != serial_ || last.name != name) {
    last.table = serial_;
    last.name.assign(name.data(), name.size());
    last.at = -1;
    if (!MayHold(h)) return;
    // The last block whose separator is <= name (block 0 has none).
    uint32_t lo = 1, hi = nblocks_;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (Separator(mid) <= name) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const uint32_t b = lo - 1;
    // The block's bytes are searched as they are stored (front-coded), not expanded.
    if (const RawBlock* r = Raw(b)) {
      if (std::optional<std::pair<uint32_t, uint32_t>> found = FindInBlock(b, *r, name)) {
        last.list = found->first;
        last.base = ReadBlockTableEntry(table_, b).first_record + found->second;
        last.at = 1;
      } else {
        // "Not in the index" rests on the separators around block b: the neighbours' own checks
        // (ScanBlock) hold them to their contents, so a name an edited separator sent to the
        // wrong block is an error, not an undefined symbol. Rare: the Bloom filter answers
        // most names the index does not hold.
        if (b > 0) Raw(b - 1);
        if (b + 1 < nblocks_) Raw(b + 1);
      }
    }
  }
  if (last.at < 0) return;
  // Locals from here on: `f` may look up another name, which replaces `last`.
  const uint32_t base = last.base;
  const auto records = Records(last.list);
  for (uint32_t k = 0; k < records.size(); ++k) {
    const auto [lib, attr] = records[k];
    if (lib == library && f(MakeEntry(base + k + 1, attr))) return;
  }
}

void NameBlocks::ForEach(uint32_t library,
                         absl::FunctionRef<void(const Entry&, absl::string_view)> f) const {
  for (uint32_t b = 0; b < nblocks_; ++b) {
    const Decoded* d = Block(b);
    if (d == nullptr) continue;
    const uint32_t base = ReadBlockTableEntry(table_, b).first_record;
    for (const Decoded::Name& n : d->list) {
      const auto records = Records(n);
      for (uint32_t k = 0; k < records.size(); ++k) {
        if (records[k].first == library) {
          f(MakeEntry(base + n.first + k + 1, records[k].second),
            absl::string_view(d->names).substr(n.offset, n.size));
        }
      }
    }
  }
}

std::optional<std::pair<ExternalSymbols::Entry, absl::string_view>> NameBlocks::Get(
    uint32_t handle) const {
  if (handle == 0 || handle > nrecords_) return std::nullopt;
  const uint32_t record = handle - 1;
  // The last block whose first record is <= record.
  uint32_t lo = 0, hi = nblocks_;
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (ReadBlockTableEntry(table_, mid).first_record <= record) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const Decoded* d = Block(lo);
  const uint32_t first = ReadBlockTableEntry(table_, lo).first_record;
  if (d == nullptr || first > record) return std::nullopt;
  const uint32_t k = record - first;
  if (k >= d->records) return std::nullopt;
  auto it = std::upper_bound(d->list.begin(), d->list.end(), k,
                             [](uint32_t r, const Decoded::Name& n) { return r < n.first; });
  if (it == d->list.begin()) return std::nullopt;
  --it;
  return std::make_pair(MakeEntry(handle, Records(*it)[k - it->first].second),
                        absl::string_view(d->names).substr(it->offset, it->size));
}

bool NameBlocks::BaseNamesReady() const {
  absl::call_once(base_names_once_, [&] {
    auto corrupt = [&](absl::string_view what) {
      Fail(absl::DataLossError(absl::StrCat(file_, ": index base-name section: ", what)));
    };
    if (index_layout::Crc32c(base_names_.data()) != base_names_crc_) {
      return corrupt("checksum mismatch: the file is corrupt");
    }
    const std::optional<uint32_t> buckets = base_names_.ReadAt<uint32_t>(0),
                                  entries = base_names_.ReadAt<uint32_t>(4);
    if (!buckets || !entries || *buckets == 0 || (*buckets & (*buckets - 1)) != 0 ||
        base_names_.size() != index_layout::kBaseNamesHeaderSize + (uint64_t{*buckets} + 1) * 4 +
                                  uint64_t{*entries} * index_layout::kBaseNameEntrySize) {
      return corrupt("its size does not match its buckets and entries");
    }
    uint32_t prev = 0;
    for (uint64_t b = 0; b <= *buckets; ++b) {
      const uint32_t start =
          *base_names_.ReadAt<uint32_t>(index_layout::kBaseNamesHeaderSize + b * 4);
      if (start < prev || start > *entries || (b == 0 && start != 0) ||
          (b == *buckets && start != *entries)) {
        return corrupt(absl::StrFormat("bucket %d lies outside the entries", b));
      }
      prev = start;
    }
    base_mask_ = *buckets - 1;
    base_names_ok_ = true;
  });
  return base_names_ok_;
}

bool NameBlocks::ForEachWithBaseName(uint32_t library, uint32_t token,
                                     absl::FunctionRef<void(uint32_t, uint32_t)> f) const {
  if (!BaseNamesReady()) return true;  // the error is latched: nothing is found
  const uint64_t starts = index_layout::kBaseNamesHeaderSize;
  const uint64_t bucket = token & base_mask_;
  const uint32_t from = *base_names_.ReadAt<uint32_t>(starts + bucket * 4),
                 to = *base_names_.ReadAt<uint32_t>(starts + bucket * 4 + 4);
  const uint64_t entries = starts + (uint64_t{base_mask_} + 2) * 4;
  for (uint64_t k = from; k < to; ++k) {
    const uint64_t at = entries + k * index_layout::kBaseNameEntrySize;
    if (*base_names_.ReadAt<uint32_t>(at) != token) continue;
    const uint32_t context = *base_names_.ReadAt<uint32_t>(at + 4),
                   first = *base_names_.ReadAt<uint32_t>(at + 8),
                   list = *base_names_.ReadAt<uint32_t>(at + 12);
    if (uint64_t{list} + 1 >= list_begin_.size() ||
        uint64_t{first} + (list_begin_[list + 1] - list_begin_[list]) > nrecords_) {
      Fail(absl::DataLossError(absl::StrFormat(
          "%s: index base-name section: entry %d names no entry list or entries", file_, k)));
      return true;
    }
    for (uint32_t r = list_begin_[list]; r < list_begin_[list + 1]; ++r) {
      if (list_records_[r].first != library) continue;
      const Entry e = MakeEntry(first + (r - list_begin_[list]) + 1, list_records_[r].second);
      Symbol s;
      s.info = e.info;
      s.other = e.other;
      s.shndx = e.shndx;
      if (s.exported()) f(e.handle, context);
    }
  }
  return true;
}

}  // namespace abicheck
