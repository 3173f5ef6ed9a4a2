// The cache of what was read from published wheels: one file per wheel and read mode (layout in
// docs/cache.md).
#include "lib/inputs/wheel_cache.h"

#include <fcntl.h>
#include <isa-l/crc.h>
#include <lz4.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>
#include <tuple>
#include <type_traits>

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
constexpr uint32_t kVersion = 2;
// magic, u32 version, u32 meta size, u64 file size, u32 CRC-32C of everything after the header,
// u32 reserved (0); then the description (JSON), then each object's retained ranges in order,
// each in LZ4 chunks of its own (InflateInto): a range inflates straight to its offset.
constexpr size_t kHeaderSize = 32;
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

std::string EntryPath(const std::string& sha256, const ReadLimits& l) {
  const std::string root = CacheRoot();
  if (root.empty() || sha256.size() != 64 ||
      sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "";
  return absl::StrCat(root, "/wheels/", sha256, ReadWhole(l) ? ".whole" : ".part");
}

// nlohmann::json's implicit members do not throw here; tidy sees a path through them.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Entry {
  nlohmann::json meta;
  std::string file;  // the whole entry; the tables' bytes follow the header and meta
  size_t data_at = 0;
};

// The entry at `path`, checked whole; nullopt when absent or damaged. `meta_only` reads the
// header and the description alone (their own CRC is not separate: they are parsed with care).
std::optional<Entry> ReadEntry(const std::string& path, bool meta_only) {
  Entry e;
  if (meta_only) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return std::nullopt;
    std::string head(kHeaderSize, '\0');
    bool ok = ::pread(fd, head.data(), kHeaderSize, 0) == static_cast<ssize_t>(kHeaderSize);
    uint32_t meta_size = 0;
    if (ok) std::memcpy(&meta_size, head.data() + 12, 4);
    ok = ok && meta_size <= kMaxMeta;
    if (ok) {
      head.resize(kHeaderSize + meta_size);
      ok = ::pread(fd, head.data() + kHeaderSize, meta_size, kHeaderSize) ==
           static_cast<ssize_t>(meta_size);
    }
    ::close(fd);
    if (!ok) return std::nullopt;
    e.file = std::move(head);
  } else {
    std::optional<std::string> f = ReadWholeFile(path, uint64_t{1} << 40);
    if (!f) return std::nullopt;
    e.file = *std::move(f);
  }
  if (e.file.size() < kHeaderSize || std::memcmp(e.file.data(), kMagic, 8) != 0)
    return std::nullopt;
  uint32_t version = 0, meta_size = 0, crc = 0, reserved = 0;
  uint64_t size = 0;
  std::memcpy(&reserved, e.file.data() + 28, 4);
  std::memcpy(&version, e.file.data() + 8, 4);
  std::memcpy(&meta_size, e.file.data() + 12, 4);
  std::memcpy(&size, e.file.data() + 16, 8);
  std::memcpy(&crc, e.file.data() + 24, 4);
  if (version != kVersion || reserved != 0 || meta_size > kMaxMeta ||
      e.file.size() < kHeaderSize + meta_size)
    return std::nullopt;
  if (!meta_only && (size != e.file.size() ||
                     Crc(e.file.data() + kHeaderSize, e.file.size() - kHeaderSize, 0) != crc))
    return std::nullopt;
  e.meta = nlohmann::json::parse(e.file.begin() + kHeaderSize,
                                 e.file.begin() + kHeaderSize + meta_size, nullptr,
                                 /*allow_exceptions=*/false);
  if (!e.meta.is_object()) return std::nullopt;
  e.data_at = kHeaderSize + meta_size;
  return e;
}

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
bool WithinLimits(const nlohmann::json& meta, const ReadLimits& l) {
  const std::optional<uint64_t> members = Get<uint64_t>(meta, "members"),
                                declared = Get<uint64_t>(meta, "declared"),
                                largest = Get<uint64_t>(meta, "largest");
  return members && declared && largest && *members <= l.max_members &&
         *declared <= l.max_total_inflated && *largest <= l.max_member_bytes;
}

