// The name section of an index (docs/index-format.md): every name the indexed libraries offer a
// lookup, sorted, shared by all libraries and builds of the index, front-coded in blocks of 16
// that are compressed one by one (LZ4); each name carries its entries — (library, attributes) in
// each library's own hash-chain order, which is what do_lookup_x walks. A lookup finds the block by
// binary search over short separators kept uncompressed, decompresses that block once and
// binary-searches it: the cost follows the module's references, not the build's exports.
#ifndef ABICHECK_LIB_INDEX_NAME_BLOCKS_H_
#define ABICHECK_LIB_INDEX_NAME_BLOCKS_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "lib/index/index_layout.h"
#include "lib/io/byte_reader.h"
#include "lib/symbols/symbol_table.h"

namespace abicheck {

// Collects entries, then writes the section. Names must outlive the writer.
class NameBlocksWriter {
 public:
  // Entries of one (library, name) must be added in chain order.
  void Add(absl::string_view name, uint32_t library, const ExternalSymbols::Entry& e);
  // The section (everything a lookup reads before choosing a block) and the compressed blocks,
  // which the index file stores last: each block carries its own CRC-32C, checked when it is
  // decoded, so a check reads and verifies only the blocks it uses.
  struct Output {
    std::string section;
    std::string blocks;
    std::string base_names;  // the base-name section, which the file keeps before the blocks
  };
  absl::StatusOr<Output> Finish();
  uint64_t names() const { return names_; }

 private:
  struct Item {
    absl::string_view name;
    uint32_t library;
    uint32_t seq;
    uint32_t attr;
  };
  static std::string EncodeBaseNames(std::vector<index_layout::BaseNameEntry> entries);

  std::vector<Item> items_;
  std::vector<uint64_t> attrs_;
  std::vector<uint32_t> list_begin_;  // entry list i: [begin[i], begin[i+1])
  std::vector<std::pair<uint32_t, uint32_t>>
      list_records_;  // (library, attribute index)  // packed ExternalSymbols::Entry without the
                      // handle
  uint64_t names_ = 0;
};

class NameBlocks final : public ExternalSymbols {
 public:
  // `section` and `blocks` lie in memory that `keepalive` owns; `markers` has one byte per
  // library. `section` must have been verified (the index checksum); `blocks` are verified one by
  // one as they are decoded.
  // `base_names` (the base-name section) is verified against `base_names_crc` when it is first
  // used.
  static absl::StatusOr<std::shared_ptr<NameBlocks>> Open(std::string file, ByteReader section,
                                                          ByteReader blocks, ByteReader base_names,
                                                          uint32_t base_names_crc,
                                                          std::shared_ptr<const void> keepalive,
                                                          std::vector<uint8_t> markers);

  void ForEachNamed(uint32_t library, const HashedName& name,
                    absl::FunctionRef<bool(const Entry&)> f) const override;
  void ForEach(uint32_t library,
               absl::FunctionRef<void(const Entry&, absl::string_view)> f) const override;
  std::optional<std::pair<Entry, absl::string_view>> Get(uint32_t handle) const override;
  bool ForEachWithBaseName(uint32_t library, uint32_t token,
                           absl::FunctionRef<void(uint32_t, uint32_t)> f) const override;
  uint8_t StringAbiMarkers(uint32_t library) const override;
  absl::Status status() const override;

  ~NameBlocks() override;
  uint32_t name_count() const { return nnames_; }
  // Every library's entries in all: the table of contents' per-library counts add up to it.
  uint32_t record_count() const { return nrecords_; }

