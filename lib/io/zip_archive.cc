// libzip (loaded on first use) for the container, ISA-L for inflate (2.2x zlib on a 1.18 GB member:
// DEPENDENCIES.md).
#include "lib/io/zip_archive.h"

#include <dlfcn.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <zip.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/io/byte_reader.h"
#include "lib/io/deadlines.h"
#include "lib/io/deflate_tail.h"
#include "lib/io/http_source.h"
#include "lib/util/read_trace.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

constexpr size_t kChunk = size_t{1} << 20;
// --fast: a wanted range at least this far past the inflated bytes is decoded from the stream's
// end (DecodeDeflateTail) from at most the last kMaxTail compressed bytes when that costs less
// than inflating on to it (tail_rules::FromTheEndFirst: from a file, counting passes and four
// decodes, the price of knowing where the bytes are; over HTTP, always up to kNearEnd from the
// end).
constexpr uint64_t kTailGap = uint64_t{8} << 20;
constexpr uint64_t kMaxTail = uint64_t{256} << 20;
constexpr uint64_t kNearEnd = uint64_t{32} << 20;
// From a file, a byte decoded from the end costs about this many passes (finding two starts, four
// decodes) against one inflating on to it.
constexpr uint64_t kFileDecodePasses = 6;

// libzip is loaded on first use rather than linked: linked, it brings libcrypto into every run
// (3,377 symbol relocations, about a third of abicheck's start-up) though most runs open no
// archive. systemd loads its optional libraries the same way. ABICHECK_LIBZIP_SONAME comes from
// the libzip found at configure time (lib/CMakeLists.txt).
struct LibZip {
  // clang-format off
#define ABICHECK_ZIP_FUNCTIONS(X)                                                          \
  X(open) X(discard) X(strerror) X(get_num_entries) X(stat_init) X(stat_index)             \
  X(fopen_index) X(fread) X(fseek) X(ftell) X(fclose) X(file_strerror)                    \
  X(error_init_with_code) X(error_strerror) X(error_fini) X(error_init) X(error_set)      \
  X(error_to_data) X(source_function_create) X(source_free) X(open_from_source)           \
  X(source_seek_compute_offset) X(source_make_command_bitmap) X(get_error)
  // clang-format on
// NOLINTNEXTLINE(bugprone-macro-parentheses): `name` is a declarator, not an expression
#define ABICHECK_ZIP_MEMBER(name) decltype(&::zip_##name) name = nullptr;
  ABICHECK_ZIP_FUNCTIONS(ABICHECK_ZIP_MEMBER)
#undef ABICHECK_ZIP_MEMBER
};

