// Fuzzes DecodeDeflateTail (lib/io/deflate_tail.h) against the whole inflate. The first byte
// chooses: odd, the rest is content, deflated here by ISA-L in blocks of a size the second byte
// sets (a real stream); even, the rest is the stream itself (hostile). Whenever the stream
// inflates whole from its start, every byte the tail decoder calls known must be that inflate's:
// a difference aborts. Otherwise it must only not crash, hang or balloon.
#include <isa-l/igzip_lib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "lib/io/deflate_tail.h"

namespace {

std::vector<uint8_t> Deflate(const uint8_t* data, size_t size, size_t block) {
  std::vector<uint8_t> out(size + size / 2 + 1024);
  std::vector<uint8_t> level_buf(ISAL_DEF_LVL1_DEFAULT);
  isal_zstream s;
  isal_deflate_init(&s);
  s.level = 1;
  s.level_buf = level_buf.data();
  s.level_buf_size = static_cast<uint32_t>(level_buf.size());
  s.next_out = out.data();
  s.avail_out = static_cast<uint32_t>(out.size());
  for (size_t at = 0;;) {
    const size_t n = std::min(block, size - at);
    s.next_in = const_cast<uint8_t*>(data + at);
    s.avail_in = static_cast<uint32_t>(n);
    at += n;
    s.end_of_stream = at == size ? 1 : 0;
    s.flush = SYNC_FLUSH;
    if (isal_deflate(&s) != COMP_OK || s.avail_in != 0) return {};
    if (at == size) break;
  }
  out.resize(out.size() - s.avail_out);
  return out;
}

// The whole inflate, or nullopt unless it ends exactly where the data ends.
std::optional<std::vector<uint8_t>> Inflate(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(size_t{1} << 20);
  inflate_state s;
  isal_inflate_init(&s);
  s.next_in = const_cast<uint8_t*>(in.data());
  s.avail_in = static_cast<uint32_t>(in.size());
  size_t done = 0;
  while (true) {
    if (done == out.size()) {
      if (out.size() >= (size_t{16} << 20)) return std::nullopt;
      out.resize(out.size() * 2);
    }
    s.next_out = out.data() + done;
    s.avail_out = static_cast<uint32_t>(out.size() - done);
    if (isal_inflate(&s) != ISAL_DECOMP_OK) return std::nullopt;
    done = out.size() - s.avail_out;
    if (s.block_state == ISAL_BLOCK_FINISH) break;
    if (s.avail_in == 0 && s.avail_out != 0) return std::nullopt;
  }
  if (s.avail_in != 0 || s.read_in_length >= 8) return std::nullopt;
  out.resize(done);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3 || size > (size_t{1} << 20)) return 0;
  std::vector<uint8_t> stream;
  if (data[0] & 1) {
    stream = Deflate(data + 2, size - 2, size_t{64} * (1 + data[1]));
  } else {
    stream.assign(data + 1, data + size);
  }
  if (stream.empty()) return 0;
  const std::optional<std::vector<uint8_t>> whole = Inflate(stream);
  const uint64_t declared = whole ? whole->size() : uint64_t{data[1]} * 64 + 1;
  if (declared == 0) return 0;
  abicheck::RangeSet need;
  need.Add(declared - std::min<uint64_t>(declared, 64), declared);
  const std::optional<abicheck::DeflateTail> tail =
      abicheck::DecodeDeflateTail(stream, declared, need);
  if (tail && whole) {
    size_t k = 0;
    for (const auto& [lo, hi] : tail->held.ranges()) {
      for (uint64_t at = lo; at < hi; ++at, ++k) {
        if (tail->known[k] && tail->bytes[k] != (*whole)[at]) std::abort();
      }
    }
  }
  return 0;
}
