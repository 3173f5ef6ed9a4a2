// The end of a raw deflate stream decoded without its beginning (ARCHITECTURE.md, "Wheels"): what
// `--fast` reads of a large wheel member, whose dynamic section lies in its last bytes, instead of
// inflating the whole member to reach them. Deflate cannot be entered in the middle without the
// 32 KiB of output before it, but a block boundary can be found (a dynamic-Huffman or stored block
// header that a decoder accepts, as in Knespel & Brunst, "Rapidgzip", HPDC 2023) and the stream
// decoded from there to its end, which places the output by the member's declared size. Bytes
// copied from the unknown window are found by decoding twice, with two windows that differ in every
// byte: a byte that comes out the same both times comes from the stream alone. And a block header
// can be a false one that a decoder follows into the real stream: so two boundaries are found
// independently, and a byte is known only when all four decodes agree on it.
#ifndef ABICHECK_LIB_IO_DEFLATE_TAIL_H_
#define ABICHECK_LIB_IO_DEFLATE_TAIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "lib/io/blob.h"

namespace abicheck {

struct DeflateTail {
  uint64_t begin = 0;  // where the later decode starts: nothing before it is held
  // The member ranges kept: those needed, and the member's last 32 MiB from `begin` on (where
  // patchelf appends the tables it moves, which are known only once PT_DYNAMIC is read).
  RangeSet held;
  std::vector<uint8_t> bytes;  // held's bytes, range after range
  std::vector<uint8_t> known;  // 1 where every decode gave the same byte
  // Whether member bytes [lo, hi) are all held and known; CopyKnown also copies them to `out`.
  bool Knows(uint64_t lo, uint64_t hi) const;
  bool CopyKnown(uint64_t lo, uint64_t hi, uint8_t* out) const;
};

// `stream_end`: the last bytes of a member's raw deflate data (its end is the stream's end);
// `size`: the member's declared size; `need`: the member ranges wanted (non-empty). The needed
// bytes (and the last ones, see `held`), every needed one known, or nullopt when no pair of block
// boundaries was found whose decodes end exactly where the stream ends and agree on every needed
// byte (then the caller inflates from the start). Each decode is streamed, keeping only the held
// bytes; bounded, whatever `stream_end` holds: at most 512 MiB from the first needed byte to the
// end and 32 MiB (or half as much again) decoded before it, 1 MiB searched for each start, 16
// decodes tried for each. `further`, when not null, is set to how many compressed bytes from the
// end the next try would start from when `stream_end` was too short to reach the needed bytes (0:
// no better guess). `budget`, when not null, is what all decodes may still make, shared by a
// caller's tries and decremented (null: kDecodeBudget for this call): a hostile stream costs
// seconds, not minutes. At most 32 MiB of needed bytes. `margin`: how much further back than the
// rate measured `further` reaches (a try too short costs another decode; one too long, bytes read:
// over HTTP they are the price, from a file the decodes are).
inline constexpr uint64_t kDecodeBudget = uint64_t{8} << 30;
std::optional<DeflateTail> DecodeDeflateTail(absl::Span<const uint8_t> stream_end, uint64_t size,
                                             const RangeSet& need, uint64_t* further = nullptr,
                                             uint64_t* budget = nullptr, double margin = 1.3);

// Whether a dynamic-Huffman block header that a decoder accepts starts at bit `bit` of `data`
// (LSB first, as deflate packs them): type 2, at most 286 literal/length and 30 distance codes,
// a complete code-length code, lengths that decode within their count, an end-of-block code, and
// complete literal/length and distance codes (or one distance code, or none).
bool PlausibleDynamicHeader(absl::Span<const uint8_t> data, uint64_t bit);
// Whether a stored block's header that a decoder accepts is read from bit `bit` (RFC 1951 3.2.4):
// `bit` is the byte's sixth (the header's three bits end it, zero-padded), type 0, then LEN and
// its complement NLEN, the LEN bytes inside `data`. Stored blocks hold their bytes as they are:
// a decode from one needs no window until a later block copies from before it.
bool PlausibleStoredHeader(absl::Span<const uint8_t> data, uint64_t bit);

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_DEFLATE_TAIL_H_