const absl::StatusOr<LibZip>& LoadLibZip() {
  static const absl::StatusOr<LibZip> lib = []() -> absl::StatusOr<LibZip> {
#ifdef ABICHECK_LIBZIP_LINKED
    // The portable build (docs/portable.md) links a static libzip: the host may have none.
    LibZip z;
#define ABICHECK_ZIP_LINK(name) z.name = &::zip_##name;
    ABICHECK_ZIP_FUNCTIONS(ABICHECK_ZIP_LINK)
#undef ABICHECK_ZIP_LINK
    return z;
#else
    void* h = ::dlopen(ABICHECK_LIBZIP_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      return absl::UnavailableError(absl::StrCat("reading zip archives needs libzip (",
                                                 ABICHECK_LIBZIP_SONAME,
                                                 "), which cannot be loaded: ", ::dlerror()));
    }
    LibZip z;
#define ABICHECK_ZIP_LOAD(name)                                          \
  z.name = reinterpret_cast<decltype(z.name)>(::dlsym(h, "zip_" #name)); \
  if (z.name == nullptr)                                                 \
    return absl::UnavailableError(absl::StrCat(ABICHECK_LIBZIP_SONAME, ": no zip_" #name));
    ABICHECK_ZIP_FUNCTIONS(ABICHECK_ZIP_LOAD)
#undef ABICHECK_ZIP_LOAD
    return z;
#endif
  }();
  return lib;
}
#undef ABICHECK_ZIP_FUNCTIONS

// libzip 1.7 says ZIP_ER_INCONS ("Zip archive inconsistent") for a local header that disagrees
// with its central-directory entry and for an end-of-central-directory record that disagrees
// with itself alike. The record is read here to tell which: what it says wrong (APPNOTE 4.3.16,
// and the Zip64 record of 4.3.14 where the locator of 4.3.15 points to one), or "".
std::string EndOfCentralDirectoryProblem(const std::string& path) {
  absl::StatusOr<MappedFile> f = MappedFile::Open(path);
  if (!f.ok()) return "";
  const ByteReader r(f->bytes(), /*big_endian=*/false);
  const uint64_t size = r.size();
  constexpr uint64_t kEocd = 22, kMaxComment = 0xffff;  // the record, then its comment
  if (size < kEocd) return "";
  const uint64_t floor = size - kEocd > kMaxComment ? size - kEocd - kMaxComment : 0;
  uint64_t at = size - kEocd;
  while (r.ReadAt<uint32_t>(at) != 0x06054b50u) {
    if (at == floor) return "";
    --at;
  }
  uint64_t this_disk = *r.ReadAt<uint16_t>(at + 8), total = *r.ReadAt<uint16_t>(at + 10);
  uint64_t cd_size = *r.ReadAt<uint32_t>(at + 12), cd_offset = *r.ReadAt<uint32_t>(at + 16);
  uint64_t end = at;  // where the central directory must end
  if (at >= 20 && r.ReadAt<uint32_t>(at - 20) == 0x07064b50u) {  // the Zip64 locator
    const uint64_t z = *r.ReadAt<uint64_t>(at - 20 + 8);
    if (r.ReadAt<uint32_t>(z) != 0x06064b50u || !r.Contains(z, 56))
      return "its Zip64 locator points to no Zip64 end-of-central-directory record";
    this_disk = *r.ReadAt<uint64_t>(z + 24);
    total = *r.ReadAt<uint64_t>(z + 32);
    cd_size = *r.ReadAt<uint64_t>(z + 40);
    cd_offset = *r.ReadAt<uint64_t>(z + 48);
    end = z;
  }
  if (this_disk != total) {
    return absl::StrFormat(
        "the end-of-central-directory record says %d entries on this disk and "
        "%d in all",
        this_disk, total);
  }
  constexpr uint64_t kEntry = 46;  // the smallest central-directory entry
  if (total > cd_size / kEntry) {
    return absl::StrFormat(
        "the end-of-central-directory record claims %d entries; its central "
        "directory of %d bytes holds at most %d",
        total, cd_size, cd_size / kEntry);
  }
  if (cd_offset > end || cd_size > end - cd_offset) {
    return absl::StrFormat(
        "the end-of-central-directory record places the central directory "
        "(%d bytes at %d) past itself (at %d)",
        cd_size, cd_offset, end);
  }
  return "";
}

// Only after LoadLibZip() succeeded (ZipArchive::OpenHandle makes sure).
const LibZip& Z() { return *LoadLibZip(); }

std::string ZipError(zip_t* za) { return za ? Z().strerror(za) : "unknown error"; }

// libzip reading through a ByteSource (a URL's range requests): a seekable read-only source.
struct SourceReader {
  std::unique_ptr<ByteSource> bytes;
  uint64_t pos = 0;
  zip_error_t error;
  std::string failure;  // the source's own error, said in full where libzip's code cannot
};

zip_int64_t ReadSource(void* user, void* data, zip_uint64_t len, zip_source_cmd_t cmd) {
  auto* r = static_cast<SourceReader*>(user);
  switch (cmd) {
    case ZIP_SOURCE_OPEN:
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_FREE:
      return 0;
    case ZIP_SOURCE_READ: {
      absl::StatusOr<size_t> n =
          r->bytes->ReadAt(r->pos, absl::Span<uint8_t>(static_cast<uint8_t*>(data), len));
      if (!n.ok()) {
        if (r->failure.empty()) r->failure = std::string(n.status().message());
        Z().error_set(&r->error, ZIP_ER_READ, EIO);
        return -1;
      }
      r->pos += *n;
      return static_cast<zip_int64_t>(*n);
    }
    case ZIP_SOURCE_SEEK: {
      const zip_int64_t at =
          Z().source_seek_compute_offset(r->pos, r->bytes->size(), data, len, &r->error);
      if (at < 0) return -1;
      r->pos = static_cast<uint64_t>(at);
      return 0;
    }
    case ZIP_SOURCE_TELL:
      return static_cast<zip_int64_t>(r->pos);
    case ZIP_SOURCE_STAT: {
      if (len < sizeof(zip_stat_t)) return -1;
      auto* st = static_cast<zip_stat_t*>(data);
      Z().stat_init(st);
      st->size = r->bytes->size();
      st->valid |= ZIP_STAT_SIZE;
      return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_ERROR:
      return Z().error_to_data(&r->error, data, len);
    case ZIP_SOURCE_SUPPORTS:
      return Z().source_make_command_bitmap(
          ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR,
          ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL, ZIP_SOURCE_SUPPORTS, -1);
    default:
      Z().error_set(&r->error, ZIP_ER_OPNOTSUPP, 0);
      return -1;
  }
}

}  // namespace

struct ZipArchive::Handle {
  zip_t* za = nullptr;
  std::unique_ptr<SourceReader> reader;  // a URL's: what libzip reads through
  ~Handle() {
    if (za != nullptr) Z().discard(za);
  }
};

absl::StatusOr<std::unique_ptr<ZipArchive::Handle>> ZipArchive::OpenHandle(bool check) const {
  // libzip reads the file with its own buffered I/O: reading an 870 MB wheel through a mapping
  // would put every page of it in our resident set.
  ABICHECK_RETURN_IF_ERROR(LoadLibZip().status());
  int err = 0;
  auto h = std::make_unique<Handle>();
  const int flags = ZIP_RDONLY | (check ? ZIP_CHECKCONS : 0);
  if (source_) {
    // A URL's archive: ZIP_CHECKCONS reads every member's local header, which costs the whole
    // file in range requests; the members read are checked as they are opened (ExpandArchive
    // says what was not).
    const int url_flags = ZIP_RDONLY;
    h->reader = std::make_unique<SourceReader>();
    Z().error_init(&h->reader->error);
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      ABICHECK_ASSIGN_OR_RETURN(h->reader->bytes, source_->Clone());
    }
    zip_error_t ze;
    Z().error_init(&ze);
    zip_source_t* src = Z().source_function_create(&ReadSource, h->reader.get(), &ze);
    if (src != nullptr) {
      h->za = Z().open_from_source(src, url_flags, &ze);
      if (h->za == nullptr) Z().source_free(src);
    }
    if (h->za == nullptr) {
      // The source's own words when it failed (they name the file and the URL): the archive
      // could not be read, which says nothing of whether it is a zip.
      const std::string failure = h->reader->failure;
      const std::string libzip = Z().error_strerror(&ze);
      Z().error_fini(&ze);
      if (!failure.empty()) return absl::DataLossError(failure);
      return absl::DataLossError(absl::StrCat(path_, ": not a readable zip archive: ", libzip));
    }
    Z().error_fini(&ze);
    return h;
  }
  h->za = Z().open(path_.c_str(), flags, &err);
  if (h->za == nullptr) {
    zip_error_t ze;
    Z().error_init_with_code(&ze, err);
    std::string msg = Z().error_strerror(&ze);
    Z().error_fini(&ze);
    // A local header that says another name, method, CRC or size than its central-directory entry:
    // Python's zipfile, and so pip, refuses the member; what pip would install is unknown.
    if (err == ZIP_ER_INCONS) {
      if (std::string eocd = EndOfCentralDirectoryProblem(path_); !eocd.empty()) {
        absl::StrAppend(&msg, " (", eocd, ")");
      } else {
        absl::StrAppend(&msg,
                        " (a member's local header disagrees with the central directory on "
                        "its name, method, CRC or sizes: pip refuses such a wheel)");
      }
    }
    return absl::DataLossError(absl::StrCat(path_, ": not a readable zip archive: ", msg));
  }
  return h;
}

absl::StatusOr<std::unique_ptr<ZipArchive::Handle>> ZipArchive::Borrow() const {
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (!pool_.empty()) {
      std::unique_ptr<Handle> h = std::move(pool_.back());
      pool_.pop_back();
      return h;
    }
  }
  return OpenHandle();
}

void ZipArchive::Return(std::unique_ptr<Handle> h) const {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  pool_.push_back(std::move(h));
}

ZipArchive::~ZipArchive() = default;

absl::StatusOr<std::shared_ptr<ZipArchive>> ZipArchive::Open(const std::string& path,
                                                             const ReadLimits& limits) {
  std::shared_ptr<ZipArchive> a(new ZipArchive());
  a->path_ = path;
  a->limits_ = limits;
  if (IsUrl(path)) {
    ABICHECK_ASSIGN_OR_RETURN(a->source_, OpenHttpSource(path));
  } else {
    ABICHECK_RETURN_IF_ERROR(StatFileId(path).status());
  }
  ABICHECK_ASSIGN_OR_RETURN(std::unique_ptr<Handle> h, a->OpenHandle(/*check=*/true));
  struct Keep {  // the first handle serves the first reader
    const ZipArchive* a;
    std::unique_ptr<Handle>* h;
    ~Keep() {
      if (*h) a->Return(std::move(*h));
    }
  } keep{a.get(), &h};
  const zip_int64_t n = Z().get_num_entries(h->za, 0);
  if (n < 0) return absl::DataLossError(absl::StrCat(path, ": ", ZipError(h->za)));
  if (static_cast<uint64_t>(n) > limits.max_members) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("%s: %d members, more than the cap of %d (raise it with --max-members)",
                        path, n, limits.max_members));
  }
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    Z().stat_init(&st);
    if (Z().stat_index(h->za, i, 0, &st) != 0) {
      return absl::DataLossError(absl::StrFormat("%s: member %d: %s", path, i, ZipError(h->za)));
    }
    ZipMember m;
    m.index = static_cast<uint64_t>(i);
    m.name = (st.valid & ZIP_STAT_NAME) && st.name != nullptr ? st.name : absl::StrCat("#", i);
    m.size = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
    m.comp_size = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
    m.method = (st.valid & ZIP_STAT_COMP_METHOD) ? st.comp_method : 0;
    m.has_crc = (st.valid & ZIP_STAT_CRC) != 0;
    m.crc = m.has_crc ? st.crc : 0;
    if (!m.name.empty() && m.name.back() == '/') continue;  // a directory entry
    a->members_.push_back(std::move(m));
  }
  // A name given twice: pip extracts every entry in order, so the last one is what is installed.
  absl::flat_hash_map<std::string, size_t> last;
  for (size_t i = 0; i < a->members_.size(); ++i) last[a->members_[i].name] = i;
  if (last.size() != a->members_.size()) {
    std::vector<ZipMember> kept;
    absl::flat_hash_map<std::string, int> count;
    for (size_t i = 0; i < a->members_.size(); ++i) {
      ++count[a->members_[i].name];
      if (last[a->members_[i].name] == i) kept.push_back(std::move(a->members_[i]));
    }
    for (const ZipMember& m : kept) {
      if (count[m.name] > 1) {
        a->notes_.push_back(absl::StrFormat(
            "%s: the name is given to %d entries; the last, the one pip installs, is read", m.name,
            count[m.name]));
      }
    }
    a->members_ = std::move(kept);
  }
  return a;
}

