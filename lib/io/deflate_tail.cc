// DecodeDeflateTail (lib/io/deflate_tail.h): candidate block headers checked bit by bit in
// plain code, the decoding itself by ISA-L entered at a bit offset with a chosen window.
#include "lib/io/deflate_tail.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "absl/functional/function_ref.h"

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
constexpr uint64_t kMaxWanted = uint64_t{512} << 20;
constexpr uint64_t kMaxLeadIn = uint64_t{32} << 20;
constexpr uint64_t kMaxSearchBits = uint64_t{8} << 20;
// The member's last bytes kept besides the ranges needed: where patchelf appends the tables it
// moves, which PT_DYNAMIC names only once it is read (ZipArchive::FromTheEnd).
constexpr uint64_t kHeldTail = uint64_t{32} << 20;
// What a start should make before the first needed byte, where it can: the bytes just after a
// start may come from the window, which is not known. An eighth of what is wanted, up to 4 MiB:
// no more, or a start would be looked for in the stored blocks of incompressible data (a fatbin)
// before the compressible end, where there is none.
constexpr uint64_t kMaxLeadInWanted = uint64_t{4} << 20;
// How far past the first start the second is looked for: far enough to be found on its own.
constexpr uint64_t kApartBits = uint64_t{64} << 10;

// Where a decode's output goes: its offset from the decode's start and the bytes.
using Sink = absl::FunctionRef<void(uint64_t, const uint8_t*, size_t)>;

// One decode of the stream from bit `bit` of `data` to its end with `window` before it, each
// chunk of output given to `sink`: how many bytes it made. nullopt unless it ends exactly where
// the data ends (the final block, then only the last byte's padding) with at most `cap` bytes out.
std::optional<uint64_t> DecodeFrom(absl::Span<const uint8_t> data, uint64_t bit,
                                   uint8_t window_byte, uint64_t cap, uint64_t* budget, Sink sink) {
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
  constexpr size_t kChunk = size_t{1} << 20;
  static thread_local std::vector<uint8_t> chunk(kChunk);
  uint64_t made = 0;
  while (true) {
    const uint64_t room = std::min<uint64_t>(kChunk, cap - made + 1);
    state.next_out = chunk.data();
    state.avail_out = static_cast<uint32_t>(room);
    if (isal_inflate(&state) != ISAL_DECOMP_OK) return std::nullopt;
    const uint64_t n = room - state.avail_out;
    if (made + n > cap || n > *budget) return std::nullopt;
    *budget -= n;
    sink(made, chunk.data(), n);
    made += n;
    if (state.block_state == ISAL_BLOCK_FINISH) break;
    if (state.avail_out != 0 && state.avail_in == 0) return std::nullopt;  // the data ran out
  }
  // Exactly at the end: no whole byte left unread.
  if (state.avail_in != 0 || state.read_in_length >= 8) return std::nullopt;
  return made;
}

// A boundary whose decode (with a window of 0x00) ends where the data ends, and how many bytes
// that decode makes.
struct Start {
  uint64_t bit = 0;
  uint64_t length = 0;
};

// The first such boundary at or after bit `from` (searching at most kMaxSearchBits), at a dynamic
// block's header or a stored block's (incompressible data, a fatbin's or a table of random
// numbers, is stored blocks with no other header to start at); at most kMaxTries decodes.
std::optional<Start> FindStart(absl::Span<const uint8_t> data, uint64_t from, uint64_t cap,
                               uint64_t* budget) {
  constexpr int kMaxTries = 16;
  int tries = 0;
  const uint64_t to = std::min(uint64_t{data.size()} * 8, from + kMaxSearchBits);
  for (uint64_t bit = from; bit < to && tries < kMaxTries; ++bit) {
    if (!PlausibleDynamicHeader(data, bit) && !PlausibleStoredHeader(data, bit)) continue;
    ++tries;
    std::optional<uint64_t> n =
        DecodeFrom(data, bit, 0x00, cap, budget, [](uint64_t, const uint8_t*, size_t) {});
    if (n) return Start{bit, *n};
  }
  return std::nullopt;
}

// The `held` bytes (member offsets; the stream ends at `size`) of one decode from `start`, in
// order into `out`; false when it makes another length than the first decode did.
bool Collect(absl::Span<const uint8_t> data, const Start& start, uint8_t window_byte, uint64_t size,
             const RangeSet& held, uint64_t* budget, std::vector<uint8_t>* out) {
  out->assign(held.TotalBytes(), 0);
  const uint64_t begin = size - start.length;
  std::optional<uint64_t> n =
      DecodeFrom(data, start.bit, window_byte, start.length, budget,
                 [&](uint64_t at, const uint8_t* p, size_t len) {
                   const uint64_t lo = begin + at, hi = lo + len;
                   uint64_t pos = 0;  // where a held range's bytes start in `out`
                   for (const auto& [b, e] : held.ranges()) {
                     const uint64_t x = std::max(b, lo), y = std::min(e, hi);
                     if (x < y) std::memcpy(out->data() + pos + (x - b), p + (x - lo), y - x);
                     pos += e - b;
                   }
                 });
  return n && *n == start.length;
}

}  // namespace

namespace {

// Where member bytes [lo, hi) start in `t.bytes` when all of them are held and known.
std::optional<uint64_t> Position(const DeflateTail& t, uint64_t lo, uint64_t hi) {
  uint64_t pos = 0;
  for (const auto& [b, e] : t.held.ranges()) {
    if (lo >= b && hi <= e) {
      for (uint64_t k = lo; k < hi; ++k) {
        if (!t.known[pos + (k - b)]) return std::nullopt;
      }
      return pos + (lo - b);
    }
    pos += e - b;
  }
  return std::nullopt;
}

}  // namespace