// A retained range's bytes, in LZ4 chunks of at most kChunk raw bytes: u32 compressed size,
// u32 raw size, the block. Inflated into `to`, `n` bytes; `*at` moves past them; false when they
// do not make exactly `n` bytes.
constexpr uint64_t kChunk = 64u << 20;

bool InflateInto(const std::string& file, uint64_t* at, uint8_t* to, uint64_t n) {
  for (uint64_t done = 0; done < n;) {
    if (file.size() - *at < 8) return false;
    uint32_t packed = 0, raw = 0;
    std::memcpy(&packed, file.data() + *at, 4);
    std::memcpy(&raw, file.data() + *at + 4, 4);
    *at += 8;
    if (packed > file.size() - *at || raw == 0 || raw > kChunk || raw > n - done) return false;
    if (LZ4_decompress_safe(file.data() + *at, reinterpret_cast<char*>(to + done),
                            static_cast<int>(packed),
                            static_cast<int>(raw)) != static_cast<int>(raw))
      return false;
    *at += packed;
    done += raw;
  }
  return true;
}

std::string Deflate(absl::string_view raw) {
  std::string out;
  for (size_t at = 0; at < raw.size(); at += kChunk) {
    const int n = static_cast<int>(std::min<uint64_t>(kChunk, raw.size() - at));
    std::string block(static_cast<size_t>(LZ4_compressBound(n)), '\0');
    const int packed =
        LZ4_compress_default(raw.data() + at, block.data(), n, static_cast<int>(block.size()));
    const uint32_t p32 = static_cast<uint32_t>(packed), n32 = static_cast<uint32_t>(n);
    out.append(reinterpret_cast<const char*>(&p32), 4);
    out.append(reinterpret_cast<const char*>(&n32), 4);
    out.append(block.data(), static_cast<size_t>(packed));
  }
  return out;
}

// The cached entry's names were written for `from`; the same archive may be asked for by another
// URL (a mirror): its names say the URL asked for.
std::string Rename(const std::string& s, const std::string& from, const std::string& to) {
  return from == to ? s : absl::StrReplaceAll(s, {{from, to}});
}

// An entry's objects as inflated, with the description they were inflated by. Every expansion
// of the entry shares them while one is alive (InflatedEntry): the builds of one run that pin
// the same wheel hold one copy of its tables, parsed once (ParseCache keys parses by the blob).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Inflated {
  nlohmann::json meta;
  std::vector<std::unique_ptr<SparseImage>> images;
};

// The objects of entry `e`, their ranges checked against the description (sorted, disjoint,
// inside the object, no object larger than the largest member) and their bytes inflated; nullptr
// when they do not agree.
std::shared_ptr<const Inflated> InflateObjects(Entry e) {
  const nlohmann::json& m = e.meta;
  const std::optional<uint64_t> largest = Get<uint64_t>(m, "largest");
  if (!largest || !m.contains("objects") || !m["objects"].is_array()) return nullptr;
  auto out = std::make_shared<Inflated>();
  uint64_t at = e.data_at;
  for (const nlohmann::json& o : m["objects"]) {
    const std::optional<uint64_t> bytes = Get<uint64_t>(o, "size");
    if (!bytes || *bytes > *largest || !o.contains("ranges") || !o["ranges"].is_array())
      return nullptr;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    uint64_t last_end = 0, total = 0;
    for (const nlohmann::json& r : o["ranges"]) {
      if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned() ||
          !r[1].is_number_unsigned())
        return nullptr;
      const uint64_t b = r[0].get<uint64_t>(), end = r[1].get<uint64_t>();
      if (b < last_end || end <= b || end > *bytes) return nullptr;  // sorted, disjoint, inside
      ranges.emplace_back(b, end);
      total += end - b;
      last_end = end;
    }
    // LZ4 expands at most 255 times: ranges beyond that are refused before they are mapped.
    if (total / 255 > e.file.size() - at) return nullptr;
    std::unique_ptr<SparseImage> img = SparseImage::Create(*bytes);
    if (img == nullptr) return nullptr;
    for (const auto& [b, end] : ranges) {
      if (!InflateInto(e.file, &at, img->mutable_data() + b, end - b)) return nullptr;
      img->mutable_retained().Add(b, end);
    }
    out->images.push_back(std::move(img));
  }
  if (at != e.file.size()) return nullptr;
  out->meta = std::move(e.meta);
  return out;
}

