// The cache of what was read from published wheels: one file per wheel and read mode (layout in
// docs/cache.md).
#include "lib/inputs/wheel_cache.h"

#include <fcntl.h>
#include <isa-l/crc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "lib/io/blob.h"
#include "lib/io/byte_source.h"
#include "lib/io/mapped_file.h"
#include "lib/io/output_file.h"
#include "nlohmann/json.hpp"

namespace abicheck {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'A', 'B', 'I', 'C', 'H', 'K', 'W', 'C'};
constexpr uint32_t kVersion = 3;
// magic, u32 version, u32 meta size, u64 file size, u32 CRC-32C of everything after the header,
// u32 reserved (0); then the description (JSON), zeros to the next kPage boundary, then each
// object's spans (Spans) in order, uncompressed: a span is mapped from the file straight to its
// offset in the object's sparse image, as a library is mapped.
constexpr size_t kHeaderSize = 32;
// The alignment of spans in the object and in the file: mmap's on this system (a system with
// larger pages reads them instead, SparseImage::FillFrom).
constexpr uint64_t kPage = 4096;
constexpr uint64_t PageFloor(uint64_t n) { return n / kPage * kPage; }
constexpr uint64_t PageCeil(uint64_t n) { return PageFloor(n + kPage - 1); }
// An entry's description (names, notes, ranges, METADATA) is small; its bytes are the tables.
constexpr uint32_t kMaxMeta = 64u << 20;

struct Digests {
  std::mutex mu;
  absl::flat_hash_map<std::string, std::string> by_url;
  // The entries this process wrote from what it fetched: read back (a remote build's worlds are
  // read into the cache first, PrefetchBuildWorlds), their bytes were fetched by this run, and
  // are said so, not as a cache's.
  absl::flat_hash_set<std::string> fetched_now;
};
Digests& GlobalDigests() {
  static Digests* d = new Digests;  // never destroyed: worker threads may still ask
  return *d;
}

bool FetchedNow(const std::string& url) {
  Digests& d = GlobalDigests();
  std::lock_guard<std::mutex> lock(d.mu);
  return d.fetched_now.contains(url);
}

uint32_t Crc(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t at = 0; at < n;) {
    const size_t k = std::min<size_t>(n - at, size_t{1} << 30);
    crc = crc32_iscsi(const_cast<uint8_t*>(p + at), static_cast<int>(k), crc);
    at += k;
  }
  return crc;
}

// A URL's archive is read in part unless --verify (ExpandArchive): the two are different
// entries, so that what a run reports is what the same run without the cache would.
bool ReadWhole(const ReadLimits& l) { return l.verify_crc && l.verify_remote; }

}  // namespace

bool PrivateDirectory(const std::string& dir) {
  for (const std::string& d : {fs::path(dir).parent_path().string(), dir}) {
    std::error_code ec;
    fs::create_directories(fs::path(d).parent_path(), ec);
    if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST) return false;
    struct stat st;
    if (::lstat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    if ((st.st_mode & 07777) != 0700 && ::chmod(d.c_str(), 0700) != 0) return false;
  }
  return true;
}

namespace {

std::string EntryPath(const std::string& sha256, const ReadLimits& l) {
  const std::string root = CacheRoot();
  if (root.empty() || sha256.size() != 64 ||
      sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "";
  return absl::StrCat(root, "/wheels/", sha256, ReadWhole(l) ? ".whole" : ".part");
}

// An open file descriptor, closed with its owner.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// nlohmann::json's implicit members do not throw here; tidy sees a path through them.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Entry {
  nlohmann::json meta;
  std::string head;  // the header, the description and the zeros to data_at
  Fd fd;             // the entry, open: its spans are mapped from it
  uint64_t size = 0;
  uint32_t crc = 0;  // of every byte after the header
  uint64_t data_at = 0;
};

template <typename T>
std::optional<T> Get(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return std::nullopt;
  const nlohmann::json& v = j[key];
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) return std::nullopt;
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    if (!v.is_number_unsigned()) return std::nullopt;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (!v.is_number_integer()) return std::nullopt;
  }
  return v.get<T>();
}

