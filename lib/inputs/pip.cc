// ResolvePipInput: pip run as a subprocess (posix_spawnp, no shell), its report read back.
#include "lib/inputs/pip.h"

#include <fcntl.h>
#include <gnu/libc-version.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/inputs/pip_finder.h"  // generated: kFinderScript
#include "lib/inputs/python_env.h"
#include "lib/inputs/requirements.h"
#include "lib/inputs/wheel_cache.h"
#include "lib/io/byte_source.h"
#include "lib/io/deadlines.h"
#include "lib/io/http_source.h"
#include "lib/io/mapped_file.h"
#include "lib/io/output_file.h"
#include "lib/util/status_macros.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace abicheck {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxReleases = 16;

// Where scratch directories go: $TMPDIR when it is a directory one can write in, else /tmp — as
// Python's tempfile, and so pip, fall back (a TMPDIR missing or naming a file is no crash).
std::string TemporaryRoot() {
  const char* t = std::getenv("TMPDIR");
  struct stat st;
  if (t != nullptr && *t != '\0' && ::stat(t, &st) == 0 && S_ISDIR(st.st_mode) &&
      ::access(t, W_OK | X_OK) == 0)
    return t;
  return "/tmp";
}

// A scratch directory, removed with everything in it.
struct Scratch {
  std::string dir;
  Scratch() {
    std::string t = TemporaryRoot() + "/abicheck-pip-XXXXXX";
    if (::mkdtemp(t.data()) != nullptr) dir = t;
  }
  ~Scratch() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

struct Ran {
  int status = -1;  // the exit status; -1 when it could not be run, -2 when it was stopped
  std::string out, err;
};
constexpr int kStopped = -2;

// `argv` with stdout and stderr into files of `scratch`, then read back. pip gets
// Deadlines::pip_seconds: past them it is killed, with whatever it started (its process group).
Ran Run(const std::vector<std::string>& argv, const Scratch& scratch) {
  Ran r;
  const std::string out = scratch.dir + "/stdout", err = scratch.dir + "/stderr";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    r.err = std::strerror(rc);
    return r;
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(Deadlines::Get().pip_seconds);
  int wstatus = 0;
  auto pause = std::chrono::milliseconds(2);
  while (true) {
    const pid_t got = ::waitpid(pid, &wstatus, WNOHANG);
    if (got == pid || (got < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
      }
      r.status = kStopped;
      return r;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
  r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  r.out = ReadSmallTextFile(out).value_or("");
  r.err = ReadSmallTextFile(err).value_or("");
  return r;
}

// What pip said when it could not reach an index (its retries' warnings name the connection
// error; its last line only says nothing matched): that line, without credentials; "" for none.
std::string ConnectionProblem(const std::string& err) {
  for (absl::string_view line : absl::StrSplit(err, '\n', absl::SkipWhitespace())) {
    for (const char* sign : {"NewConnectionError", "Failed to establish a new connection",
                             "ConnectTimeoutError", "ProxyError", "SSLError",
                             "Name or service not known", "Temporary failure in name resolution",
                             "Connection refused", "Max retries exceeded", "connection error"}) {
      if (absl::StrContains(line, sign)) {
        return WithoutCredentials(absl::StripAsciiWhitespace(line));
      }
    }
  }
  return "";
}

// pip's own last error line ("ERROR: No matching distribution found for torch==9.9").
std::string LastErrorLine(const std::string& err) {
  std::vector<absl::string_view> lines = absl::StrSplit(err, '\n', absl::SkipWhitespace());
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (absl::StartsWith(*it, "ERROR:")) return std::string(absl::StripAsciiWhitespace(*it));
  }
  return lines.empty() ? "no message" : std::string(absl::StripAsciiWhitespace(lines.back()));
}

// The target's tags, as pip takes them: every manylinux the target's glibc (this machine's) can
// load, newest first, then plain linux — pip does not widen a --platform it is given.
std::vector<std::string> TargetArgs(const PipTarget& t) {
  if (t.python_version.empty()) return {};
  // --ignore-requires-python: pip (23.2) still checks Requires-Python against its own
  // interpreter under --dry-run --target, whatever --python-version says ("networkx requires a
  // different Python: 3.11.7 not in '>=3.12'" for a cp312 torch); the tags of the target's
  // Python pick the wheels with shared objects, and a pure-Python one loads nothing.
  std::vector<std::string> args = {"--python-version", t.python_version,
                                   "--only-binary=:all:", "--ignore-requires-python"};
  const std::string m = t.machine.empty() ? "x86_64" : t.machine;
  int minor = 28;
  std::vector<absl::string_view> v = absl::StrSplit(gnu_get_libc_version(), '.');
  if (v.size() >= 2) (void)absl::SimpleAtoi(v[1], &minor);
  for (int g = std::max(minor, 17); g >= 17; --g) {
    args.insert(args.end(), {"--platform", absl::StrCat("manylinux_2_", g, "_", m)});
  }
  for (const char* legacy : {"manylinux2014", "manylinux2010", "manylinux1", "linux"}) {
    args.insert(args.end(), {"--platform", absl::StrCat(legacy, "_", m)});
  }
  return args;
}

// What pip install is told of the target and the index, the finder and the report alike: the
// target's tags, wheels only, and the index options given.
std::vector<std::string> InstallOptions(const PipTarget& t) {
  std::vector<std::string> args = TargetArgs(t);
  if (t.python_version.empty()) args.push_back("--only-binary=:all:");
  args.insert(args.end(), t.index_args.begin(), t.index_args.end());
  return args;
}

std::string Python(const PipTarget& t) {
  if (!t.python.empty()) return t.python;
  const char* env = std::getenv("ABICHECK_PIP_PYTHON");
  return env != nullptr && *env != '\0' ? env : "python3";
}

absl::Status Stopped(const std::string& req) {
  return absl::UnavailableError(
      absl::StrCat("pip:", req, ": pip did not finish in ", Deadlines::Get().pip_seconds,
                   " s and was stopped (ABICHECK_PIP_TIMEOUT sets the seconds)"));
}

absl::Status PipFailed(const std::string& req, const Ran& r) {
  if (r.status == kStopped) return Stopped(req);
  if (std::string down = ConnectionProblem(r.err); !down.empty()) {
    return absl::UnavailableError(
        absl::StrCat("pip:", req, ": pip could not reach the index: ", down));
  }
  if (r.status < 0) {
    return absl::UnavailableError(absl::StrCat("pip:", req, ": pip could not be run (", r.err,
                                               "); set ABICHECK_PIP_PYTHON to a Python with pip"));
  }
  const std::string last = LastErrorLine(r.err);
  if (absl::StrContains(r.err, "No module named pip")) {
    return absl::UnavailableError(
        absl::StrCat("pip:", req, ": ", last, " (set ABICHECK_PIP_PYTHON to a Python with pip)"));
  }
  return absl::NotFoundError(absl::StrCat("pip:", req, ": pip resolves nothing: ", last));
}

// What pip resolved, kept (issue 33): a release's files on an index do not change, so
// `pip:torch==2.10.0` and the 28 pins of a torch build are resolved once, not by 28 runs of pip
// (a second each) every time. What an unpinned requirement or a range resolves to changes with
// each release: kept a day (kFreshFor), used at any age under --offline. Keyed by all that decides
// pip's answer — the requirement, the interpreter, the index options, the target's Python,
// machine and glibc — and kept only for a URL with its sha256 (a --find-links directory's files
// may change). In $XDG_CACHE_HOME/abicheck/pip (default ~/.cache/abicheck/pip), one file per
// question written whole (rename); ABICHECK_NO_CACHE=1 reads and writes none.
constexpr int64_t kFreshFor = int64_t{24} * 3600;

// The files pip reads its configuration from (pip's configuration.py, get_configuration_files):
// the global ones, the user's, the interpreter's prefix's, and PIP_CONFIG_FILE's.
std::vector<std::string> PipConfigFiles(const std::string& python) {
  std::vector<std::string> files;
  const char* xdg_dirs = std::getenv("XDG_CONFIG_DIRS");
  for (absl::string_view dir :
       absl::StrSplit(xdg_dirs != nullptr && *xdg_dirs != '\0' ? xdg_dirs : "/etc/xdg", ':',
                      absl::SkipEmpty()))
    files.push_back(absl::StrCat(dir, "/pip/pip.conf"));
  files.emplace_back("/etc/pip.conf");
  if (const char* home = std::getenv("HOME"); home != nullptr) {
    files.push_back(absl::StrCat(home, "/.pip/pip.conf"));
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    files.push_back(xdg != nullptr && *xdg != '\0' ? absl::StrCat(xdg, "/pip/pip.conf")
                                                   : absl::StrCat(home, "/.config/pip/pip.conf"));
  }
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv != nullptr && *venv != '\0')
    files.push_back(absl::StrCat(venv, "/pip.conf"));
  if (absl::StrContains(python, "/"))  // PREFIX/bin/python: PREFIX/pip.conf
    files.push_back((fs::path(python).parent_path().parent_path() / "pip.conf").string());
  if (const char* f = std::getenv("PIP_CONFIG_FILE"); f != nullptr && *f != '\0')
    files.emplace_back(f);
  return files;
}

// Everything of pip's own configuration that may decide what it resolves: its PIP_* variables
// and its configuration files, as text (credentials in it are for RememberPipCredentials, and
// are removed before it is written anywhere).
std::string ReadPipConfiguration(const std::string& python) {
  std::vector<std::string> lines;
  for (char** e = environ; *e != nullptr; ++e) {
    if (absl::StartsWith(*e, "PIP_")) lines.emplace_back(*e);
  }
  std::sort(lines.begin(), lines.end());
  for (const std::string& f : PipConfigFiles(python)) {
    if (std::optional<std::string> text = ReadSmallTextFile(f)) {
      lines.push_back(absl::StrCat("[", f, "]\n", *text));
    }
  }
  return absl::StrJoin(lines, "\n");
}

// ... read once a process for each interpreter: every pin's resolution key is made of it (a
// torch build's 28), and neither the environment nor the files change while abicheck runs.
std::string PipConfiguration(const std::string& python) {
  static std::mutex mu;
  static auto* read = new absl::flat_hash_map<std::string, std::string>;  // never destroyed
  std::lock_guard<std::mutex> lock(mu);
  auto [it, fresh] = read->try_emplace(python);
  if (fresh) it->second = ReadPipConfiguration(python);
  return it->second;
}

// The credentials in the index URLs pip is given (options, PIP_* variables, configuration
// files), remembered for the range reads of the wheels it resolves to (RememberHttpCredentials):
// pip's view of them, never printed or written.
void RememberPipCredentials(const PipTarget& t, const std::string& configuration) {
  auto each_url = [](absl::string_view text) {
    for (absl::string_view token : absl::StrSplit(text, absl::ByAnyChar(" \t\n=,\"'"))) {
      if (absl::StrContains(token, "://") && absl::StrContains(token, "@"))
        RememberHttpCredentials(token);
    }
  };
  for (const std::string& a : t.index_args) each_url(a);
  each_url(configuration);
}

class ResolutionCache {
 public:
  ResolutionCache(const std::string& kind, const std::string& what, const PipTarget& t)
      : offline_(t.offline) {
    const std::string root = CacheRoot();
    if (root.empty()) return;
    const size_t eq = what.find("==");
    exact_ = kind == "wheel" && eq != std::string::npos &&
             what.find_first_of(",*;<>!~", eq) == std::string::npos;
    // A --find-links directory's files may change at any time: what a range or an unpinned
    // requirement resolves to beside one is not kept (what a pin resolves to, when a URL, is).
    for (size_t i = 0; !exact_ && i + 1 < t.index_args.size(); ++i) {
      if (t.index_args[i] == "--find-links" && !IsUrl(t.index_args[i + 1])) return;
    }
    // pip's own configuration too (an exact pin from a cu126 index is not the cu128 index's
    // wheel); credentials never: the key is stored.
    const std::string configuration = PipConfiguration(Python(t));
    key_ = WithoutCredentials(
        absl::StrJoin({kind, what, Python(t), absl::StrJoin(t.index_args, " "), t.python_version,
                       t.machine, std::string(gnu_get_libc_version()), configuration},
                      "\n"));
    uint64_t h = 14695981039346656037u;  // FNV-1a: a file name, the key itself is compared
    for (unsigned char c : key_) h = (h ^ c) * 1099511628211u;
    dir_ = root + "/pip";
    path_ = absl::StrCat(dir_, "/", absl::Hex(h, absl::kZeroPad16), ".json");
  }
  // The answer kept, when there is one fresh enough.
  std::optional<nlohmann::json> Get() const {
    if (path_.empty()) return std::nullopt;
    std::optional<std::string> text = ReadWholeFile(path_, 1 << 20, /*follow_links=*/false);
    if (!text) return std::nullopt;
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || j.value("key", "") != key_) return std::nullopt;
    const int64_t at =
        j.contains("time") && j["time"].is_number_integer() ? j["time"].get<int64_t>() : 0;
    if (!exact_ && !offline_ && std::time(nullptr) - at > kFreshFor) return std::nullopt;
    return j;
  }
  void Put(nlohmann::json j) const {
    if (path_.empty() || !PrivateDirectory(dir_)) return;
    j["key"] = key_;
    j["time"] = static_cast<int64_t>(std::time(nullptr));
    // Private, never through a link; a cache not written is not an error.
    (void)WritePrivateFileAtomically(path_, j.dump());
  }
  bool offline() const { return offline_; }

