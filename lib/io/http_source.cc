// OpenHttpSource: HTTP range requests through libcurl, loaded on first use (as libzip is: most
// runs read no URL, and linked it would bring libcurl's TLS stack into every start-up).
#include "lib/io/http_source.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "lib/io/deadlines.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

constexpr uint64_t kBlock = uint64_t{64} << 10;       // fetches start and end on these
constexpr uint64_t kTail = uint64_t{64} << 10;        // read at open: the central directory
constexpr uint64_t kFirstAhead = uint64_t{64} << 10;  // a read's first fetch
constexpr uint64_t kMaxAhead = uint64_t{16} << 20;    // sequential reads double up to this
constexpr uint64_t kMaxCached = uint64_t{96} << 20;   // fetched bytes kept for re-reads
// A file this small is read whole after its tail: its loader tables are most of it, and range
// reads of it fetched 104-138 % of torchvision 0.25's wheel (docs/limits.md).
constexpr uint64_t kReadWholeBelow = uint64_t{4} << 20;
// A server that answers with the whole file without saying its length is read to this, no
// further (a body that never ends must not fill the disk).
constexpr uint64_t kMaxWholeUnknown = uint64_t{8} << 30;

struct LibCurl {
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_setopt) easy_setopt = nullptr;
  decltype(&::curl_easy_perform) easy_perform = nullptr;
  decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
};

const absl::StatusOr<LibCurl>& LoadLibCurl() {
  static const absl::StatusOr<LibCurl> lib = []() -> absl::StatusOr<LibCurl> {
    void* h = ::dlopen(ABICHECK_LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      return absl::UnavailableError(absl::StrCat("reading a URL needs libcurl (",
                                                 ABICHECK_LIBCURL_SONAME,
                                                 "), which cannot be loaded: ", ::dlerror()));
    }
    LibCurl c;
    auto load = [&](auto* fn, const char* name) {
      *fn = reinterpret_cast<std::remove_reference_t<decltype(*fn)>>(::dlsym(h, name));
      return *fn != nullptr;
    };
    if (!load(&c.global_init, "curl_global_init") || !load(&c.easy_init, "curl_easy_init") ||
        !load(&c.easy_setopt, "curl_easy_setopt") || !load(&c.easy_perform, "curl_easy_perform") ||
        !load(&c.easy_getinfo, "curl_easy_getinfo") ||
        !load(&c.easy_cleanup, "curl_easy_cleanup") ||
        !load(&c.easy_strerror, "curl_easy_strerror") ||
        !load(&c.slist_append, "curl_slist_append") ||
        !load(&c.slist_free_all, "curl_slist_free_all"))
      return absl::UnavailableError(
          absl::StrCat(ABICHECK_LIBCURL_SONAME, ": a function is missing"));
    if (c.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      return absl::UnavailableError("libcurl could not be initialized");
    return c;
  }();
  return lib;
}

const LibCurl& C() { return *LoadLibCurl(); }

// The knob of docs/limits.md that is not a deadline: how many times a failed fetch is tried again.
int Retries() {
  const char* v = std::getenv("ABICHECK_HTTP_RETRIES");
  int n = 0;
  if (v == nullptr || !absl::SimpleAtoi(v, &n)) return 3;
  return std::clamp(n, 0, 10);
}
bool Trace() { return std::getenv("ABICHECK_HTTP_TRACE") != nullptr; }
void Backoff(int attempt) {  // before try `attempt` (1, 2, ...): 250 ms, 1 s, 4 s, ...
  std::this_thread::sleep_for(std::chrono::milliseconds(250 << (2 * std::min(attempt - 1, 5))));
}
// An answer a later try may mend: the server busy or failing for a moment.
bool Transient(long status) {  // NOLINT(google-runtime-int): libcurl's type
  return status == 408 || status == 429 || status >= 500;
}

// What one GET answered.
struct Answer {
  long status = 0;  // NOLINT(google-runtime-int): libcurl's type
  std::string content_range, etag, last_modified;
  std::optional<uint64_t> content_length;
  std::string body;
  FILE* sink = nullptr;  // the whole body to a file instead (a server ignoring ranges)
  uint64_t sink_bytes = 0;
  uint64_t limit = 0;  // stop a body longer than this (a lying server): 0 none
  bool over = false;
};

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* a = static_cast<Answer*>(user);
  const size_t len = size * n;
  const uint64_t have = a->sink != nullptr ? a->sink_bytes : a->body.size();
  if (a->limit != 0 && have + len > a->limit) {
    a->over = true;
    return 0;  // ends the transfer: more than was asked for, or than the file holds
  }
  if (a->sink != nullptr) {
    if (std::fwrite(data, 1, len, a->sink) != len) return 0;
    a->sink_bytes += len;
    return len;
  }
  a->body.append(data, len);
  return len;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* a = static_cast<Answer*>(user);
  absl::string_view line(data, size * n);
  if (absl::StartsWith(line, "HTTP/")) {  // a new response (a redirect): its own headers
    a->content_range.clear();
    a->etag.clear();
    a->last_modified.clear();
    a->content_length.reset();
  }
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos) return size * n;
  const std::string name = absl::AsciiStrToLower(line.substr(0, colon));
  const std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  if (name == "content-range") a->content_range = value;
  if (name == "etag") a->etag = value;
  if (name == "last-modified") a->last_modified = value;
  if (uint64_t v = 0; name == "content-length" && absl::SimpleAtoi(value, &v))
    a->content_length = v;
  return size * n;
}