// The entry at `path`, its header and description read and parsed (with care: their checksum is
// the whole entry's, checked as its objects are mapped, MapObjects); nullopt when absent, another
// version, or its size is not the file's. `meta_only` closes the file.
std::optional<Entry> ReadEntry(const std::string& path, bool meta_only) {
  Entry e;
  // Never through a link, never a FIFO or a device: only a regular file is an entry.
  e.fd = Fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
  struct stat st;
  if (e.fd.get() < 0 || ::fstat(e.fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  e.head.assign(kHeaderSize, '\0');
  if (::pread(e.fd.get(), e.head.data(), kHeaderSize, 0) != static_cast<ssize_t>(kHeaderSize) ||
      std::memcmp(e.head.data(), kMagic, 8) != 0)
    return std::nullopt;
  uint32_t version = 0, meta_size = 0, reserved = 0;
  std::memcpy(&version, e.head.data() + 8, 4);
  std::memcpy(&meta_size, e.head.data() + 12, 4);
  std::memcpy(&e.size, e.head.data() + 16, 8);
  std::memcpy(&e.crc, e.head.data() + 24, 4);
  std::memcpy(&reserved, e.head.data() + 28, 4);
  if (version != kVersion || reserved != 0 || meta_size > kMaxMeta ||
      ::fstat(e.fd.get(), &st) != 0 || static_cast<uint64_t>(st.st_size) != e.size)
    return std::nullopt;
  e.data_at = PageCeil(kHeaderSize + meta_size);
  if (e.size < e.data_at) return std::nullopt;
  // With the zeros after it: the checksum covers the bytes of the file. The description is a
  // JSON object, so its last byte is `}`: a size that took in a zero is refused.
  e.head.resize(e.data_at);
  const uint64_t rest = e.data_at - kHeaderSize;
  if (::pread(e.fd.get(), e.head.data() + kHeaderSize, rest, kHeaderSize) !=
          static_cast<ssize_t>(rest) ||
      meta_size == 0 || e.head[kHeaderSize + meta_size - 1] != '}')
    return std::nullopt;
  e.meta = nlohmann::json::parse(e.head.begin() + kHeaderSize,
                                 e.head.begin() + kHeaderSize + meta_size, nullptr,
                                 /*allow_exceptions=*/false);
  if (!e.meta.is_object()) return std::nullopt;
  // An entry answers only for the archive it is named by ("SHA256.part"): a copied or renamed
  // one is not an answer.
  const std::string name = fs::path(path).filename().string();
  const std::optional<std::string> sha256 = Get<std::string>(e.meta, "sha256");
  if (!sha256 || sha256->size() != 64 || name.compare(0, 64, *sha256) != 0 || name.size() < 65 ||
      name[64] != '.')
    return std::nullopt;
  if (meta_only) e.fd = Fd();
  return e;
}

std::optional<std::vector<std::pair<std::string, std::string>>> Texts(const nlohmann::json& meta) {
  if (!meta.contains("texts") || !meta["texts"].is_array()) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> out;
  for (const nlohmann::json& t : meta["texts"]) {
    if (!t.is_array() || t.size() != 2 || !t[0].is_string() || !t[1].is_string())
      return std::nullopt;
    out.emplace_back(t[0].get<std::string>(), t[1].get<std::string>());
  }
  return out;
}

// Whether the entry was read from the wheel under limits at least as wide as `l`: a cap the
// wheel exceeds must be met as an error, as reading it would.
bool WithinLimits(std::optional<uint64_t> members, std::optional<uint64_t> declared,
                  std::optional<uint64_t> largest, const ReadLimits& l) {
  return members && declared && largest && *members <= l.max_members &&
         *declared <= l.max_total_inflated && *largest <= l.max_member_bytes;
}
bool WithinLimits(const nlohmann::json& meta, const ReadLimits& l) {
  return WithinLimits(Get<uint64_t>(meta, "members"), Get<uint64_t>(meta, "declared"),
                      Get<uint64_t>(meta, "largest"), l);
}

// An object's retained ranges (sorted, disjoint) as the page-aligned spans that hold them:
// [floor(begin), ceil(end)) of each, those that meet or touch merged. A span's bytes outside the
// ranges are zeros in the file, and never read: the image's retained set stays the ranges.
std::vector<std::pair<uint64_t, uint64_t>> Spans(
    const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const auto& [b, e] : ranges) {
    const uint64_t from = PageFloor(b), to = PageCeil(e);
    if (!spans.empty() && from <= spans.back().second) {
      spans.back().second = std::max(spans.back().second, to);
    } else {
      spans.emplace_back(from, to);
    }
  }
  return spans;
}

const uint8_t* Zeros() {
  static const uint8_t zeros[kPage] = {};
  return zeros;
}

// Calls f(bytes, n) over an object's spans in file order: the ranges' bytes from `data`, and
// Zeros() pieces (at most kPage each) for the rest of each span.
template <typename F>
void ForEachStoredPiece(const uint8_t* data,
                        const std::vector<std::pair<uint64_t, uint64_t>>& ranges, F f) {
  size_t r = 0;
  for (const auto& [from, to] : Spans(ranges)) {
    for (uint64_t at = from; at < to;) {
      if (r < ranges.size() && ranges[r].first <= at) {
        f(data + at, ranges[r].second - at);
        at = ranges[r++].second;
        continue;
      }
      const uint64_t next = r < ranges.size() ? std::min(ranges[r].first, to) : to;
      const uint64_t n = std::min(next - at, kPage);
      f(Zeros(), n);
      at += n;
    }
  }
}

// The cached entry's names were written for `from`; the same archive may be asked for by another
// URL (a mirror): its names say the URL asked for.
std::string Rename(const std::string& s, const std::string& from, const std::string& to) {
  return from == to ? s : absl::StrReplaceAll(s, {{from, to}});
}

// An entry's objects as mapped, with the description they were mapped by. Every expansion of the
// entry shares them while one is alive (MappedEntry): the builds of one run that pin the same
// wheel hold one copy of its tables, parsed once (ParseCache keys parses by the blob).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Mapped {
  nlohmann::json meta;
  std::vector<std::unique_ptr<SparseImage>> images;
};