 private:
  bool offline_ = false, exact_ = false;
  std::string key_, dir_, path_;
};

absl::Status NotCached(const std::string& what) {
  return absl::UnavailableError(absl::StrCat("pip:", what, ": not in abicheck's cache (",
                                             CacheRoot().empty() ? "none" : CacheRoot(),
                                             "), and --offline runs no pip"));
}

// The releases of `name` the index has, by `pip index versions`.
absl::StatusOr<std::vector<std::string>> ReleasesByPip(const std::string& req,
                                                       const std::string& name, const PipTarget& t,
                                                       const Scratch& s) {
  std::vector<std::string> argv = {Python(t), "-m",       "pip", "--disable-pip-version-check",
                                   "index",   "versions", name};
  for (const std::string& a : TargetArgs(t)) argv.push_back(a);
  for (const std::string& a : t.index_args) argv.push_back(a);
  const Ran r = Run(argv, s);
  if (r.status != 0) return PipFailed(req, r);
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    if (!absl::ConsumePrefix(&line, "Available versions:")) continue;
    std::vector<std::string> out;
    for (absl::string_view v : absl::StrSplit(line, ',', absl::SkipWhitespace()))
      out.emplace_back(absl::StripAsciiWhitespace(v));
    return out;
  }
  return absl::NotFoundError(absl::StrCat("pip:", req, ": pip lists no release of ", name));
}