// "bytes 100-199/1000" -> {100, 199, 1000}; "bytes 100-199/*" (a length the server does not
// say) -> {100, 199, nullopt}.
struct ContentRange {
  uint64_t first = 0, last = 0;
  std::optional<uint64_t> total;
};
std::optional<ContentRange> ParseContentRange(absl::string_view v) {
  if (!absl::ConsumePrefix(&v, "bytes ")) return std::nullopt;
  const size_t dash = v.find('-'), slash = v.find('/');
  if (dash == absl::string_view::npos || slash == absl::string_view::npos || slash < dash)
    return std::nullopt;
  ContentRange r;
  if (!absl::SimpleAtoi(v.substr(0, dash), &r.first) ||
      !absl::SimpleAtoi(v.substr(dash + 1, slash - dash - 1), &r.last) || r.first > r.last)
    return std::nullopt;
  if (const absl::string_view total = v.substr(slash + 1); total != "*") {
    uint64_t t = 0;
    if (!absl::SimpleAtoi(total, &t) || r.last >= t) return std::nullopt;
    r.total = t;
  }
  return r;
}

// RememberHttpCredentials's: "scheme://host:port" -> "user:password", as given (percent-encoded).
struct Credentials {
  std::mutex mu;
  std::map<std::string, std::string> by_origin;
};
Credentials& GlobalCredentials() {
  static Credentials* c = new Credentials;  // never destroyed: worker threads may ask
  return *c;
}