// An object's ranges as the description gives them, checked sorted, disjoint and inside its
// `size` bytes; nullopt when they are not.
std::optional<std::vector<std::pair<uint64_t, uint64_t>>> RangesOf(const nlohmann::json& o,
                                                                   uint64_t size) {
  if (!o.contains("ranges") || !o["ranges"].is_array()) return std::nullopt;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  uint64_t last_end = 0;
  for (const nlohmann::json& r : o["ranges"]) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned() || !r[1].is_number_unsigned())
      return std::nullopt;
    const uint64_t b = r[0].get<uint64_t>(), end = r[1].get<uint64_t>();
    if (b < last_end || end <= b || end > size) return std::nullopt;
    ranges.emplace_back(b, end);
    last_end = end;
  }
  return ranges;
}

// The objects of entry `e`, their ranges checked against the description (RangesOf; no object
// larger than the largest member), their spans mapped from the file and the whole entry's
// CRC-32C checked over the bytes mapped; nullptr when they do not agree.
std::shared_ptr<const Mapped> MapObjects(Entry e) {
  const nlohmann::json& m = e.meta;
  const std::optional<uint64_t> largest = Get<uint64_t>(m, "largest");
  if (!largest || !m.contains("objects") || !m["objects"].is_array()) return nullptr;
  auto out = std::make_shared<Mapped>();
  uint32_t crc = Crc(e.head.data() + kHeaderSize, e.head.size() - kHeaderSize, 0);
  uint64_t at = e.data_at;
  for (const nlohmann::json& o : m["objects"]) {
    const std::optional<uint64_t> bytes = Get<uint64_t>(o, "size");
    if (!bytes || *bytes > *largest) return nullptr;
    const std::optional<std::vector<std::pair<uint64_t, uint64_t>>> ranges = RangesOf(o, *bytes);
    if (!ranges) return nullptr;
    std::unique_ptr<SparseImage> img = SparseImage::Create(*bytes);
    if (img == nullptr) return nullptr;
    for (const auto& [from, to] : Spans(*ranges)) {
      if (to - from > e.size - at || !img->FillFrom(e.fd.get(), at, from, to - from))
        return nullptr;
      crc = Crc(img->mutable_data() + from, to - from, crc);
      at += to - from;
    }
    for (const auto& [b, end] : *ranges) img->mutable_retained().Add(b, end);
    out->images.push_back(std::move(img));
  }
  if (at != e.size || crc != e.crc) return nullptr;
  out->meta = std::move(e.meta);
  return out;
}