// The entries inflated by this process, by entry path and URL, while an expansion of one holds
// its objects.
struct InflatedEntries {
  std::mutex mu;
  absl::flat_hash_map<std::string, std::weak_ptr<const Inflated>> by_key;
};
InflatedEntries& GlobalInflated() {
  static InflatedEntries* d = new InflatedEntries;  // never destroyed: worker threads may ask
  return *d;
}

// The inflated objects of the entry at `path` for `url`: those an expansion alive holds, else
// read and checked whole (ReadEntry) and inflated; nullptr when absent or damaged.
std::shared_ptr<const Inflated> InflatedEntry(const std::string& path, const std::string& url,
                                              const ReadLimits& limits) {
  const std::string key = absl::StrCat(path, "\n", url);
  InflatedEntries& all = GlobalInflated();
  {
    std::lock_guard<std::mutex> lock(all.mu);
    auto it = all.by_key.find(key);
    if (it != all.by_key.end()) {
      if (std::shared_ptr<const Inflated> alive = it->second.lock()) return alive;
      all.by_key.erase(it);
    }
  }
  std::optional<Entry> e = ReadEntry(path, /*meta_only=*/false);
  // Nothing is inflated for a run whose limits the wheel exceeds (Decode refuses it too).
  if (!e || !WithinLimits(e->meta, limits)) return nullptr;
  std::shared_ptr<const Inflated> in = InflateObjects(*std::move(e));
  if (in == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(all.mu);
  all.by_key[key] = in;  // two threads inflating the same entry at once: both right, one kept
  return in;
}

std::optional<ExpandedInput> Decode(const std::shared_ptr<const Inflated>& inflated,
                                    const std::string& url, const ReadLimits& limits) {
  const nlohmann::json& m = inflated->meta;
  const std::optional<std::string> from = Get<std::string>(m, "url");
  std::optional<std::vector<std::pair<std::string, std::string>>> texts = Texts(m);
  const std::optional<uint64_t> fetched = Get<uint64_t>(m, "fetched"),
                                size = Get<uint64_t>(m, "size"),
                                inflated_bytes = Get<uint64_t>(m, "inflated"),
                                retained = Get<uint64_t>(m, "retained");
  if (!from || !texts || !fetched || !size || !inflated_bytes || !retained ||
      !WithinLimits(m, limits) || !m.contains("notes") || !m["notes"].is_array() ||
      m["objects"].size() != inflated->images.size())
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
  for (size_t i = 0; i < inflated->images.size(); ++i) {
    const nlohmann::json& o = m["objects"][i];
    const std::optional<std::string> name = Get<std::string>(o, "name"),
                                     path = Get<std::string>(o, "path");
    const SparseImage* img = inflated->images[i].get();
    if (!name || !path || img->bytes().size() > limits.max_member_bytes) return std::nullopt;
    // The object shares the entry's lifetime: the entry stays inflated while one is held.
    out.objects.push_back(InputFile{Rename(*name, *from, url), Rename(*path, *from, url),
                                    std::shared_ptr<const Blob>(inflated, img), nullptr});
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
  std::shared_ptr<const Inflated> inflated = InflatedEntry(path, url, limits);
  if (inflated == nullptr) return std::nullopt;
  return Decode(inflated, url, limits);
}

std::optional<std::vector<std::pair<std::string, std::string>>> CachedWheelTexts(
    const std::string& url, const ReadLimits& limits) {
  if (limits.whole_members) return std::nullopt;
  const std::string path = EntryPath(DigestOf(url), limits);
  if (path.empty()) return std::nullopt;
  std::optional<Entry> e = ReadEntry(path, /*meta_only=*/true);
  if (!e || !WithinLimits(e->meta, limits)) return std::nullopt;
  return Texts(e->meta);
}

void StoreCachedWheel(const std::string& url, const ExpandedInput& in, const ReadLimits& limits) {
  if (limits.whole_members || in.remote_size == 0) return;
  const std::string sha256 = DigestOf(url);
  const std::string path = EntryPath(sha256, limits);
  if (path.empty()) return;
  nlohmann::json objects = nlohmann::json::array();
  for (const InputFile& f : in.objects) {
    const RangeSet* kept = f.blob->retained();
    nlohmann::json ranges = nlohmann::json::array();
    if (kept == nullptr) {
      ranges.push_back({0, f.blob->bytes().size()});
    } else {
      for (const auto& [b, e] : kept->ranges()) ranges.push_back({b, e});
    }
    objects.push_back({{"name", f.name},
                       {"path", f.path},
                       {"size", f.blob->bytes().size()},
                       {"ranges", std::move(ranges)}});
  }
  nlohmann::json texts = nlohmann::json::array();
  for (const auto& [name, text] : in.texts) texts.push_back({name, text});
  const size_t slash = url.rfind('/');
  const nlohmann::json meta = {{"url", url},
                               {"file", url.substr(slash == std::string::npos ? 0 : slash + 1)},
                               {"sha256", sha256},
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
  std::vector<std::string> packed;
  uint64_t data_size = 0;
  uint32_t crc = Crc(meta_text.data(), meta_text.size(), 0);
  for (const InputFile& f : in.objects) {
    const absl::Span<const uint8_t> b = f.blob->bytes();
    const auto text = [&](uint64_t from, uint64_t to) {
      return absl::string_view(reinterpret_cast<const char*>(b.data() + from), to - from);
    };
    std::string p;
    if (const RangeSet* kept = f.blob->retained()) {
      for (const auto& [from, to] : kept->ranges()) p += Deflate(text(from, to));
    } else if (!b.empty()) {
      p = Deflate(text(0, b.size()));
    }
    crc = Crc(p.data(), p.size(), crc);
    data_size += p.size();
    packed.push_back(std::move(p));
  }
  std::string header(kMagic, sizeof(kMagic));
  const uint32_t meta_size = static_cast<uint32_t>(meta_text.size());
  const uint64_t file_size = kHeaderSize + meta_text.size() + data_size;
  const uint32_t reserved = 0;
  header.append(reinterpret_cast<const char*>(&kVersion), 4);
  header.append(reinterpret_cast<const char*>(&meta_size), 4);
  header.append(reinterpret_cast<const char*>(&file_size), 8);
  header.append(reinterpret_cast<const char*>(&crc), 4);
  header.append(reinterpret_cast<const char*>(&reserved), 4);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  // Written whole or not at all: a temporary file renamed into place (two runs filling the same
  // entry end with one of them); a cache not written is not an error.
  absl::StatusOr<OutputFile> out = OutputFile::Create(path);
  if (!out.ok()) return;
  bool ok = out->Write(header).ok() && out->Write(meta_text).ok();
  for (const std::string& p : packed) ok = ok && out->Write(p).ok();
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
  std::error_code ec;
  for (const char* sub : {"wheels", "pip"}) {
    const fs::path dir = fs::path(root) / sub;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      struct stat st;
      if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      std::error_code rm;
      if (fs::remove(it->path(), rm)) {
        ++*files;
        *bytes += static_cast<uint64_t>(st.st_size);
      } else if (rm) {
        return absl::UnavailableError(absl::StrCat(it->path().string(), ": ", rm.message()));
      }
    }
    if (ec && ec != std::errc::no_such_file_or_directory)
      return absl::UnavailableError(absl::StrCat(dir.string(), ": ", ec.message()));
    ec.clear();
  }
  return absl::OkStatus();
}

}  // namespace abicheck