// "https://user:pw@host:1/x" -> {"https://host:1", "user:pw"}; no userinfo: {origin, ""}.
std::pair<std::string, std::string> OriginAndUserinfo(absl::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == absl::string_view::npos) return {"", ""};
  const size_t host_from = scheme_end + 3;
  const size_t path_from = url.find_first_of("/?#", host_from);
  absl::string_view authority =
      url.substr(host_from, path_from == absl::string_view::npos ? absl::string_view::npos
                                                                 : path_from - host_from);
  std::string userinfo;
  if (const size_t at = authority.rfind('@'); at != absl::string_view::npos) {
    userinfo = std::string(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  return {absl::StrCat(absl::AsciiStrToLower(url.substr(0, host_from)),
                       absl::AsciiStrToLower(authority)),
          userinfo};
}

// What clones share: the fetched bytes, the counters, and the version of the file read.
struct Shared {
  std::string url;      // as fetched (with the credentials it was given)
  std::string shown;    // as said: without them
  std::string file;     // the URL's file name, as messages say it
  std::string userpwd;  // RememberHttpCredentials's for the URL's origin; "" none
  uint64_t size = 0;
  // The version the first answer described: every later request asks for it and is held to it.
  std::string etag, last_modified;
  std::mutex mu;
  std::map<uint64_t, std::shared_ptr<const std::string>> cache;  // by start offset
  std::map<uint64_t, uint64_t> last_use;                         // start -> tick
  uint64_t cached = 0, tick = 0;
  std::atomic<uint64_t> fetched{0};
  std::mutex whole_mu;                // one reader reads the file whole
  std::atomic<FILE*> whole{nullptr};  // a server that ignores ranges: the archive, read once
  std::vector<std::string> notes;
  ~Shared() {
    if (FILE* f = whole.load()) std::fclose(f);
  }
};

using Clock = std::chrono::steady_clock;

class HttpSource : public ByteSource {
 public:
  explicit HttpSource(std::shared_ptr<Shared> shared) : s_(std::move(shared)) {}
  ~HttpSource() override {
    if (curl_ != nullptr) C().easy_cleanup(curl_);
  }

  const std::string& name() const override { return s_->shown; }
  uint64_t size() const override { return s_->size; }
  uint64_t fetched() const override { return s_->fetched.load(); }
  std::vector<std::string> notes() const override {
    std::lock_guard<std::mutex> lock(s_->mu);
    return s_->notes;
  }
  absl::StatusOr<std::unique_ptr<ByteSource>> Clone() const override {
    return std::unique_ptr<ByteSource>(new HttpSource(s_));
  }
  void SetDeadline(Clock::time_point deadline) override { deadline_ = deadline; }
  std::string identity() const override { return s_->etag; }

  // The size, from a ranged GET of the last bytes (kept: the central directory is there); the
  // version of the file it describes, pinned for every later request. A small file is then read
  // whole.
  absl::Status Start() {
    const int tries = 1 + Retries();
    std::string why;
    for (int t = 0; t < tries; ++t) {
      if (t > 0) Backoff(t);
      Answer a;
      a.limit = kTail;  // a server sending the whole file instead is stopped there
      const absl::Status st = Get(absl::StrCat("-", kTail), &a, RequestTimeout());
      if (!st.ok()) {
        if (absl::IsFailedPrecondition(st)) return Bad(std::string(st.message()));
        why = std::string(st.message());
        continue;
      }
      if (a.status == 200) {
        Pin(a);
        return ReadWhole("");
      }
      const std::optional<ContentRange> r = ParseContentRange(a.content_range);
      if (a.status == 206 && r && !r->total) {
        Pin(a);
        return ReadWhole(absl::StrCat(" (it answers ranges as Content-Range: ", a.content_range,
                                      ", without the file's length)"));
      }
      if (a.status == 206 && r && r->last + 1 == *r->total &&
          a.body.size() == r->last - r->first + 1) {
        Pin(a);
        s_->size = *r->total;
        Keep(r->first, std::make_shared<const std::string>(std::move(a.body)));
        if (r->first > 0 && s_->size <= kReadWholeBelow) return Fetch(0, r->first);
        return absl::OkStatus();
      }
      why = absl::StrFormat("a request for its last %d bytes was answered with HTTP %d%s", kTail,
                            a.status,
                            a.status != 206           ? ""
                            : a.content_range.empty() ? " without a Content-Range"
                                                      : " " + a.content_range);
      if (!Transient(a.status) && a.status != 206) return Bad(why);
    }
    return Bad(absl::StrCat(why, tries > 1 ? absl::StrCat(" (after ", tries, " tries)") : ""));
  }

  absl::StatusOr<size_t> ReadAt(uint64_t offset, absl::Span<uint8_t> out) override {
    if (offset >= s_->size) return 0;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(out.size(), s_->size - offset));
    size_t done = 0;
    while (done < n) {
      const uint64_t at = offset + done;
      // Read whole (a server that stopped answering ranges, maybe only now): from that copy.
      if (FILE* whole = s_->whole.load()) {
        const ssize_t got =
            ::pread(::fileno(whole), out.data() + done, n - done, static_cast<off_t>(at));
        if (got != static_cast<ssize_t>(n - done))
          return Bad("its temporary copy could not be read back");
        return n;
      }
      uint64_t next_kept = s_->size;  // where the next bytes already fetched begin
      if (size_t copied = FromCache(at, out.subspan(done, n - done), &next_kept); copied > 0) {
        done += copied;
        continue;
      }
      // Sequential reads (a member inflated front to back) fetch more each time; bytes still
      // kept are not fetched again.
      ahead_ = at == next_ ? std::min(ahead_ * 2, kMaxAhead) : kFirstAhead;
      const uint64_t start = std::max(at / kBlock * kBlock, PreviousKeptEnd(at));
      uint64_t end = std::max<uint64_t>(at + (n - done), start + ahead_);
      end = std::min({s_->size, (end + kBlock - 1) / kBlock * kBlock, next_kept});
      if (Trace()) {  // ABICHECK_HTTP_TRACE: each fetch, and the read that asked for it
        absl::FPrintF(stderr, "abicheck: fetch %s bytes %d-%d (%d) for %d+%d\n", s_->file, start,
                      end - 1, end - start, at, n - done);
      }
      ABICHECK_RETURN_IF_ERROR(Fetch(start, end));
      next_ = end;
    }
    return n;
  }

 private:
  absl::Status Bad(const std::string& what) const {
    return absl::UnavailableError(absl::StrCat(s_->file, ": ", what, " (", s_->shown, ")"));
  }
  absl::Status Changed(const std::string& how) const {
    return absl::DataLossError(
        absl::StrCat(s_->file,
                     ": the server now answers for another file: it changed while it "
                     "was read (",
                     how, "); nothing read of it is used or kept (", s_->shown, ")"));
  }

  // The first answer's ETag and Last-Modified: the version every later request is held to.
  void Pin(const Answer& a) {
    s_->etag = a.etag;
    s_->last_modified = a.last_modified;
  }
  // Whether `a` answers for the pinned version (what a server says of each answer).
  absl::Status SameVersion(const Answer& a) const {
    if (a.status == 412) {
      return Changed(
          absl::StrCat("HTTP 412 to If-Match ", s_->etag.empty() ? s_->last_modified : s_->etag));
    }
    if (!s_->etag.empty() && !a.etag.empty() && a.etag != s_->etag)
      return Changed(absl::StrCat("ETag ", s_->etag, ", then ", a.etag));
    if (!s_->last_modified.empty() && !a.last_modified.empty() &&
        a.last_modified != s_->last_modified)
      return Changed(absl::StrCat("Last-Modified ", s_->last_modified, ", then ", a.last_modified));
    return absl::OkStatus();
  }

  // Milliseconds a request started now may take: the request's deadline, or what is left of the
  // member's when that is sooner (0: already past).
  int64_t RequestTimeout() const {
    int64_t ms = int64_t{Deadlines::Get().request_seconds} * 1000;
    if (deadline_ != Clock::time_point{}) {
      const int64_t left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      ms = std::min(ms, std::max<int64_t>(left, 0));
    }
    return ms;
  }
  std::string PastDeadline() const {
    return absl::StrCat("reading one member took more than ", Deadlines::Get().member_seconds,
                        " s in all (ABICHECK_HTTP_MEMBER_TIMEOUT)");
  }

  // Copies what is kept of [at, ...) into `out`; 0 when `at` is not kept, and then where the
  // next kept bytes after it begin in *next_kept.
  size_t FromCache(uint64_t at, absl::Span<uint8_t> out, uint64_t* next_kept) {
    std::lock_guard<std::mutex> lock(s_->mu);
    auto it = s_->cache.upper_bound(at);
    if (it != s_->cache.end()) *next_kept = it->first;
    if (it == s_->cache.begin()) return 0;
    --it;
    const std::string& bytes = *it->second;
    if (at >= it->first + bytes.size()) return 0;
    const size_t from = static_cast<size_t>(at - it->first);
    const size_t n = std::min(out.size(), bytes.size() - from);
    std::memcpy(out.data(), bytes.data() + from, n);
    s_->last_use[it->first] = ++s_->tick;
    return n;
  }
  // Where the kept bytes before `at` end (0: none): a fetch starts no earlier.
  uint64_t PreviousKeptEnd(uint64_t at) {
    std::lock_guard<std::mutex> lock(s_->mu);
    auto it = s_->cache.upper_bound(at);
    if (it == s_->cache.begin()) return 0;
    --it;
    return std::min(at, it->first + it->second->size());
  }

  void Keep(uint64_t start, std::shared_ptr<const std::string> bytes) {
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->cached += bytes->size();
    if (auto old = s_->cache.find(start); old != s_->cache.end()) s_->cached -= old->second->size();
    s_->cache[start] = std::move(bytes);
    s_->last_use[start] = ++s_->tick;
    while (s_->cached > kMaxCached && s_->cache.size() > 1) {  // the least recently used go
      auto oldest =
          std::min_element(s_->last_use.begin(), s_->last_use.end(),
                           [](const auto& x, const auto& y) { return x.second < y.second; });
      s_->cached -= s_->cache[oldest->first]->size();
      s_->cache.erase(oldest->first);
      s_->last_use.erase(oldest);
    }
  }

  // [start, end) with one ranged GET, tried again on what a retry may mend.
  absl::Status Fetch(uint64_t start, uint64_t end) {
    const int tries = 1 + Retries();
    std::string why;
    for (int t = 0; t < tries; ++t) {
      if (t > 0) Backoff(t);
      const int64_t timeout = RequestTimeout();
      if (timeout == 0) return Bad(PastDeadline());
      Answer a;
      a.limit = end - start;
      absl::Status st = Get(absl::StrCat(start, "-", end - 1), &a, timeout);
      if (!st.ok()) {
        if (absl::IsFailedPrecondition(st)) return Bad(std::string(st.message()));
        why = std::string(st.message());
        continue;
      }
      ABICHECK_RETURN_IF_ERROR(SameVersion(a));
      const std::optional<ContentRange> r = ParseContentRange(a.content_range);
      if (a.status == 206 && r) {
        if (r->total && *r->total != s_->size)
          return Changed(absl::StrCat(s_->size, " bytes, then ", *r->total));
        if (r->first == start && r->last + 1 == end && a.body.size() == end - start) {
          Keep(start, std::make_shared<const std::string>(std::move(a.body)));
          return absl::OkStatus();
        }
        why = absl::StrFormat("asked for bytes %d-%d, got %d bytes of %s", start, end - 1,
                              a.body.size(), a.content_range);
        continue;
      }
      if (a.status == 200) return ReadWhole("");
      why = a.over ? "it sent more than was asked for"
                   : absl::StrCat("HTTP ", a.status,
                                  a.status != 206           ? ""
                                  : a.content_range.empty() ? " without a Content-Range"
                                                            : " " + a.content_range);
      if (!Transient(a.status) && a.status != 206) break;  // a retry will not mend it
    }
    return Bad(absl::StrCat("reading bytes ", start, "-", end - 1, " failed after ", tries,
                            tries == 1 ? " try: " : " tries: ", why));
  }

  // A server that ignores ranges: the archive, read once into a temporary file, said once
  // (`why`: what the note adds). Never more than the size known, or announced, or
  // kMaxWholeUnknown; within the member deadline.
  absl::Status ReadWhole(const std::string& why) {
    std::lock_guard<std::mutex> once(s_->whole_mu);
    if (s_->whole.load() != nullptr) return absl::OkStatus();
    const int tries = 1 + Retries();
    std::string failed;
    for (int t = 0; t < tries; ++t) {
      if (t > 0) Backoff(t);
      FILE* f = std::tmpfile();
      if (f == nullptr) return Bad("no temporary file to read it into");
      struct Closer {
        FILE* f;
        ~Closer() {
          if (f != nullptr) std::fclose(f);
        }
      } closer{f};
      Answer a;
      a.sink = f;
      a.limit = s_->size != 0 ? s_->size : kMaxWholeUnknown;
      const absl::Status st = Get("", &a, int64_t{Deadlines::Get().member_seconds} * 1000);
      if (!st.ok()) {
        if (absl::IsFailedPrecondition(st)) return Bad(std::string(st.message()));
        failed = std::string(st.message());
        continue;
      }
      ABICHECK_RETURN_IF_ERROR(SameVersion(a));
      if (a.over) {
        return absl::DataLossError(absl::StrCat(
            s_->file, ": read whole, the server sent more than ",
            s_->size != 0 ? absl::StrCat("the file's ", s_->size, " bytes")
                          : absl::StrCat(kMaxWholeUnknown, " bytes without saying its length"),
            " (", s_->shown, ")"));
      }
      if (a.status != 200) {
        failed = absl::StrCat("reading it whole was answered with HTTP ", a.status);
        if (Transient(a.status)) continue;
        return Bad(failed);
      }
      if ((s_->size != 0 && a.sink_bytes != s_->size) ||
          (a.content_length && *a.content_length != a.sink_bytes)) {
        return absl::DataLossError(
            absl::StrCat(s_->file, ": read whole it is ", a.sink_bytes, " bytes, not ",
                         s_->size != 0 ? s_->size : *a.content_length, " (", s_->shown, ")"));
      }
      std::fflush(f);
      closer.f = nullptr;
      std::lock_guard<std::mutex> lock(s_->mu);
      s_->size = a.sink_bytes;
      s_->whole.store(f);
      s_->notes.push_back(
          absl::StrCat("the server ignores range requests (HTTP 200 for a ranged GET", why,
                       "): ", s_->file, " was read whole, ", a.sink_bytes, " bytes"));
      return absl::OkStatus();
    }
    return Bad(absl::StrCat(failed, " (after ", tries, tries == 1 ? " try)" : " tries)"));
  }

  // One GET (`range` "" for the whole file) on this reader's connection (kept alive), ending
  // within `timeout_ms`. Not OK: the transfer failed (kFailedPrecondition: no retry mends it).
  absl::Status Get(const std::string& range, Answer* a, int64_t timeout_ms) {
    ABICHECK_RETURN_IF_ERROR(LoadLibCurl().status());
    if (curl_ == nullptr && (curl_ = C().easy_init()) == nullptr) return Bad("libcurl failed");
    const LibCurl& c = C();
    const Deadlines& d = Deadlines::Get();
    c.easy_setopt(curl_, CURLOPT_URL, s_->url.c_str());
    c.easy_setopt(curl_, CURLOPT_FOLLOWLOCATION, 1L);
    c.easy_setopt(curl_, CURLOPT_MAXREDIRS, 10L);
    c.easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    c.easy_setopt(curl_, CURLOPT_CONNECTTIMEOUT, static_cast<long>(d.connect_seconds));
    c.easy_setopt(curl_, CURLOPT_LOW_SPEED_LIMIT, 1L);  // a stall: no byte for ...
    c.easy_setopt(curl_, CURLOPT_LOW_SPEED_TIME, static_cast<long>(d.idle_seconds));
    c.easy_setopt(curl_, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<int64_t>(timeout_ms, 1)));
    c.easy_setopt(curl_, CURLOPT_RANGE, range.empty() ? nullptr : range.c_str());
    c.easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &OnBody);
    c.easy_setopt(curl_, CURLOPT_WRITEDATA, a);
    c.easy_setopt(curl_, CURLOPT_HEADERFUNCTION, &OnHeader);
    c.easy_setopt(curl_, CURLOPT_HEADERDATA, a);
    c.easy_setopt(curl_, CURLOPT_USERAGENT, "abicheck");
    // pip's credentials for this origin (never printed); else ~/.netrc's, as pip reads it.
    c.easy_setopt(curl_, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
    c.easy_setopt(curl_, CURLOPT_USERPWD, s_->userpwd.empty() ? nullptr : s_->userpwd.c_str());
    // Every request after the first asks for the version the first described.
    struct curl_slist* headers = nullptr;
    std::string pin;
    if (!s_->etag.empty() && !absl::StartsWith(s_->etag, "W/")) {
      pin = absl::StrCat("If-Match: ", s_->etag);
    } else if (!s_->last_modified.empty()) {
      pin = absl::StrCat("If-Unmodified-Since: ", s_->last_modified);
    }
    if (!pin.empty()) headers = c.slist_append(headers, pin.c_str());
    c.easy_setopt(curl_, CURLOPT_HTTPHEADER, headers);
    const Clock::time_point began = Clock::now();
    const CURLcode rc = c.easy_perform(curl_);
    c.easy_setopt(curl_, CURLOPT_HTTPHEADER, nullptr);
    if (headers != nullptr) c.slist_free_all(headers);
    long status = 0;  // NOLINT(google-runtime-int): libcurl's type
    c.easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    a->status = status;
    s_->fetched += a->sink != nullptr ? a->sink_bytes : a->body.size();
    if (rc == CURLE_OK) return absl::OkStatus();
    if (rc == CURLE_WRITE_ERROR && a->over) return absl::OkStatus();  // judged by the caller
    c.easy_cleanup(curl_);  // a fresh connection for the next try
    curl_ = nullptr;
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      const int64_t took =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count();
      if (took + 50 >= timeout_ms) {
        return absl::UnavailableError(
            deadline_ != Clock::time_point{} && Clock::now() >= deadline_
                ? PastDeadline()
                : absl::StrFormat("a request took more than %.3g s in all (timed out; "
                                  "ABICHECK_HTTP_REQUEST_TIMEOUT)",
                                  static_cast<double>(timeout_ms) / 1000.0));
      }
      return absl::UnavailableError(
          absl::StrCat("no byte for ", d.idle_seconds, " s (timed out; ABICHECK_HTTP_TIMEOUT)"));
    }
    if (rc == CURLE_TOO_MANY_REDIRECTS)
      return absl::FailedPreconditionError("too many redirects (a redirect loop)");
    if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT)
      return absl::FailedPreconditionError(c.easy_strerror(rc));
    return absl::UnavailableError(c.easy_strerror(rc));
  }

  std::shared_ptr<Shared> s_;
  CURL* curl_ = nullptr;
  uint64_t next_ = 0, ahead_ = kFirstAhead;
  Clock::time_point deadline_{};  // this reader's member's (SetDeadline); none yet
};

}  // namespace