// The entries mapped by this process, by entry path and URL, while an expansion of one holds its
// objects.
struct MappedEntries {
  std::mutex mu;
  absl::flat_hash_map<std::string, std::weak_ptr<const Mapped>> by_key;
};
MappedEntries& GlobalMapped() {
  static MappedEntries* d = new MappedEntries;  // never destroyed: worker threads may ask
  return *d;
}

// The mapped objects of the entry at `path` for `url`: those an expansion alive holds, else
// read, mapped and checked whole (ReadEntry, MapObjects); nullptr when absent or damaged.
std::shared_ptr<const Mapped> MappedEntry(const std::string& path, const std::string& url,
                                          const ReadLimits& limits) {
  const std::string key = absl::StrCat(path, "\n", url);
  MappedEntries& all = GlobalMapped();
  {
    std::lock_guard<std::mutex> lock(all.mu);
    auto it = all.by_key.find(key);
    if (it != all.by_key.end()) {
      if (std::shared_ptr<const Mapped> alive = it->second.lock()) return alive;
      all.by_key.erase(it);
    }
  }
  std::optional<Entry> e = ReadEntry(path, /*meta_only=*/false);
  // Nothing is mapped for a run whose limits the wheel exceeds (Decode refuses it too).
  if (!e || !WithinLimits(e->meta, limits)) return nullptr;
  std::shared_ptr<const Mapped> in = MapObjects(*std::move(e));
  if (in == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(all.mu);
  all.by_key[key] = in;  // two threads mapping the same entry at once: both right, one kept
  return in;
}

std::optional<ExpandedInput> Decode(const std::shared_ptr<const Mapped>& mapped,
                                    const std::string& url, const ReadLimits& limits) {
  const nlohmann::json& m = mapped->meta;
  const std::optional<std::string> from = Get<std::string>(m, "url");
  std::optional<std::vector<std::pair<std::string, std::string>>> texts = Texts(m);
  const std::optional<uint64_t> fetched = Get<uint64_t>(m, "fetched"),
                                size = Get<uint64_t>(m, "size"),
                                inflated_bytes = Get<uint64_t>(m, "inflated"),
                                retained = Get<uint64_t>(m, "retained");
  if (!from || !texts || !fetched || !size || !inflated_bytes || !retained ||
      !WithinLimits(m, limits) || !m.contains("notes") || !m["notes"].is_array() ||
      m["objects"].size() != mapped->images.size())
    return std::nullopt;
  ExpandedInput out;
  out.path = url;
  out.kind = "archive";
  out.texts = *std::move(texts);
  out.inflated_bytes = *inflated_bytes;
  out.retained_bytes = *retained;
  out.remote_size = *size;
  const bool fetched_now = FetchedNow(url);
  out.from_cache = !fetched_now;
  (fetched_now ? out.fetched_bytes : out.cached_fetched_bytes) = *fetched;
  out.archive_members = *Get<uint64_t>(m, "members");
  out.declared_bytes = *Get<uint64_t>(m, "declared");
  out.largest_member = *Get<uint64_t>(m, "largest");
  const std::string written = Get<std::string>(m, "written_utc").value_or("");
  for (const nlohmann::json& n : m["notes"]) {
    if (!n.is_string()) return std::nullopt;
    std::string note = Rename(n.get<std::string>(), *from, url);
    // What the network cost was paid when the entry was written: said as such.
    if (!fetched_now && absl::StartsWith(note, "read by HTTP range requests: ")) {
      note = absl::StrCat("read from abicheck's cache (sha256 ", DigestOf(url).substr(0, 12),
                          "..., written ", written, "), as HTTP range requests read it then: ",
                          note.substr(std::strlen("read by HTTP range requests: ")));
    }
    out.notes.push_back(std::move(note));
  }
  for (size_t i = 0; i < mapped->images.size(); ++i) {
    const nlohmann::json& o = m["objects"][i];
    const std::optional<std::string> name = Get<std::string>(o, "name"),
                                     path = Get<std::string>(o, "path");
    const SparseImage* img = mapped->images[i].get();
    if (!name || !path || img->bytes().size() > limits.max_member_bytes) return std::nullopt;
    // The object shares the entry's lifetime: the entry stays mapped while one is held.
    out.objects.push_back(InputFile{Rename(*name, *from, url), Rename(*path, *from, url),
                                    std::shared_ptr<const Blob>(mapped, img), nullptr});
  }
  return out;
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

}  // namespace

std::string CacheRoot() {
  if (const char* off = std::getenv("ABICHECK_NO_CACHE"); off != nullptr && *off != '\0') return "";
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && x[0] == '/')
    return absl::StrCat(x, "/abicheck");
  if (const char* h = std::getenv("HOME"); h != nullptr && h[0] == '/')
    return absl::StrCat(h, "/.cache/abicheck");
  return "";
}