// ... or as kept (a day; any age under --offline).
absl::StatusOr<std::vector<std::string>> Releases(const std::string& req, const std::string& name,
                                                  const PipTarget& t, const Scratch& s) {
  RememberPipCredentials(t, PipConfiguration(Python(t)));
  const ResolutionCache cache("releases", name, t);
  if (std::optional<nlohmann::json> j = cache.Get();
      j && j->contains("releases") && (*j)["releases"].is_array()) {
    std::vector<std::string> out;
    for (const nlohmann::json& v : (*j)["releases"]) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
    if (!out.empty()) return out;
  }
  if (cache.offline()) return NotCached(req);
  ABICHECK_ASSIGN_OR_RETURN(std::vector<std::string> out, ReleasesByPip(req, name, t, s));
  cache.Put({{"requirement", name}, {"releases", out}});
  return out;
}

absl::StatusOr<PipWheel> LocateWithPip(const std::string& exact, const PipTarget& t,
                                       const Scratch& s);

// The wheels pip's own finder gives for `reqs`, in their order, from one run of pip (issue 33):
// lib/inputs/pip_finder.py, the install command's PackageFinder, built from the same options and
// pip's configuration. `pip install --dry-run --report` prepares each wheel it chooses, and an
// index that does not serve a wheel's metadata apart (PEP 658) has it download the whole wheel to
// report its URL: 550 MB and 4-7 s for a torch build here, a run of pip per pin. nullopt for one
// it gives no URL with a sha256 for, and for all when the script fails (pip's internals are not
// an API): those are asked of `pip install --dry-run --report`, one by one.
std::vector<std::optional<absl::StatusOr<PipWheel>>> FindWithPip(
    const std::vector<std::string>& reqs, const PipTarget& t, const Scratch& s) {
  std::vector<std::optional<absl::StatusOr<PipWheel>>> out(reqs.size());
  std::vector<std::string> argv = {Python(t), "-c", kFinderScript};
  for (const std::string& a : InstallOptions(t)) argv.push_back(a);
  argv.push_back("--");
  argv.insert(argv.end(), reqs.begin(), reqs.end());
  const Ran r = Run(argv, s);
  if (r.status == kStopped) {  // a pip that hangs here hangs for pip install too
    for (size_t i = 0; i < reqs.size(); ++i) out[i] = Stopped(reqs[i]);
    return out;
  }
  if (r.status != 0) return out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("wheels") || !j["wheels"].is_array() ||
      j["wheels"].size() != reqs.size())
    return out;
  const std::string down = ConnectionProblem(r.err);
  for (size_t i = 0; i < reqs.size(); ++i) {
    const nlohmann::json& item = j["wheels"][i];
    if (!item.is_object() || item.value("requirement", "") != reqs[i])
      return std::vector<std::optional<absl::StatusOr<PipWheel>>>(reqs.size());
    PipWheel w;
    w.requirement = reqs[i];
    // The index's credentials are remembered for the range reads (RememberPipCredentials), and
    // never kept or said with the URL.
    w.location = WithoutCredentials(item.value("url", ""));
    w.sha256 = item.value("sha256", "");
    if (absl::StartsWith(w.location, "file://")) w.location = w.location.substr(7);
    // Without a sha256 in the index's page (a --find-links page may give none), pip install
    // --report, which hashes the file, answers instead.
    if (!w.location.empty() && !w.sha256.empty()) {
      out[i] = std::move(w);
      continue;
    }
    if (!item.contains("error")) continue;
    // Nothing matched: because an index could not be reached, or because the release has no
    // wheel for the target (the files it has, said).
    std::vector<std::string> files;
    if (item.contains("files") && item["files"].is_array()) {
      for (const nlohmann::json& f : item["files"]) {
        if (f.is_string()) files.push_back(f.get<std::string>());
      }
    }
    if (!down.empty()) {
      out[i] = absl::UnavailableError(
          absl::StrCat("pip:", reqs[i], ": pip could not reach the index: ", down));
    } else if (!files.empty()) {
      out[i] = absl::NotFoundError(
          absl::StrCat("pip:", reqs[i], ": no wheel for this platform and Python (",
                       t.python_version.empty() ? "pip's interpreter's"
                                                : absl::StrCat("Python ", t.python_version),
                       ", ", t.machine.empty() ? "x86_64" : t.machine, "); the index has ",
                       absl::StrJoin(files, ", ")));
    }
  }
  return out;
}

