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
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

constexpr uint64_t kBlock = uint64_t{64} << 10;       // fetches start and end on these
constexpr uint64_t kTail = uint64_t{64} << 10;        // read at open: the central directory
constexpr uint64_t kFirstAhead = uint64_t{64} << 10;  // a read's first fetch
constexpr uint64_t kMaxAhead = uint64_t{16} << 20;    // sequential reads double up to this
constexpr uint64_t kMaxCached = uint64_t{96} << 20;   // fetched bytes kept for re-reads

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

// The knobs (docs/limits.md): seconds without a byte before a transfer is abandoned, and how many
// times a failed fetch is tried again.
int EnvInt(const char* name, int fallback, int lo, int hi) {
  const char* v = std::getenv(name);
  int n = 0;
  if (v == nullptr || !absl::SimpleAtoi(v, &n)) return fallback;
  return std::clamp(n, lo, hi);
}
int ReadTimeoutSeconds() { return EnvInt("ABICHECK_HTTP_TIMEOUT", 30, 1, 3600); }
int Retries() { return EnvInt("ABICHECK_HTTP_RETRIES", 3, 0, 10); }
bool Trace() { return std::getenv("ABICHECK_HTTP_TRACE") != nullptr; }

// What one ranged GET answered.
struct Answer {
  long status = 0;  // NOLINT(google-runtime-int): libcurl's type
  std::string content_range;
  std::string body;
  FILE* sink = nullptr;  // the whole body to a file instead (a server ignoring ranges)
  uint64_t sink_bytes = 0;
  uint64_t limit = 0;  // stop a body longer than this (a lying server): 0 none
  bool over = false;
};

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* a = static_cast<Answer*>(user);
  const size_t len = size * n;
  if (a->sink != nullptr) {
    if (std::fwrite(data, 1, len, a->sink) != len) return 0;
    a->sink_bytes += len;
    return len;
  }
  if (a->limit != 0 && a->body.size() + len > a->limit) {
    a->over = true;
    return 0;  // ends the transfer: more than was asked for
  }
  a->body.append(data, len);
  return len;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* a = static_cast<Answer*>(user);
  absl::string_view line(data, size * n);
  if (absl::StartsWith(line, "HTTP/")) a->content_range.clear();  // a new response (a redirect)
  if (absl::StartsWithIgnoreCase(line, "content-range:")) {
    line.remove_prefix(std::strlen("content-range:"));
    a->content_range = std::string(absl::StripAsciiWhitespace(line));
  }
  return size * n;
}

// "bytes 100-199/1000" -> {100, 199, 1000}.
bool ParseContentRange(absl::string_view v, uint64_t* first, uint64_t* last, uint64_t* total) {
  if (!absl::ConsumePrefix(&v, "bytes ")) return false;
  const size_t dash = v.find('-'), slash = v.find('/');
  if (dash == absl::string_view::npos || slash == absl::string_view::npos || slash < dash)
    return false;
  return absl::SimpleAtoi(v.substr(0, dash), first) &&
         absl::SimpleAtoi(v.substr(dash + 1, slash - dash - 1), last) &&
         absl::SimpleAtoi(v.substr(slash + 1), total) && *first <= *last;
}

// What clones share: the fetched bytes and the counters.
struct Shared {
  std::string url, file;  // file: the URL's file name, as messages say it
  uint64_t size = 0;
  std::mutex mu;
  std::map<uint64_t, std::shared_ptr<const std::string>> cache;  // by start offset
  std::map<uint64_t, uint64_t> last_use;                         // start -> tick
  uint64_t cached = 0, tick = 0;
  std::atomic<uint64_t> fetched{0};
  std::atomic<FILE*> whole{nullptr};  // a server that ignores ranges: the archive, read once
  std::vector<std::string> notes;
  ~Shared() {
    if (FILE* f = whole.load()) std::fclose(f);
  }
};

class HttpSource : public ByteSource {
 public:
  explicit HttpSource(std::shared_ptr<Shared> shared) : s_(std::move(shared)) {}
  ~HttpSource() override {
    if (curl_ != nullptr) C().easy_cleanup(curl_);
  }