void RememberDigest(const std::string& url, const std::string& sha256) {
  if (sha256.empty()) return;
  Digests& d = GlobalDigests();
  std::lock_guard<std::mutex> lock(d.mu);
  d.by_url[url] = sha256;
}

std::string DigestOf(const std::string& url) {
  Digests& d = GlobalDigests();
  std::lock_guard<std::mutex> lock(d.mu);
  auto it = d.by_url.find(url);
  return it == d.by_url.end() ? "" : it->second;
}

std::optional<ExpandedInput> LoadCachedWheel(const std::string& url, const ReadLimits& limits) {
  if (limits.whole_members) return std::nullopt;
  const std::string path = EntryPath(DigestOf(url), limits);
  if (path.empty()) return std::nullopt;
  std::shared_ptr<const Mapped> mapped = MappedEntry(path, url, limits);
  if (mapped == nullptr) return std::nullopt;
  return Decode(mapped, url, limits);
}

std::string CacheMissReason(const std::string& url, const ReadLimits& limits) {
  const std::string path = EntryPath(DigestOf(url), limits);
  struct stat st;
  if (!path.empty() && ::lstat(path.c_str(), &st) == 0) {
    return absl::StrCat("abicheck's cache holds a damaged entry for it (", path,
                        "): it is read again, and rewritten, without --offline");
  }
  return absl::StrCat("not in abicheck's cache (", CacheRoot().empty() ? "none" : CacheRoot(), ")");
}

namespace {

// What CachedWheelTexts read of the entries present, by entry path: an entry is named by its
// archive's sha256, so what it says does not change while the process runs. Planning each build's
// world asks for the texts of the same wheels again and again (the builds share the CUDA wheels,
// and the worlds are planned before they are read and when they are): each is read and parsed
// once. An entry absent is not remembered: this run may store it.
struct EntryTexts {
  // The description's members, declared, largest (WithinLimits).
  std::optional<uint64_t> members, declared, largest;
  std::optional<std::vector<std::pair<std::string, std::string>>> texts;
};
struct TextsMemo {
  std::mutex mu;
  absl::flat_hash_map<std::string, std::shared_ptr<const EntryTexts>> by_path;
};
TextsMemo& GlobalTexts() {
  static TextsMemo* d = new TextsMemo;  // never destroyed: worker threads may ask
  return *d;
}

}  // namespace

std::optional<std::vector<std::pair<std::string, std::string>>> CachedWheelTexts(
    const std::string& url, const ReadLimits& limits) {
  if (limits.whole_members) return std::nullopt;
  const std::string path = EntryPath(DigestOf(url), limits);
  if (path.empty()) return std::nullopt;
  TextsMemo& memo = GlobalTexts();
  std::shared_ptr<const EntryTexts> known;
  {
    std::lock_guard<std::mutex> lock(memo.mu);
    if (auto it = memo.by_path.find(path); it != memo.by_path.end()) known = it->second;
  }
  if (known == nullptr) {
    std::optional<Entry> e = ReadEntry(path, /*meta_only=*/true);
    if (!e) return std::nullopt;
    auto made = std::make_shared<EntryTexts>();
    made->members = Get<uint64_t>(e->meta, "members");
    made->declared = Get<uint64_t>(e->meta, "declared");
    made->largest = Get<uint64_t>(e->meta, "largest");
    made->texts = Texts(e->meta);
    known = made;
    std::lock_guard<std::mutex> lock(memo.mu);
    memo.by_path.try_emplace(path, known);
  }
  if (!WithinLimits(known->members, known->declared, known->largest, limits)) return std::nullopt;
  return known->texts;
}