absl::StatusOr<std::string> ZipArchive::Head(const ZipMember& m, size_t n) const {
  RetainPlan plan;
  plan.prefix = n;
  plan.dynamic_range = nullptr;
  plan.verify_crc = n >= m.size;  // a whole member (METADATA, ...) is checked
  // Inflate stops early once the prefix is complete and nothing else is wanted.
  ABICHECK_ASSIGN_OR_RETURN(std::unique_ptr<SparseImage> img, Inflate(m, plan));
  absl::Span<const uint8_t> b = img->bytes();
  return std::string(reinterpret_cast<const char*>(b.data()), std::min<size_t>(n, b.size()));
}

namespace tail_rules {

bool FromTheEndFirst(bool url, uint64_t size, uint64_t from, uint64_t produced,
                     uint64_t compressed_left) {
  const uint64_t past = size - from;
  // From a file, the price is decoding (about six passes over what lies past `from`), near the
  // end too (libcurand.so.10's 21 MB after PT_DYNAMIC, 115 MB in: 0.57 s from the end, 0.46 s
  // inflating on). Over HTTP, the bytes fetched, unknown until decoded: always tried near the
  // end, further back (up to kMaxTail) when the member is large, unless its average ratio puts
  // clearly fewer compressed bytes before `from` than after it (libtriton.so's PT_DYNAMIC, 191 MB
  // into 500, has 300 MB of debug sections after it: 97 MB fetched from the end, 59 MB
  // streaming from the start).
  if (!url) return past * kFileDecodePasses <= from - produced;
  if (past <= kNearEnd) return true;
  return compressed_left >= kTailGap && past * 4 <= (from - produced) * 5;
}

RangeSet CloserToTheEnd(const RangeSet& missing, uint64_t produced, uint64_t from,
                        uint64_t factor) {
  const auto& r = missing.ranges();
  size_t best = r.size();
  uint64_t best_cost = r.empty() ? 0 : r.back().second - produced;
  for (size_t i = 0; i < r.size(); ++i) {
    const uint64_t streamed = i == 0 ? 0 : r[i - 1].second - produced;
    const uint64_t decoded = factor * (from > r[i].first ? from - r[i].first : 0);
    if (streamed + decoded < best_cost) {
      best = i;
      best_cost = streamed + decoded;
    }
  }
  RangeSet out;
  for (size_t i = best; i < r.size(); ++i) out.Add(r[i].first, r[i].second);
  return out;
}

}  // namespace tail_rules