  const std::string& name() const override { return s_->url; }
  uint64_t size() const override { return s_->size; }
  uint64_t fetched() const override { return s_->fetched.load(); }
  std::vector<std::string> notes() const override {
    std::lock_guard<std::mutex> lock(s_->mu);
    return s_->notes;
  }
  absl::StatusOr<std::unique_ptr<ByteSource>> Clone() const override {
    return std::unique_ptr<ByteSource>(new HttpSource(s_));
  }

  // The size, from a ranged GET of the last bytes (kept: the central directory is there).
  absl::Status Start() {
    Answer a;
    a.limit = kTail;  // a server sending the whole file instead is stopped there
    ABICHECK_RETURN_IF_ERROR(Get(absl::StrCat("-", kTail), &a, /*retry=*/true));
    if (a.status == 200) return ReadWhole();
    uint64_t first = 0, last = 0, total = 0;
    if (a.status != 206 || !ParseContentRange(a.content_range, &first, &last, &total) ||
        last + 1 != total || a.body.size() != last - first + 1)
      return Bad(absl::StrFormat("a request for its last %d bytes was answered with HTTP %d%s",
                                 kTail, a.status,
                                 a.content_range.empty() ? "" : " " + a.content_range));
    s_->size = total;
    Keep(first, std::make_shared<const std::string>(std::move(a.body)));
    return absl::OkStatus();
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
      if (size_t copied = FromCache(at, out.subspan(done, n - done)); copied > 0) {
        done += copied;
        continue;
      }
      // Sequential reads (a member inflated front to back) fetch more each time.
      ahead_ = at == next_ ? std::min(ahead_ * 2, kMaxAhead) : kFirstAhead;
      const uint64_t start = at / kBlock * kBlock;
      uint64_t end = std::max<uint64_t>(at + (n - done), start + ahead_);
      end = std::min(s_->size, (end + kBlock - 1) / kBlock * kBlock);
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
    return absl::UnavailableError(absl::StrCat(s_->file, ": ", what, " (", s_->url, ")"));
  }