void StoreCachedWheel(const std::string& url, const ExpandedInput& in, const ReadLimits& limits) {
  if (limits.whole_members || in.remote_size == 0) return;
  const std::string sha256 = DigestOf(url);
  const std::string path = EntryPath(sha256, limits);
  if (path.empty()) return;
  // Each object's retained ranges (all of it when it is whole).
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> kept;
  nlohmann::json objects = nlohmann::json::array();
  for (const InputFile& f : in.objects) {
    const uint64_t size = f.blob->bytes().size();
    if (const RangeSet* r = f.blob->retained()) {
      kept.push_back(r->ranges());
    } else {
      kept.emplace_back();
      if (size > 0) kept.back().emplace_back(0, size);
    }
    nlohmann::json ranges = nlohmann::json::array();
    for (const auto& [b, e] : kept.back()) ranges.push_back({b, e});
    objects.push_back(
        {{"name", f.name}, {"path", f.path}, {"size", size}, {"ranges", std::move(ranges)}});
  }
  nlohmann::json texts = nlohmann::json::array();
  for (const auto& [name, text] : in.texts) texts.push_back({name, text});
  const size_t slash = url.rfind('/');
  const nlohmann::json meta = {{"url", url},
                               {"file", url.substr(slash == std::string::npos ? 0 : slash + 1)},
                               {"sha256", sha256},
                               {"etag", in.remote_etag},
                               {"written_utc", UtcNow()},
                               {"fetched", in.fetched_bytes},
                               {"size", in.remote_size},
                               {"inflated", in.inflated_bytes},
                               {"retained", in.retained_bytes},
                               {"members", in.archive_members},
                               {"declared", in.declared_bytes},
                               {"largest", in.largest_member},
                               {"notes", in.notes},
                               {"texts", std::move(texts)},
                               {"objects", std::move(objects)}};
  const std::string meta_text = meta.dump();
  if (meta_text.size() > kMaxMeta) return;
  const uint64_t data_at = PageCeil(kHeaderSize + meta_text.size());
  uint64_t file_size = data_at;
  uint32_t crc = Crc(meta_text.data(), meta_text.size(), 0);
  crc = Crc(Zeros(), data_at - kHeaderSize - meta_text.size(), crc);
  for (size_t i = 0; i < in.objects.size(); ++i) {
    ForEachStoredPiece(in.objects[i].blob->bytes().data(), kept[i],
                       [&](const uint8_t* p, uint64_t n) {
                         crc = Crc(p, n, crc);
                         file_size += n;
                       });
  }
  std::string header(kMagic, sizeof(kMagic));
  const uint32_t meta_size = static_cast<uint32_t>(meta_text.size());
  const uint32_t reserved = 0;
  header.append(reinterpret_cast<const char*>(&kVersion), 4);
  header.append(reinterpret_cast<const char*>(&meta_size), 4);
  header.append(reinterpret_cast<const char*>(&file_size), 8);
  header.append(reinterpret_cast<const char*>(&crc), 4);
  header.append(reinterpret_cast<const char*>(&reserved), 4);
  if (!PrivateDirectory(fs::path(path).parent_path().string())) return;
  // Written whole or not at all: a temporary file renamed into place (two runs filling the same
  // entry end with one of them), replacing whatever was there (a link is not followed); a cache
  // not written is not an error.
  absl::StatusOr<OutputFile> out = OutputFile::CreatePrivate(path);
  if (!out.ok()) return;
  const auto bytes = [](const uint8_t* p, uint64_t n) {
    return absl::string_view(reinterpret_cast<const char*>(p), n);
  };
  bool ok = out->Write(header).ok() && out->Write(meta_text).ok() &&
            out->Write(bytes(Zeros(), data_at - kHeaderSize - meta_text.size())).ok();
  for (size_t i = 0; i < in.objects.size(); ++i) {
    ForEachStoredPiece(
        in.objects[i].blob->bytes().data(), kept[i],
        [&](const uint8_t* p, uint64_t n) { ok = ok && out->Write(bytes(p, n)).ok(); });
  }
  if (ok) (void)out->Commit();
}