// Requirements to their wheels, as kept or by pip: those not kept by one run of pip's finder,
// any it gives nothing for by `pip install --dry-run --report` each.
std::vector<absl::StatusOr<PipWheel>> Locate(const std::vector<std::string>& reqs,
                                             const PipTarget& t, const Scratch& s) {
  std::vector<absl::StatusOr<PipWheel>> out(reqs.size(), absl::UnknownError("not located"));
  RememberPipCredentials(t, PipConfiguration(Python(t)));
  std::vector<size_t> missing;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const ResolutionCache cache("wheel", reqs[i], t);
    PipWheel w;
    if (std::optional<nlohmann::json> j = cache.Get()) {
      w.requirement = j->value("requirement", "");
      w.location = j->value("location", "");
      w.sha256 = j->value("sha256", "");
    }
    if (!w.location.empty() && !w.sha256.empty()) {
      out[i] = std::move(w);
    } else if (cache.offline()) {
      out[i] = NotCached(reqs[i]);
    } else {
      missing.push_back(i);
    }
  }
  if (!missing.empty()) {
    std::vector<std::string> asked;
    asked.reserve(missing.size());
    for (size_t i : missing) asked.push_back(reqs[i]);
    std::vector<std::optional<absl::StatusOr<PipWheel>>> found = FindWithPip(asked, t, s);
    for (size_t k = 0; k < missing.size(); ++k) {
      const size_t i = missing[k];
      absl::StatusOr<PipWheel> w = found[k] ? *std::move(found[k]) : LocateWithPip(reqs[i], t, s);
      if (w.ok() && !w->sha256.empty() && IsUrl(w->location)) {
        ResolutionCache("wheel", reqs[i], t)
            .Put({{"requirement", w->requirement},
                  {"location", w->location},
                  {"sha256", w->sha256}});
      }
      out[i] = std::move(w);
    }
  }
  // The archive's digest names what was read of it in the wheel cache.
  for (const absl::StatusOr<PipWheel>& w : out) {
    if (w.ok() && IsUrl(w->location)) RememberDigest(w->location, w->sha256);
  }
  return out;
}