bool DeflateTail::Knows(uint64_t lo, uint64_t hi) const {
  return Position(*this, lo, hi).has_value();
}

bool DeflateTail::CopyKnown(uint64_t lo, uint64_t hi, uint8_t* out) const {
  const std::optional<uint64_t> at = Position(*this, lo, hi);
  if (at) std::memcpy(out, bytes.data() + *at, hi - lo);
  return at.has_value();
}

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

bool PlausibleStoredHeader(absl::Span<const uint8_t> data, uint64_t bit) {
  // The header's three bits end the byte: a stored block's own three bits there, or (BFINAL 0)
  // the zero bits a compressor pads with after a header earlier in the byte, which decode the same.
  const uint64_t byte = bit >> 3;
  if ((bit & 7) != 5 || byte + 5 > data.size() || (data[byte] >> 6) != 0) return false;
  const uint32_t len = data[byte + 1] | (uint32_t{data[byte + 2]} << 8);
  const uint32_t nlen = data[byte + 3] | (uint32_t{data[byte + 4]} << 8);
  return (len ^ nlen) == 0xffff && byte + 5 + len <= data.size();
}

// Long: the search backwards, each step's two starts, and the four decodes compared byte by byte
// share the bounds and the held ranges; apart they would pass all of it along.
std::optional<DeflateTail> DecodeDeflateTail(absl::Span<const uint8_t> stream_end, uint64_t size,
                                             const RangeSet& need, uint64_t* further,
                                             uint64_t* budget, double margin) {
  if (further != nullptr) *further = 0;
  uint64_t own_budget = kDecodeBudget;
  if (budget == nullptr) budget = &own_budget;
  if (need.ranges().empty() || need.ranges().back().second > size || stream_end.size() < 64 ||
      stream_end.size() > UINT32_MAX) {
    return std::nullopt;
  }
  const uint64_t from = need.ranges().front().first;
  const uint64_t want = size - from;
  // Far from the end, but few: what is kept (the needed bytes and the last 32 MiB, four copies
  // at most) stays small whatever a member declares.
  if (want > kMaxWanted || need.TotalBytes() > kHeldTail) return std::nullopt;
  const uint64_t cap = std::min(size, want + std::max(kMaxLeadIn, want / 2));
  const uint64_t n = stream_end.size();
  const uint64_t lead = std::min(kMaxLeadInWanted, want / 8 + (uint64_t{64} << 10));
  // Start a quarter of a MiB of compressed data before the end, then further back.
  uint64_t short_of = 0;  // the furthest back a start was found that did not reach far enough
  // Each step goes further back or halves a gap; bounded all the same (the halving and doubling
  // could take turns forever when no start lies between), as is the decoding (`budget`).
  constexpr int kMaxSteps = 24;
  for (uint64_t back = uint64_t{1} << 18, step = 0;; ++step) {
    if (step == kMaxSteps || *budget == 0) return std::nullopt;
    const uint64_t b = std::min<uint64_t>(back, n);
    // Two starts found independently: the second searched for well past the first.
    std::optional<Start> first = FindStart(stream_end, (n - b) * 8, cap, budget);
    std::optional<Start> second = first && first->length >= want
                                      ? FindStart(stream_end, first->bit + kApartBits, cap, budget)
                                      : std::nullopt;
    if (second && second->length >= want) {
      DeflateTail out;
      out.begin = size - second->length;
      out.held = need;
      out.held.Add(size - std::min(second->length, kHeldTail), size);
      std::vector<uint8_t> other;
      if (!Collect(stream_end, *first, 0x00, size, out.held, budget, &out.bytes))
        return std::nullopt;
      out.known.assign(out.bytes.size(), 1);
      for (const auto& [start, window] :
           {std::pair{*first, uint8_t{0xff}}, {*second, 0x00}, {*second, 0xff}}) {
        if (!Collect(stream_end, start, window, size, out.held, budget, &other))
          return std::nullopt;
        for (size_t k = 0; k < other.size(); ++k) out.known[k] &= other[k] == out.bytes[k];
      }
      bool all_known = true;
      for (const auto& [lo, hi] : need.ranges()) all_known = all_known && out.Knows(lo, hi);
      if (all_known) return out;
    }
    if (first && first->length > 0 && first->length < want + lead) {
      // Further back by what is still wanted and a lead-in (bytes just after a start may still
      // depend on the unknown window), at `margin` times the rate the decode made bytes here
      // (the bytes further back compress worse than a library's symbol tables at its end).
      const double per = static_cast<double>(b) / static_cast<double>(first->length);
      back = b +
             static_cast<uint64_t>(per * static_cast<double>(want + lead - first->length) *
                                   std::max(margin, 1.0)) +
             (uint64_t{1} << 18);
      short_of = b;
    } else if (!first && short_of != 0 && b > short_of + (uint64_t{1} << 18)) {
      // No start here, but one closer in fell short: this went too far (a decode that makes more
      // than `cap` is refused), so halfway back.
      back = short_of + (b - short_of) / 2;
    } else {
      back = b * 2;  // no start here, or not far enough back to know every needed byte
    }
    if (b == n) {
      if (further != nullptr) *further = back;
      return std::nullopt;
    }
  }
}

}  // namespace abicheck