void RememberFetchedNow(const std::string& url) {
  Digests& d = GlobalDigests();
  std::lock_guard<std::mutex> lock(d.mu);
  d.fetched_now.insert(url);
}

std::vector<CachedItem> ListCachedItems() {
  std::vector<CachedItem> items;
  const std::string root = CacheRoot();
  if (root.empty()) return items;
  std::error_code ec;
  for (const char* sub : {"wheels", "pip"}) {
    for (fs::directory_iterator it(fs::path(root) / sub, ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::string p = it->path().string();
      if (!absl::EndsWith(p, std::strcmp(sub, "pip") == 0 ? ".json" : ".part") &&
          !absl::EndsWith(p, ".whole"))
        continue;  // a temporary file of a write under way
      struct stat st;
      if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      CachedItem item;
      item.path = p;
      item.bytes = static_cast<uint64_t>(st.st_size);
      item.written = st.st_mtime;
      if (std::strcmp(sub, "wheels") == 0) {
        std::optional<Entry> e = ReadEntry(p, /*meta_only=*/true);
        if (!e) continue;  // a temporary file, or damaged: `cache clear` removes it
        item.kind = "wheel";
        item.name = Get<std::string>(e->meta, "file").value_or("?");
        const uint64_t fetched = Get<uint64_t>(e->meta, "fetched").value_or(0),
                       size = Get<uint64_t>(e->meta, "size").value_or(0);
        item.detail = absl::StrFormat(
            "sha256 %s, %s, %.1f %% of %d bytes read",
            Get<std::string>(e->meta, "sha256").value_or(""),
            absl::EndsWith(p, ".whole") ? "read whole (--verify)" : "read in part",
            size ? 100.0 * static_cast<double>(fetched) / static_cast<double>(size) : 0.0, size);
      } else {
        std::optional<std::string> text = ReadWholeFile(p, 1 << 20);
        const nlohmann::json j =
            text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
        if (!j.is_object()) continue;
        item.kind = "pip";
        item.name = Get<std::string>(j, "requirement").value_or("?");
        item.detail = Get<std::string>(j, "location").value_or("");
      }
      items.push_back(std::move(item));
    }
    ec.clear();
  }
  std::sort(items.begin(), items.end(), [](const CachedItem& a, const CachedItem& b) {
    return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
  });
  return items;
}

absl::Status ClearCachedItems(uint64_t* files, uint64_t* bytes) {
  *files = 0;
  *bytes = 0;
  const std::string root = CacheRoot();
  if (root.empty()) return absl::OkStatus();
  // Everything in the cache's folders goes — entries, temporary files, links, FIFOs — and
  // nothing outside them: a link is removed, never followed (remove_all does not follow one).
  for (const char* sub : {"wheels", "pip"}) {
    const fs::path dir = fs::path(root) / sub;
    struct stat st;
    if (::lstat(dir.c_str(), &st) != 0) continue;
    if (!S_ISDIR(st.st_mode)) {  // a link or a file where the folder should be
      if (::unlink(dir.c_str()) != 0)
        return absl::UnavailableError(absl::StrCat(dir.string(), ": ", std::strerror(errno)));
      ++*files;
      continue;
    }
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      struct stat one;
      const bool regular = ::lstat(it->path().c_str(), &one) == 0 && S_ISREG(one.st_mode);
      std::error_code rm;
      const uintmax_t n = fs::remove_all(it->path(), rm);
      if (rm) return absl::UnavailableError(absl::StrCat(it->path().string(), ": ", rm.message()));
      *files += n;
      if (regular) *bytes += static_cast<uint64_t>(one.st_size);
    }
    if (ec) return absl::UnavailableError(absl::StrCat(dir.string(), ": ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace abicheck