// pip install --dry-run --report for one exact pin: the wheel it would take.
absl::StatusOr<PipWheel> LocateWithPip(const std::string& exact, const PipTarget& t,
                                       const Scratch& s) {
  const std::string report = s.dir + "/report.json";
  std::vector<std::string> argv = {Python(t),
                                   "-m",
                                   "pip",
                                   "--disable-pip-version-check",
                                   "install",
                                   "--dry-run",
                                   "--no-deps",
                                   "--ignore-installed",
                                   "--quiet",
                                   "--target",
                                   s.dir + "/target",
                                   "--report",
                                   report};
  for (const std::string& a : InstallOptions(t)) argv.push_back(a);
  argv.push_back(exact);
  std::error_code ec;
  fs::remove(report, ec);  // one scratch serves each release of a range: no earlier pin's report
  const Ran r = Run(argv, s);
  // pip writes the report only once it has resolved (a whole JSON document naming the wheel), so
  // a report that parses is pip's answer even when the command's status is not 0: a wrapper
  // between us and pip can fail after it (pyenv's shim runs `pyenv rehash` after every
  // `pip install`, and two at once fail on its lock: "pyenv: cannot rehash").
  const std::string text = ReadSmallTextFile(report).value_or("");
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("install") || !j["install"].is_array() ||
      j["install"].empty() || !j["install"][0].is_object()) {
    if (r.status != 0) return PipFailed(exact, r);
    return absl::NotFoundError(absl::StrCat("pip:", exact, ": pip's report names no wheel"));
  }
  const nlohmann::json& item = j["install"][0];
  PipWheel w;
  w.requirement = exact;
  const nlohmann::json& info = item.value("download_info", nlohmann::json::object());
  w.location = WithoutCredentials(info.value("url", ""));
  const nlohmann::json& archive = info.value("archive_info", nlohmann::json::object());
  if (archive.contains("hashes") && archive["hashes"].is_object())
    w.sha256 = archive["hashes"].value("sha256", "");
  const std::string hash_text = archive.value("hash", "");
  absl::string_view hash = hash_text;
  if (w.sha256.empty() && absl::ConsumePrefix(&hash, "sha256=")) w.sha256 = std::string(hash);
  if (absl::StartsWith(w.location, "file://")) w.location = w.location.substr(7);  // a local wheel
  if (w.location.empty())
    return absl::NotFoundError(absl::StrCat("pip:", exact, ": pip's report gives no URL"));
  return w;
}

}  // namespace