 private:
  // A decoded block: its names, each with where its entries lie in the shared entry lists
  // (list_records_), which the block's bytes name by number; nothing is copied from them.
  struct Decoded {
    struct Name {
      uint32_t offset, size;  // in `names`
      uint32_t first;         // the name's first record, block-relative
      uint32_t list;  // its entries: list_records_[list_begin_[list], list_begin_[list + 1])
    };
    std::string names;
    std::vector<Name> list;
    uint32_t records = 0;  // the block's records
  };
  // A block's decompressed bytes, as stored (front-coded), and how many records it holds.
  struct RawBlock {
    std::string bytes;
    uint32_t records = 0;
  };
  // The entries of entry list `list`, and of a decoded name.
  absl::Span<const std::pair<uint32_t, uint32_t>> Records(uint32_t list) const {
    return absl::MakeConstSpan(list_records_)
        .subspan(list_begin_[list], list_begin_[list + 1] - list_begin_[list]);
  }
  absl::Span<const std::pair<uint32_t, uint32_t>> Records(const Decoded::Name& n) const {
    return Records(n.list);
  }
  NameBlocks() = default;
  NameBlocks(const NameBlocks&) = delete;
  NameBlocks& operator=(const NameBlocks&) = delete;
  // Decompresses block `b` once and expands its names (for readers of whole blocks); nullptr (and
  // the error latched) when it is malformed.
  const Decoded* Block(uint32_t b) const;
  absl::Status DecodeBlock(uint32_t b, Decoded* out) const;
  // Decompresses block `b` once and checks every name, without expanding them (for lookups, which
  // scan it); nullptr (and the error latched) when it is malformed.
  const RawBlock* Raw(uint32_t b) const;
  // Verifies block `b`'s checksum and decompresses it into `raw`; `records`: how many it holds.
  absl::Status Decompress(uint32_t b, std::string* raw, uint32_t* records) const;
  // Walks the front-coded names of `raw` in order, each spelled out in `name`, checking each as it
  // goes; `f(list, first)` is called per name (its entry list, its first record in the block) and
  // stops the walk by returning true. An error names the block and the name.
  absl::Status ScanBlock(uint32_t b, absl::string_view raw, uint32_t records, std::string* name,
                         absl::FunctionRef<bool(uint32_t list, uint32_t first)> f) const;
  absl::Status Corrupt(uint32_t b, absl::string_view what) const;
  // The name `want` in block `b`, which Raw() checked: its entry list and its first record in the
  // block.
  std::optional<std::pair<uint32_t, uint32_t>> FindInBlock(uint32_t b, const RawBlock& r,
                                                           absl::string_view want) const;
  uint32_t NamesIn(uint32_t b) const;  // how many names block `b` holds
  absl::string_view Separator(uint32_t b) const;
  bool MayHold(const HashedName& h) const;
  Entry MakeEntry(uint32_t handle, uint32_t attr) const;
  // Verifies the base-name section once (its checksum, its bucket table); false (and the error
  // latched) when it is malformed.
  bool BaseNamesReady() const;
  void Fail(absl::Status s) const;

  uint64_t serial_ = 0;
  std::string file_;
  std::shared_ptr<const void> keepalive_;
  ByteReader data_, table_, sep_offsets_, sep_bytes_, bloom_;
  uint64_t bloom_bits_ = 0;
  uint32_t per_block_ = 0, nnames_ = 0, nblocks_ = 0, nrecords_ = 0;
  std::vector<uint64_t> attrs_;
  std::vector<uint32_t> list_begin_;                         // entry list i: [begin[i], begin[i+1])
  std::vector<std::pair<uint32_t, uint32_t>> list_records_;  // (library, attribute index)
  std::vector<uint8_t> markers_;
  ByteReader base_names_;
  uint32_t base_names_crc_ = 0;
  mutable absl::once_flag base_names_once_;
  mutable bool base_names_ok_ = false;
  mutable uint32_t base_mask_ = 0;
  // What each block has been decoded to, made on first use in groups of kSlotsPerGroup blocks: a
  // check touches a few hundred of the CUDA index's 5,500 blocks, and slots for all of them,
  // zeroed, were 130 KB written (33 page faults) at every open.
  struct BlockSlot {
    absl::once_flag decoded_once, raw_once;
    std::unique_ptr<Decoded> decoded;
    std::unique_ptr<RawBlock> raw;
  };
  static constexpr uint32_t kSlotsPerGroup = 64;
  BlockSlot& Slot(uint32_t b) const;
  std::unique_ptr<std::atomic<BlockSlot*>[]> groups_;
  mutable absl::Mutex mu_;
  mutable absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_INDEX_NAME_BLOCKS_H_
