// DecodeDeflateTail (lib/io/deflate_tail.h): candidate block headers checked bit by bit in
// plain code, the decoding itself by ISA-L entered at a bit offset with a chosen window.
#include "lib/io/deflate_tail.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace abicheck {
namespace {

// LSB-first bits of a byte span; reading past the end fails.
class BitReader {
 public:
  BitReader(absl::Span<const uint8_t> d, uint64_t bit) : d_(d), bit_(bit) {}
  bool Get(int n, uint32_t* v) {
    if (bit_ + static_cast<uint64_t>(n) > uint64_t{d_.size()} * 8) return false;
    uint32_t out = 0;
    for (int i = 0; i < n; ++i, ++bit_) out |= uint32_t{(d_[bit_ >> 3] >> (bit_ & 7)) & 1u} << i;
    *v = out;
    return true;
  }

 private:
  absl::Span<const uint8_t> d_;
  uint64_t bit_;
};

// Kraft's sum of a code's lengths against 2^max_bits: complete when equal, over-subscribed above.
uint64_t KraftSum(const uint8_t* lengths, int n, int max_bits) {
  uint64_t sum = 0;
  for (int i = 0; i < n; ++i) {
    if (lengths[i] > 0) sum += uint64_t{1} << (max_bits - lengths[i]);
  }
  return sum;
}

// A canonical Huffman decoder for the code-length code (RFC 1951 3.2.2; puff.c's `decode`).
struct SmallCode {
  std::array<uint16_t, 8> count{};
  std::array<uint16_t, 19> symbol{};
  explicit SmallCode(const uint8_t* lengths) {
    for (int s = 0; s < 19; ++s) ++count[lengths[s]];
    std::array<uint16_t, 8> offs{};
    for (int len = 1; len < 7; ++len) offs[len + 1] = offs[len] + count[len];
    for (int s = 0; s < 19; ++s) {
      if (lengths[s] != 0) symbol[offs[lengths[s]]++] = static_cast<uint16_t>(s);
    }
  }
  bool Decode(BitReader& bits, uint32_t* sym) const {
    int code = 0, first = 0, index = 0;
    for (int len = 1; len <= 7; ++len) {
      uint32_t b;
      if (!bits.Get(1, &b)) return false;
      code |= static_cast<int>(b);
      const int n = count[len];
      if (code - first < n) {
        *sym = symbol[index + (code - first)];
        return true;
      }
      index += n;
      first = (first + n) << 1;
      code <<= 1;
    }
    return false;
  }
};

constexpr uint32_t kWindow = 32768;
// Bounds, whatever the data: the bytes wanted from the end, the bytes a decode may make before
// them, and the compressed bytes searched for one start.
constexpr uint64_t kMaxWanted = uint64_t{32} << 20;
constexpr uint64_t kMaxLeadIn = uint64_t{32} << 20;
constexpr uint64_t kMaxSearchBits = uint64_t{8} << 20;

// One decode of the stream from bit `bit` of `data` to its end with `window` before it. nullopt
// unless it ends exactly where the data ends (the final block, then only the last byte's padding)
// with at most `cap` bytes out.
std::optional<std::vector<uint8_t>> DecodeFrom(absl::Span<const uint8_t> data, uint64_t bit,
                                               uint8_t window_byte, uint64_t cap) {
  static thread_local inflate_state state;
  isal_inflate_init(&state);
  std::vector<uint8_t> window(kWindow, window_byte);
  if (isal_inflate_set_dict(&state, window.data(), kWindow) != ISAL_DECOMP_OK) return std::nullopt;
  const uint64_t byte = bit >> 3;
  const int shift = static_cast<int>(bit & 7);
  if (byte >= data.size()) return std::nullopt;
  if (shift == 0) {
    state.next_in = const_cast<uint8_t*>(data.data() + byte);
    state.avail_in = static_cast<uint32_t>(data.size() - byte);
  } else {
    state.read_in = data[byte] >> shift;
    state.read_in_length = 8 - shift;
    state.next_in = const_cast<uint8_t*>(data.data() + byte + 1);
    state.avail_in = static_cast<uint32_t>(data.size() - byte - 1);
  }
  std::vector<uint8_t> out;
  constexpr size_t kChunk = size_t{1} << 20;
  while (true) {
    const size_t at = out.size();
    const uint64_t room = std::min<uint64_t>(kChunk, cap - at + 1);
    out.resize(at + room);
    state.next_out = out.data() + at;
    state.avail_out = static_cast<uint32_t>(room);
    if (isal_inflate(&state) != ISAL_DECOMP_OK) return std::nullopt;
    out.resize(at + (room - state.avail_out));
    if (out.size() > cap) return std::nullopt;
    if (state.block_state == ISAL_BLOCK_FINISH) break;
    if (state.avail_out != 0 && state.avail_in == 0) return std::nullopt;  // the data ran out
  }
  // Exactly at the end: no whole byte left unread.
  if (state.avail_in != 0 || state.read_in_length >= 8) return std::nullopt;
  return out;
}

// The first boundary at or after bit `from` (and before `to`) whose two decodes (windows of 0x00
// and of 0xff) end where the data ends; at most `max_tries` full decodes.
struct Start {
  uint64_t bit = 0;
  std::vector<uint8_t> zero, ones;
};
std::optional<Start> FindStart(absl::Span<const uint8_t> data, uint64_t from, uint64_t to,
                               uint64_t cap) {
  constexpr int kMaxTries = 16;
  int tries = 0;
  to = std::min(to, from + kMaxSearchBits);
  for (uint64_t bit = from; bit < to && tries < kMaxTries; ++bit) {
    if (!PlausibleDynamicHeader(data, bit)) continue;
    ++tries;
    std::optional<std::vector<uint8_t>> zero = DecodeFrom(data, bit, 0x00, cap);
    if (!zero) continue;
    std::optional<std::vector<uint8_t>> ones = DecodeFrom(data, bit, 0xff, cap);
    if (!ones || ones->size() != zero->size()) continue;
    return Start{bit, std::move(*zero), std::move(*ones)};
  }
  return std::nullopt;
}

}  // namespace