// The compressed bytes read from the end: a few hundred KiB, then as far back as the decode of
// those says the needed bytes lie (the member's average ratio says little: libtorch_cuda.so's
// symbol tables, its last 90 MB, are 3 % of its compressed bytes). Each try reads only what the
// last did not (`end` keeps them, for a second decode too).
std::optional<DeflateTail> ZipArchive::DecodeTail(zip_file_t* zf, const ZipMember& m, uint64_t left,
                                                  const RangeSet& need,
                                                  std::vector<uint8_t>* end) const {
  // A URL's first try fetches less: most libraries' PT_DYNAMIC is within their last few hundred
  // KiB, and the decode says how much further back to go when it is not.
  const uint64_t first = source_ != nullptr ? uint64_t{256} << 10 : uint64_t{1} << 20;
  uint64_t n = std::max<uint64_t>(end->size(), std::min({left, kMaxTail, first}));
  for (int attempt = 0; attempt < 8; ++attempt) {
    const uint64_t had = end->size();
    end->insert(end->begin(), n - had, 0);
    auto unread = [&] {
      end->erase(end->begin(), end->begin() + static_cast<ptrdiff_t>(n - had));
      return std::nullopt;
    };
    if (Z().fseek(zf, static_cast<zip_int64_t>(m.comp_size - n), SEEK_SET) != 0) return unread();
    for (uint64_t got = 0; got < n - had;) {  // a URL's reads may come short
      const zip_int64_t k = Z().fread(zf, end->data() + got, n - had - got);
      if (k <= 0) return unread();
      got += static_cast<uint64_t>(k);
    }
    uint64_t further = 0;
    // Over HTTP, 5 % past the rate measured (30 % made libcublasLt.so.13 fetch 127 MB, not 119:
    // a try that falls short costs decoding, not bytes, as what was read is kept); from a file,
    // 30 % (5 % took libtorch_cuda.so's --fast from 1.5 to 2.0 s of CPU in more tries).
    std::optional<DeflateTail> t =
        DecodeDeflateTail(*end, m.size, need, &further, nullptr, source_ != nullptr ? 1.05 : 1.3);
    if (t || further <= n || n == std::min(left, kMaxTail)) return t;
    n = std::min({left, kMaxTail, further, n * 3});  // the rate changes further back
  }
  return std::nullopt;
}