  size_t FromCache(uint64_t at, absl::Span<uint8_t> out) {
    std::lock_guard<std::mutex> lock(s_->mu);
    auto it = s_->cache.upper_bound(at);
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
      if (t > 0) std::this_thread::sleep_for(std::chrono::milliseconds(250 << (2 * (t - 1))));
      Answer a;
      a.limit = end - start;
      absl::Status st = Get(absl::StrCat(start, "-", end - 1), &a, /*retry=*/false);
      if (!st.ok()) {
        why = std::string(st.message());
        continue;
      }
      uint64_t first = 0, last = 0, total = 0;
      if (a.status == 206 && ParseContentRange(a.content_range, &first, &last, &total)) {
        if (total != s_->size)
          return absl::DataLossError(
              absl::StrCat(s_->file, ": the server now answers for another file (", total,
                           " bytes, not ", s_->size, ") (", s_->url, ")"));
        if (first == start && last + 1 == end && a.body.size() == end - start) {
          Keep(start, std::make_shared<const std::string>(std::move(a.body)));
          return absl::OkStatus();
        }
        why = absl::StrFormat("asked for bytes %d-%d, got %d bytes of %s", start, end - 1,
                              a.body.size(), a.content_range);
        continue;
      }
      if (a.status == 200) {
        why = "it answered a range request with the whole file (HTTP 200)";
        return ReadWhole();
      }
      why = a.over ? "it sent more than was asked for"
                   : absl::StrCat("HTTP ", a.status,
                                  a.status == 206 ? " without a Content-Range" : "");
      if (a.status >= 400 && a.status < 500) break;  // a retry will not mend a client error
    }
    return Bad(absl::StrCat("reading bytes ", start, "-", end - 1, " failed after ", tries,
                            tries == 1 ? " try: " : " tries: ", why));
  }

  // A server that ignores ranges: the archive, read once into a temporary file, said once.
  absl::Status ReadWhole() {
    std::lock_guard<std::mutex> once(whole_mu_);
    if (s_->whole.load() != nullptr) return absl::OkStatus();
    FILE* f = std::tmpfile();
    if (f == nullptr) return Bad("no temporary file to read it into");
    Answer a;
    a.sink = f;
    absl::Status st = Get("", &a, /*retry=*/true);
    if (!st.ok() || a.status != 200) {
      std::fclose(f);
      return st.ok() ? Bad(absl::StrCat("reading it whole was answered with HTTP ", a.status)) : st;
    }
    if (s_->size != 0 && a.sink_bytes != s_->size) {
      std::fclose(f);
      return absl::DataLossError(absl::StrCat(s_->file, ": read whole it is ", a.sink_bytes,
                                              " bytes, not ", s_->size, " (", s_->url, ")"));
    }
    std::fflush(f);
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->size = a.sink_bytes;
    s_->whole.store(f);
    s_->notes.push_back(
        absl::StrCat("the server ignores range requests (HTTP 200 for a ranged "
                     "GET): ",
                     s_->file, " was read whole, ", a.sink_bytes, " bytes"));
    return absl::OkStatus();
  }

  // One GET (`range` "" for the whole file), on this reader's connection (kept alive).
  absl::Status Get(const std::string& range, Answer* a, bool retry) {
    ABICHECK_RETURN_IF_ERROR(LoadLibCurl().status());
    const int tries = retry ? 1 + Retries() : 1;
    std::string why;
    for (int t = 0; t < tries; ++t) {
      if (t > 0) std::this_thread::sleep_for(std::chrono::milliseconds(250 << (2 * (t - 1))));
      if (curl_ == nullptr && (curl_ = C().easy_init()) == nullptr) return Bad("libcurl failed");
      const LibCurl& c = C();
      a->body.clear();
      a->content_range.clear();
      a->over = false;
      if (a->sink != nullptr) {
        std::rewind(a->sink);
        a->sink_bytes = 0;
      }
      c.easy_setopt(curl_, CURLOPT_URL, s_->url.c_str());
      c.easy_setopt(curl_, CURLOPT_FOLLOWLOCATION, 1L);
      c.easy_setopt(curl_, CURLOPT_MAXREDIRS, 10L);
      c.easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
      c.easy_setopt(curl_, CURLOPT_CONNECTTIMEOUT, static_cast<long>(ReadTimeoutSeconds()));
      c.easy_setopt(curl_, CURLOPT_LOW_SPEED_LIMIT, 1L);  // a stall: no byte for ...
      c.easy_setopt(curl_, CURLOPT_LOW_SPEED_TIME, static_cast<long>(ReadTimeoutSeconds()));
      c.easy_setopt(curl_, CURLOPT_RANGE, range.empty() ? nullptr : range.c_str());
      c.easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &OnBody);
      c.easy_setopt(curl_, CURLOPT_WRITEDATA, a);
      c.easy_setopt(curl_, CURLOPT_HEADERFUNCTION, &OnHeader);
      c.easy_setopt(curl_, CURLOPT_HEADERDATA, a);
      c.easy_setopt(curl_, CURLOPT_USERAGENT, "abicheck");
      const CURLcode rc = c.easy_perform(curl_);
      long status = 0;  // NOLINT(google-runtime-int): libcurl's type
      c.easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
      a->status = status;
      s_->fetched += a->sink != nullptr ? a->sink_bytes : a->body.size();
      if (rc == CURLE_OK) return absl::OkStatus();
      if (rc == CURLE_WRITE_ERROR && a->over) return absl::OkStatus();  // judged by the caller
      why = rc == CURLE_TOO_MANY_REDIRECTS ? "too many redirects (a redirect loop)"
            : rc == CURLE_OPERATION_TIMEDOUT
                ? absl::StrCat("no answer for ", ReadTimeoutSeconds(), " s (timed out)")
                : c.easy_strerror(rc);
      c.easy_cleanup(curl_);  // a fresh connection for the next try
      curl_ = nullptr;
      if (rc == CURLE_TOO_MANY_REDIRECTS || rc == CURLE_UNSUPPORTED_PROTOCOL ||
          rc == CURLE_URL_MALFORMAT)
        break;
    }
    return Bad(why);
  }

  std::shared_ptr<Shared> s_;
  CURL* curl_ = nullptr;
  uint64_t next_ = 0, ahead_ = kFirstAhead;
  static std::mutex whole_mu_;
};

std::mutex HttpSource::whole_mu_;

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
  shared->file = UrlFileName(url);
  auto source = std::make_unique<HttpSource>(shared);
  ABICHECK_RETURN_IF_ERROR(source->Start());
  return std::unique_ptr<ByteSource>(std::move(source));
}

}  // namespace abicheck