bool IsUrl(absl::string_view path) {
  return absl::StartsWith(path, "http://") || absl::StartsWith(path, "https://");
}

std::string UrlFileName(absl::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const size_t slash = url.rfind('/');
  return std::string(slash == absl::string_view::npos ? url : url.substr(slash + 1));
}

absl::StatusOr<std::unique_ptr<ByteSource>> OpenHttpSource(const std::string& url) {
  auto shared = std::make_shared<Shared>();
  shared->url = url;
  shared->shown = WithoutCredentials(url);
  shared->file = UrlFileName(shared->shown);
  if (const auto [origin, userinfo] = OriginAndUserinfo(url); userinfo.empty()) {
    Credentials& c = GlobalCredentials();
    std::lock_guard<std::mutex> lock(c.mu);
    if (auto it = c.by_origin.find(origin); it != c.by_origin.end()) shared->userpwd = it->second;
  }
  auto source = std::make_unique<HttpSource>(shared);
  ABICHECK_RETURN_IF_ERROR(source->Start());
  return std::unique_ptr<ByteSource>(std::move(source));
}

void RememberHttpCredentials(absl::string_view url) {
  const auto [origin, userinfo] = OriginAndUserinfo(url);
  if (origin.empty() || userinfo.empty()) return;
  Credentials& c = GlobalCredentials();
  std::lock_guard<std::mutex> lock(c.mu);
  c.by_origin[origin] = userinfo;
}

std::string WithoutCredentials(absl::string_view text) {
  std::string out;
  size_t from = 0;
  for (size_t scheme = text.find("://"); scheme != absl::string_view::npos;
       scheme = text.find("://", from)) {
    const size_t host_from = scheme + 3;
    const size_t end = std::min(text.find_first_of("/?# \t\n\"'<>", host_from), text.size());
    const size_t at = text.substr(host_from, end - host_from).rfind('@');
    absl::StrAppend(&out, text.substr(from, host_from - from));
    from = at == absl::string_view::npos ? host_from : host_from + at + 1;
  }
  absl::StrAppend(&out, text.substr(from));
  return out;
}

}  // namespace abicheck