// --fast (Inflate): the wanted ranges `ahead`, far past the `produced` bytes, decoded from the
// stream's end (DecodeDeflateTail) into `img`, with what PT_DYNAMIC (ending at `dynamic_end`, 0:
// none) then names past its end, as the streaming path keeps it; true when all of them are in.
// False leaves the stream where it was (the caller inflates on); the bytes copied are the member's
// own either way.
absl::StatusOr<bool> ZipArchive::FromTheEnd(zip_file_t* zf, const ZipMember& m,
                                            const RangeSet& ahead, uint64_t produced,
                                            uint64_t dynamic_end, const RetainPlan& plan,
                                            SparseImage* img, RangeSet* want,
                                            RangeSet* before) const {
  const zip_int64_t at = Z().ftell(zf);
  if (at < 0 || m.comp_size <= static_cast<uint64_t>(at)) return false;
  const uint64_t left = m.comp_size - static_cast<uint64_t>(at);
  const uint64_t from = ahead.ranges().front().first;
  if (!tail_rules::FromTheEndFirst(source_ != nullptr, m.size, from, produced, left)) return false;
  auto restore = [&]() -> absl::StatusOr<bool> {
    if (Z().fseek(zf, at, SEEK_SET) != 0) {
      return absl::DataLossError(
          absl::StrCat(path_, "!", m.name, ": cannot seek: ", Z().file_strerror(zf)));
    }
    return false;
  };
  std::vector<uint8_t> end;  // the compressed bytes read from the end, for both decodes
  auto decode = [&](const RangeSet& need) { return DecodeTail(zf, m, left, need, &end); };
  std::optional<DeflateTail> tail = decode(ahead);
  if (!tail) return restore();
  auto copy = [&](uint64_t lo, uint64_t hi) {
    return tail->CopyKnown(lo, hi, img->mutable_data() + lo);
  };
  for (const auto& [lo, hi] : ahead.ranges()) copy(lo, hi);  // all known (DecodeDeflateTail)
  if (plan.on_dynamic && dynamic_end != 0) {
    // The tables PT_DYNAMIC names past its end, where patchelf may have moved them: from the tail
    // too. (Streaming keeps what lies past the point it had reached then, as here.) Those between
    // the bytes inflated and PT_DYNAMIC are taken from the tail when it holds them, else set in
    // `before`: the caller streams on to them (a URL's member, read tail first: the tables of the
    // first segment). Those closer to the end than streaming would reach them cheaply (patchelf
    // puts .dynstr just before PT_DYNAMIC: 26 MB at the end of libcusparseLt.so.0, the rest of
    // its tables at its start) are decoded from the end once more first.
    img->mutable_retained() = *want;
    const RangeSet more = plan.on_dynamic(*img, dynamic_end);
    RangeSet missing;
    for (const auto& [lo, hi] : more.ranges()) {
      const uint64_t b = std::max(lo, produced), e = std::min(hi, m.size);
      if (b < e && !tail->Knows(b, e)) missing.Add(b, e);
    }
    const RangeSet closer = tail_rules::CloserToTheEnd(missing, produced, from,
                                                       source_ == nullptr ? kFileDecodePasses : 1);
    if (!closer.ranges().empty()) {
      RangeSet need = ahead;
      for (const auto& [lo, hi] : closer.ranges()) need.Add(lo, hi);
      if (std::optional<DeflateTail> again = decode(need)) tail = std::move(again);
    }
    for (const auto& [lo, hi] : more.ranges()) {
      const uint64_t b = std::max(lo, produced), e = std::min(hi, m.size);
      if (b >= e) continue;
      if (copy(b, e)) {
        want->Add(b, e);
        continue;
      }
      if (b < from) before->Add(b, std::min(e, from));  // streamed to by the caller
      const uint64_t kept = std::max(b, dynamic_end);   // what streaming would have kept
      if (kept >= e) continue;
      if (!copy(kept, e)) return restore();
      want->Add(kept, e);
    }
  }
  if (!before->ranges().empty() && Z().fseek(zf, at, SEEK_SET) != 0) {  // streamed on from here
    return absl::DataLossError(
        absl::StrCat(path_, "!", m.name, ": cannot seek: ", Z().file_strerror(zf)));
  }
  GlobalReadTrace().tail_decodes.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// Long: one streaming inflate loop whose state (the window, the ranges kept, the CRC, the caps)
// every step reads; split, each piece would take all of it.
absl::StatusOr<std::unique_ptr<SparseImage>> ZipArchive::Inflate(const ZipMember& m,
                                                                 const RetainPlan& plan) const {
  const std::string where = absl::StrCat(path_, "!", m.name);
  if (m.method != 0 && m.method != 8) {
    // Bad input for this reader (exit 3, issue 37 item 13), not a usage error.
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: compression method %d is not supported (stored and deflated are)", where, m.method));
  }
  if (m.size > limits_.max_member_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("%s: declares %d bytes, more than the cap of %d per member (raise it with "
                        "--max-member-size)",
                        where, m.size, limits_.max_member_bytes));
  }
  std::unique_ptr<SparseImage> img = SparseImage::Create(m.size);
  if (img == nullptr)
    return absl::ResourceExhaustedError(absl::StrCat(where, ": cannot reserve address space"));
  RangeSet want = plan.extra;
  if (plan.everything) want.Add(0, m.size);
  want.Add(0, std::min(plan.prefix, m.size));
  // Stop as soon as everything wanted is in, unless PT_DYNAMIC may still come.
  bool dynamic_known = !plan.dynamic_range && !plan.head_ranges;
  uint64_t head_goal = 0;    // plan.head_end's, once known
  uint64_t dynamic_end = 0;  // where PT_DYNAMIC ends, once known (0: none, or asked already)
  uint64_t stream_goal = 0;  // after the tail: the tables before it, streamed to here
  const uint64_t scan_to = std::min(plan.scan_to, m.size);
  auto wanted_end = [&] {
    if (stream_goal != 0) return std::max(stream_goal, scan_to);
    return std::max(scan_to, want.ranges().empty() ? 0 : want.ranges().back().second);
  };

  ABICHECK_ASSIGN_OR_RETURN(std::unique_ptr<Handle> h, Borrow());
  SourceReader* remote = h->reader.get();
  if (remote != nullptr) {  // a URL's: this member's reads end by its deadline
    remote->failure.clear();
    remote->bytes->SetDeadline(std::chrono::steady_clock::now() +
                               std::chrono::seconds(Deadlines::Get().member_seconds));
  }
  // What failed: the source's own words where it said any (a URL's), else libzip's.
  auto read_error = [&](const std::string& libzip_says) {
    return absl::DataLossError(absl::StrCat(
        where, ": ",
        remote != nullptr && !remote->failure.empty() ? remote->failure : libzip_says));
  };
  zip_file_t* zf = Z().fopen_index(h->za, m.index, ZIP_FL_COMPRESSED);
  if (zf == nullptr) return read_error(ZipError(h->za));
  struct Closer {  // the member closed, then the handle back to the pool
    const ZipArchive* a;
    std::unique_ptr<Handle> h;
    zip_file_t* f;
    ~Closer() {
      Z().fclose(f);
      a->Return(std::move(h));
    }
  } closer{this, std::move(h), zf};

  // Each thread's two buffers, made once: zeroing 2 MiB for every member (a wheel's small ones are
  // read twice, by Head and here) was more of a --fast check than its loader work.
  thread_local std::unique_ptr<uint8_t[]> in_buf(new uint8_t[kChunk]), out_buf(new uint8_t[kChunk]);
  const absl::Span<uint8_t> in(in_buf.get(), kChunk), out(out_buf.get(), kChunk);
  // A URL's compressed bytes are fetched as they are read: the first read small (what a member's
  // headers need is a few KiB of it; 1 MiB for each of a build's hundred libraries was a quarter
  // of what a torch build fetched), doubling while the stream goes on.
  size_t in_size = source_ != nullptr ? size_t{64} << 10 : kChunk;
  inflate_state state;
  isal_inflate_init(&state);
  state.crc_flag = plan.verify_crc ? ISAL_GZIP_NO_HDR : ISAL_DEFLATE;  // CRC-32 of the output
  uint32_t stored_crc = 0;
  uint64_t produced = 0;
  bool input_done = false;
  // Copies the wanted parts of [begin, begin + len) into the image.
  auto copy = [&](const uint8_t* data, uint64_t begin, uint64_t len) {
    const uint64_t end = begin + len;
    for (const auto& [b, e] : want.ranges()) {
      const uint64_t lo = std::max(b, begin), hi = std::min(e, end);
      if (lo < hi) std::memcpy(img->mutable_data() + lo, data + (lo - begin), hi - lo);
    }
  };
  auto keep = [&](const uint8_t* data, uint64_t len) {
    const uint64_t begin = produced, end = produced + len;
    if (plan.watch) plan.watch(begin, absl::MakeConstSpan(data, len));
    copy(data, begin, len);
    produced = end;
    if (plan.on_bytes) plan.on_bytes(len);
    if (!dynamic_known && produced >= std::min<uint64_t>(m.size, 65536)) {
      dynamic_known = true;
      const absl::Span<const uint8_t> head =
          img->bytes().subspan(0, std::min<uint64_t>(produced, plan.prefix));
      if (plan.head_ranges) {
        const RangeSet more = plan.head_ranges(head);
        for (const auto& [lo, hi] : more.ranges()) {
          if (lo < m.size) want.Add(lo, std::min(hi, m.size));
        }
      }
      if (auto dyn = plan.dynamic_range ? plan.dynamic_range(head) : std::nullopt) {
        const uint64_t b = std::min(dyn->first, m.size);
        want.Add(b, std::min(m.size, b + std::min(dyn->second, m.size - b)));
        dynamic_end = std::min(m.size, b + std::min(dyn->second, m.size - b));
      }
      if (plan.head_end) {
        if (std::optional<uint64_t> e = plan.head_end(head))
          head_goal = std::min({*e, m.size, RetainPlan::kMaxHead});
        // PT_DYNAMIC far ahead: from the tail first, then only the tables it names; else (or
        // when the tail fails) the first segment.
        const bool tail_first = !plan.verify_crc && m.method == 8 && dynamic_end != 0 &&
                                want.ranges().back().first >= produced + kTailGap;
        if (!tail_first && head_goal > produced) want.Add(0, head_goal);
      }
      // What became wanted may lie in these very bytes (a chunk of a member whose CRC is checked
      // runs past the first 64 KiB): kept now, or it would be retained as zeros.
      copy(data, begin, len);
    }
    if (dynamic_end != 0 && produced >= dynamic_end && plan.on_dynamic) {
      dynamic_end = 0;
      img->mutable_retained() = want;
      const RangeSet more = plan.on_dynamic(*img, produced);
      for (const auto& [lo, hi] : more.ranges()) {
        if (hi > begin) want.Add(std::max(lo, begin), std::min(hi, m.size));
      }
      copy(data, begin, len);  // the tables in these bytes, as above
    }
  };
  // Without the CRC to check, inflate no further than the bytes still wanted: Head(m, 4) decodes 4
  // bytes, not the member's first MiB (for most members of a wheel, all of it).
  auto room = [&]() -> size_t {
    uint64_t goal = wanted_end();
    if (!dynamic_known) goal = std::max<uint64_t>(goal, std::min<uint64_t>(m.size, 65536));
    return plan.verify_crc || goal <= produced ? kChunk
                                               : std::min<uint64_t>(kChunk, goal - produced);
  };
  bool tail_tried = false, tail_done = false;
  while (true) {
    // Nothing more to keep (with the CRC to check, on to the end).
    if (!plan.verify_crc && dynamic_known && produced >= wanted_end()) break;
    // (A watch sees every byte: never from the tail.)
    if (!plan.verify_crc && m.method == 8 && dynamic_known && !tail_tried && !plan.watch) {
      RangeSet ahead;
      for (const auto& [lo, hi] : want.ranges()) {
        if (hi > produced) ahead.Add(std::max(lo, produced), hi);
      }
      if (!ahead.ranges().empty() && ahead.ranges().front().first >= produced + kTailGap) {
        tail_tried = true;
        RangeSet before;
        ABICHECK_ASSIGN_OR_RETURN(tail_done, FromTheEnd(zf, m, ahead, produced, dynamic_end, plan,
                                                        img.get(), &want, &before));
        if (tail_done) {
          if (before.ranges().empty()) break;
          // Tables between here and the tail: streamed on to them (the tail's bytes are in).
          for (const auto& [lo, hi] : before.ranges()) want.Add(lo, hi);
          stream_goal = before.ranges().back().second;
          dynamic_end = 0;
          continue;
        }
        if (head_goal > produced) want.Add(0, head_goal);  // the tail failed: as a file's
      }
    }
    if (m.method == 0) {
      const zip_int64_t got = Z().fread(zf, out.data(), room());
      if (got < 0) return read_error(Z().file_strerror(zf));
      if (got == 0) break;
      if (static_cast<uint64_t>(got) > m.size - produced) {
        return absl::DataLossError(
            absl::StrFormat("%s: holds more than its declared %d bytes", where, m.size));
      }
      if (plan.verify_crc) stored_crc = crc32_gzip_refl(stored_crc, out.data(), got);
      keep(out.data(), static_cast<uint64_t>(got));
      continue;
    }
    if (state.avail_in == 0 && !input_done) {
      const zip_int64_t got = Z().fread(zf, in.data(), in_size);
      in_size = std::min(in_size * 2, in.size());
      if (got < 0) return read_error(Z().file_strerror(zf));
      input_done = got == 0;
      state.next_in = in.data();
      state.avail_in = static_cast<uint32_t>(got);
    }
    const size_t avail = room();
    state.next_out = out.data();
    state.avail_out = static_cast<uint32_t>(avail);
    const int rc = isal_inflate(&state);
    if (rc != ISAL_DECOMP_OK) {
      return absl::DataLossError(absl::StrFormat(
          "%s: invalid deflate data (ISA-L error %d) at output byte %d", where, rc, produced));
    }
    const uint64_t n = avail - state.avail_out;
    if (n > m.size - produced) {
      return absl::DataLossError(
          absl::StrFormat("%s: inflates past its declared size of %d bytes (a zip bomb, or a "
                          "corrupt archive)",
                          where, m.size));
    }
    keep(out.data(), n);
    if (state.block_state == ISAL_BLOCK_FINISH) break;
    if (n == 0 && state.avail_in == 0 && input_done) {
      return absl::DataLossError(absl::StrFormat("%s: deflate data ends early, at %d of %d bytes",
                                                 where, produced, m.size));
    }
  }
  if ((!tail_done || stream_goal != 0) && produced < wanted_end() && produced < m.size) {
    return absl::DataLossError(absl::StrFormat("%s: ends at %d bytes, shorter than its declared %d",
                                               where, produced, m.size));
  }
  if (plan.verify_crc && produced < m.size) {
    return absl::DataLossError(absl::StrFormat("%s: ends at %d bytes, shorter than its declared %d",
                                               where, produced, m.size));
  }
  if (plan.verify_crc && m.has_crc) {
    const uint32_t crc = m.method == 0 ? stored_crc : state.crc;
    if (crc != m.crc) {
      return absl::DataLossError(absl::StrFormat(
          "%s: CRC-32 is 0x%08x, the archive records 0x%08x: the member is corrupt (a damaged "
          "download?)",
          where, crc, m.crc));
    }
  }
  img->mutable_retained() = want;
  // Ranges past the end of what was produced hold no data.
  return img;
}

}  // namespace abicheck