bool IsPipInput(absl::string_view input) { return absl::StartsWith(input, "pip:"); }

std::vector<absl::StatusOr<PipWheel>> LocateRequirements(const std::vector<std::string>& reqs,
                                                         const PipTarget& target) {
  Scratch s;
  if (s.dir.empty()) {
    std::vector<absl::StatusOr<PipWheel>> out;
    out.reserve(reqs.size());
    for (const std::string& r : reqs)
      out.push_back(absl::UnavailableError(absl::StrCat(r, ": no temporary directory")));
    return out;
  }
  return Locate(reqs, target, s);
}

absl::StatusOr<std::vector<PipWheel>> ResolvePipInput(absl::string_view input,
                                                      const PipTarget& target,
                                                      std::vector<std::string>* notes) {
  std::string text(input);
  absl::ConsumePrefix(&input, "pip:");
  const std::string req_text(input);
  absl::StatusOr<Requirement> req = ParseRequirement(req_text);
  if (!req.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(text, ": ", req.status().message()));
  }
  Scratch s;
  if (s.dir.empty()) return absl::UnavailableError(absl::StrCat(text, ": no temporary directory"));
  std::vector<std::string> exact;
  absl::string_view spec = req->specifier;
  if (absl::ConsumePrefix(&spec, "==") && !absl::StrContains(spec, ",") &&
      !absl::StrContains(spec, "*")) {
    exact.push_back(absl::StrCat(req->name, "==", spec));
  } else {
    ABICHECK_ASSIGN_OR_RETURN(std::vector<std::string> releases,
                              Releases(req_text, req->name, target, s));
    std::vector<std::string> matching;
    for (const std::string& v : releases) {
      absl::StatusOr<bool> ok = VersionSatisfies(v, req->specifier);
      if (req->specifier.empty() || (ok.ok() && *ok)) matching.push_back(v);
    }
    std::sort(matching.begin(), matching.end(),
              [](const std::string& a, const std::string& b) { return CompareVersions(a, b) > 0; });
    if (matching.empty()) {
      return absl::NotFoundError(absl::StrCat(text, ": no release matches (the index has ",
                                              absl::StrJoin(releases, ", "), ")"));
    }
    if (matching.size() > kMaxReleases) {
      notes->push_back(absl::StrCat(text, ": ", matching.size(), " releases match; the newest ",
                                    kMaxReleases, " are checked (narrow the range for others)"));
      matching.resize(kMaxReleases);
    }
    for (const std::string& v : matching) exact.push_back(absl::StrCat(req->name, "==", v));
  }
  std::vector<PipWheel> out;
  for (absl::StatusOr<PipWheel>& w : Locate(exact, target, s)) {
    if (!w.ok()) return w.status();
    out.push_back(*std::move(w));
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> ListReleases(const std::string& name,
                                                      const PipTarget& target) {
  Scratch s;
  if (s.dir.empty())
    return absl::UnavailableError(absl::StrCat("pip:", name, ": no temporary directory"));
  return Releases(name, name, target, s);
}

}  // namespace abicheck