bool PlausibleDynamicHeader(absl::Span<const uint8_t> data, uint64_t bit) {
  BitReader bits(data, bit);
  uint32_t final_block, type, hlit, hdist, hclen;
  if (!bits.Get(1, &final_block) || !bits.Get(2, &type) || type != 2) return false;
  if (!bits.Get(5, &hlit) || !bits.Get(5, &hdist) || !bits.Get(4, &hclen)) return false;
  hlit += 257;
  hdist += 1;
  hclen += 4;
  if (hlit > 286 || hdist > 30) return false;
  static constexpr int kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                     11, 4,  12, 3, 13, 2, 14, 1, 15};
  uint8_t cl[19] = {};
  for (uint32_t i = 0; i < hclen; ++i) {
    uint32_t v;
    if (!bits.Get(3, &v)) return false;
    cl[kOrder[i]] = static_cast<uint8_t>(v);
  }
  if (KraftSum(cl, 19, 7) != (1u << 7)) return false;
  const SmallCode code(cl);
  uint8_t lengths[286 + 30] = {};
  const uint32_t total = hlit + hdist;
  for (uint32_t i = 0; i < total;) {
    uint32_t sym, extra;
    if (!code.Decode(bits, &sym)) return false;
    if (sym < 16) {
      lengths[i++] = static_cast<uint8_t>(sym);
      continue;
    }
    uint8_t value = 0;
    uint32_t repeat;
    if (sym == 16) {
      if (i == 0 || !bits.Get(2, &extra)) return false;
      value = lengths[i - 1];
      repeat = 3 + extra;
    } else if (sym == 17) {
      if (!bits.Get(3, &extra)) return false;
      repeat = 3 + extra;
    } else {
      if (!bits.Get(7, &extra)) return false;
      repeat = 11 + extra;
    }
    if (i + repeat > total) return false;
    for (uint32_t k = 0; k < repeat; ++k) lengths[i++] = value;
  }
  if (lengths[256] == 0 || KraftSum(lengths, static_cast<int>(hlit), 15) != (1u << 15))
    return false;
  const uint8_t* dist = lengths + hlit;
  const int used = static_cast<int>(std::count_if(dist, dist + hdist, [](uint8_t l) { return l; }));
  return used <= 1 || KraftSum(dist, static_cast<int>(hdist), 15) == (1u << 15);
}

std::optional<DeflateTail> DecodeDeflateTail(absl::Span<const uint8_t> stream_end, uint64_t size,
                                             const RangeSet& need) {
  if (need.ranges().empty() || need.ranges().back().second > size || stream_end.size() < 64 ||
      stream_end.size() > UINT32_MAX) {
    return std::nullopt;
  }
  const uint64_t from = need.ranges().front().first;
  const uint64_t want = size - from;
  if (want > kMaxWanted) return std::nullopt;
  const uint64_t cap = std::min(size, want + kMaxLeadIn);
  const uint64_t bits = uint64_t{stream_end.size()} * 8;
  // Start a quarter of a MiB of compressed data before the end, then further back.
  for (uint64_t back = uint64_t{1} << 18;; back *= 4) {
    const uint64_t b = std::min<uint64_t>(back, stream_end.size());
    // Two starts found independently: one from `b` before the end, one from half as far.
    const uint64_t a_from = (stream_end.size() - b) * 8;
    const uint64_t b_from = (stream_end.size() - b / 2) * 8;
    std::optional<Start> first = FindStart(stream_end, a_from, b_from, cap);
    std::optional<Start> second = first && first->zero.size() >= want
                                      ? FindStart(stream_end, b_from, bits, cap)
                                      : std::nullopt;
    if (second && second->zero.size() >= want) {
      DeflateTail out;
      out.begin = from;
      out.bytes.resize(want);
      out.known.resize(want);
      const size_t a_off = first->zero.size() - want, b_off = second->zero.size() - want;
      for (size_t k = 0; k < want; ++k) {
        const uint8_t v = first->zero[a_off + k];
        out.bytes[k] = v;
        out.known[k] = v == first->ones[a_off + k] && v == second->zero[b_off + k] &&
                       v == second->ones[b_off + k];
      }
      bool all_known = true;
      for (const auto& [lo, hi] : need.ranges()) {
        for (uint64_t k = lo; k < hi && all_known; ++k) all_known = out.known[k - from] != 0;
      }
      if (all_known) return out;
    }
    if (b == stream_end.size()) return std::nullopt;
  }
}

}  // namespace abicheck
