// An installed Python environment, read the way pip left it: no interpreter is started and
// nothing is written. Distributions come from *.dist-info (METADATA for the name, version and
// torch pin; RECORD for the files), torch's CUDA preloads from its own __init__.py.
#include "lib/inputs/python_env.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/inputs/inputs.h"
#include "lib/io/mapped_file.h"
#include "lib/util/paths.h"
#include "lib/util/status_macros.h"

namespace fs = std::filesystem;

namespace abicheck {
namespace {

// A directory that exists and cannot be listed (an unprivileged user, mode 000 or 111) is said
// so: not read as empty, which would answer "no torch installed here" or "not a Python
// environment" (issue 37 item 15). OK when `ec` is not a permission error.
absl::Status Unlistable(const std::string& dir, const std::error_code& ec) {
  if (ec != std::errc::permission_denied && ec != std::errc::operation_not_permitted)
    return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(dir, ": cannot be listed: ", ec.message()));
}

constexpr size_t kMaxTextFile = size_t{16} << 20;  // METADATA, RECORD, __init__.py

bool IsDir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool IsRegular(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A small text file, read whole; nullopt when absent, unreadable or over the cap.
std::optional<std::string> ReadText(const std::string& path) {
  return ReadWholeFile(path, kMaxTextFile);
}

bool HasElfMagicFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  unsigned char b[4] = {0, 0, 0, 0};
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::pread(fd, b, 4, 0) == 4 &&
                  b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
  ::close(fd);
  return ok;
}

// "x.so", "x.so.0", "x.so.0.6.0", "x.cpython-312-x86_64-linux-gnu.so": a shared object's name.
bool LooksLikeSharedObject(absl::string_view base) {
  const size_t so = base.rfind(".so");
  if (so == absl::string_view::npos || so == 0) return false;
  absl::string_view rest = base.substr(so + 3);
  if (rest.empty()) return true;
  // ".so.<digits>[.<digits>...]"
  for (absl::string_view part : absl::StrSplit(rest.substr(1), '.')) {
    if (part.empty() || !std::all_of(part.begin(), part.end(), ::isdigit)) return false;
  }
  return rest[0] == '.';
}

// The first field of a RECORD line (CSV, RFC 4180 quoting).
std::string RecordPath(absl::string_view line) {
  std::string out;
  if (!line.empty() && line[0] == '"') {
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          out.push_back('"');
          ++i;
          continue;
        }
        break;
      }
      out.push_back(line[i]);
    }
    return out;
  }
  return std::string(line.substr(0, line.find(',')));
}

// "3.12" from "python3.12".
std::string VersionOfLibDir(absl::string_view name) {
  return absl::ConsumePrefix(&name, "python") ? std::string(name) : "";
}

// `key = value` lines of pyvenv.cfg.
absl::flat_hash_map<std::string, std::string> ParseCfg(absl::string_view text) {
  absl::flat_hash_map<std::string, std::string> kv;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const size_t eq = line.find('=');
    if (eq == absl::string_view::npos) continue;
    kv[std::string(absl::StripAsciiWhitespace(line.substr(0, eq)))] =
        std::string(absl::StripAsciiWhitespace(line.substr(eq + 1)));
  }
  return kv;
}

// "3.12.1" -> "3.12".
std::string MajorMinor(absl::string_view v) {
  std::vector<absl::string_view> parts = absl::StrSplit(v, '.');
  return parts.size() >= 2 ? absl::StrCat(parts[0], ".", parts[1]) : std::string(v);
}

// Where the environment's site-packages are, and its prefix when it has one.
struct Layout {
  std::string prefix;  // "" when given a site-packages directly
  std::string site_packages;
  std::string python_version;
  std::string interpreter;
};

// A system Python (Debian's /usr/bin/python3): no site-packages, but dist-packages —
// local/lib/pythonX.Y/dist-packages (what pip installs) and lib/python3/dist-packages (the
// distribution's packages). The one that holds torch, else the first there is; the version from
// the interpreter's name (python3 -> python3.11) or the prefix's only lib/pythonX.Y.
bool SystemDistPackages(Layout* l) {
  std::error_code ec;
  std::string version;
  if (!l->interpreter.empty()) {
    const fs::path real = fs::canonical(l->interpreter, ec);
    if (!ec) version = VersionOfLibDir(real.filename().string());
  }
  if (version.find('.') == std::string::npos) {
    std::vector<std::string> versions;
    for (fs::directory_iterator it(l->prefix + "/lib", ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::string v = VersionOfLibDir(it->path().filename().string());
      if (v.find('.') != std::string::npos && IsRegular(it->path().string() + "/os.py"))
        versions.push_back(v);
    }
    version = versions.size() == 1 ? versions[0] : "";
  }
  std::vector<std::string> candidates;
  if (!version.empty()) {
    candidates.push_back(absl::StrCat(l->prefix, "/local/lib/python", version, "/dist-packages"));
    candidates.push_back(absl::StrCat(l->prefix, "/lib/python", version, "/dist-packages"));
  }
  candidates.push_back(l->prefix + "/lib/python3/dist-packages");
  std::string chosen;
  for (const std::string& c : candidates) {
    if (!IsDir(c)) continue;
    if (chosen.empty()) chosen = c;
    if (IsDir(c + "/torch")) {
      chosen = c;
      break;
    }
  }
  if (chosen.empty()) return false;
  l->site_packages = chosen;
  l->python_version = version;
  return true;
}

// lib/pythonX.Y/site-packages under the prefix: the one pyvenv.cfg names, or the only one.
absl::Status SiteOfPrefix(const std::string& given, const std::string& cfg_version, Layout* lp) {
  Layout& l = *lp;
  std::error_code ec;
  std::vector<std::string> found;
  for (const char* lib : {"lib", "lib64"}) {
    const std::string dir = absl::StrCat(l.prefix, "/", lib);
    fs::directory_iterator first(dir, ec);
    ABICHECK_RETURN_IF_ERROR(Unlistable(dir, ec));
    for (fs::directory_iterator it = std::move(first), end; !ec && it != end; it.increment(ec)) {
      const std::string v = VersionOfLibDir(it->path().filename().string());
      const std::string sp = it->path().string() + "/site-packages";
      if (!v.empty() && IsDir(sp) &&
          std::find_if(found.begin(), found.end(), [&](const std::string& f) {
            return fs::equivalent(f, sp, ec);
          }) == found.end()) {
        found.push_back(sp);
      }
    }
  }
  std::sort(found.begin(), found.end());
  if (found.empty() && SystemDistPackages(&l)) return absl::OkStatus();
  if (found.empty()) {
    return absl::NotFoundError(
        absl::StrCat(given, ": no lib/pythonX.Y/site-packages here (not a Python environment)"));
  }
  std::vector<std::string> chosen;
  for (const std::string& sp : found) {
    const std::string v = VersionOfLibDir(fs::path(sp).parent_path().filename().string());
    if (cfg_version.empty() || v == cfg_version) chosen.push_back(sp);
  }
  if (chosen.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(given, ": pyvenv.cfg names Python ", cfg_version,
                     ", but its site-packages are for ", absl::StrJoin(found, ", ")));
  }
  if (chosen.size() > 1) {
    return absl::FailedPreconditionError(
        absl::StrCat(given, ": site-packages for several Python versions (",
                     absl::StrJoin(chosen, ", "), "); name one of them"));
  }
  l.site_packages = chosen.front();
  l.python_version = VersionOfLibDir(fs::path(l.site_packages).parent_path().filename().string());
  return absl::OkStatus();
}

// The interpreter: pyvenv.cfg's home, else the prefix's bin/. Symlinks are followed by opening,
// never by running anything.
void FindInterpreterFile(const absl::flat_hash_map<std::string, std::string>& cfg, Layout* lp) {
  Layout& l = *lp;
  std::vector<std::string> dirs;
  if (auto it = cfg.find("home"); it != cfg.end()) dirs.push_back(it->second);
  if (!l.prefix.empty()) dirs.push_back(l.prefix + "/bin");
  for (const std::string& d : dirs) {
    for (const std::string& n : {absl::StrCat("python", l.python_version), std::string("python3"),
                                 std::string("python")}) {
      const std::string p = absl::StrCat(d, "/", n);
      if (l.interpreter.empty() && HasElfMagicFile(p)) l.interpreter = p;
    }
  }
}

absl::StatusOr<Layout> FindLayout(const std::string& given) {
  Layout l;
  std::string path = given;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (IsRegular(path)) {
    // A Python executable: its prefix is the directory above bin/.
    l.interpreter = path;
    path = fs::path(path).parent_path().parent_path().string();
    if (path.empty()) path.assign(1, '.');  // (not = "." : GCC 12 -Wrestrict false positive)
  }
  if (!IsDir(path)) {
    // Said as what it is: a FIFO or a device is no environment (it was "No such file").
    struct stat st;
    if (::stat(given.c_str(), &st) != 0) {
      const int err = errno;
      if (err == ENOENT)
        return absl::NotFoundError(absl::StrCat(given, ": No such file or directory"));
      return absl::UnavailableError(absl::StrCat(given, ": ", std::strerror(err)));
    }
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
      return absl::FailedPreconditionError(
          absl::StrCat(given, ": not a Python environment (",
                       S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a file or directory",
                       "): give a virtualenv, a prefix, a site-packages directory or a Python "
                       "executable"));
    }
    return absl::NotFoundError(absl::StrCat(given, ": No such file or directory"));
  }
  // A site-packages directory itself: it holds *.dist-info (or is named so).
  const std::string base = Basename(path);
  bool has_dist_info = false;
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (absl::EndsWith(it->path().filename().string(), ".dist-info")) {
      has_dist_info = true;
      break;
    }
  }
  if (base == "site-packages" || base == "dist-packages" || has_dist_info) {
    l.site_packages = path;
    const fs::path parent = fs::path(path).parent_path();  // lib/python3.12
    l.python_version = VersionOfLibDir(parent.filename().string());
    const std::string prefix = parent.parent_path().parent_path().string();
    if (IsRegular(prefix + "/pyvenv.cfg") || IsDir(prefix + "/bin")) l.prefix = prefix;
  } else {
    l.prefix = path;
  }
  absl::flat_hash_map<std::string, std::string> cfg;
  if (!l.prefix.empty()) {
    if (std::optional<std::string> text = ReadText(l.prefix + "/pyvenv.cfg")) cfg = ParseCfg(*text);
  }
  std::string cfg_version;
  if (auto it = cfg.find("version_info"); it != cfg.end()) cfg_version = MajorMinor(it->second);
  if (auto it = cfg.find("version"); cfg_version.empty() && it != cfg.end())
    cfg_version = MajorMinor(it->second);
  if (l.site_packages.empty()) {
    ABICHECK_RETURN_IF_ERROR(SiteOfPrefix(given, cfg_version, &l));
  } else if (!cfg_version.empty() && !l.python_version.empty() && cfg_version != l.python_version) {
    return absl::FailedPreconditionError(
        absl::StrCat(given, ": a site-packages of Python ", l.python_version,
                     ", but the environment's pyvenv.cfg names Python ", cfg_version));
  }
  if (l.interpreter.empty()) FindInterpreterFile(cfg, &l);
  return l;
}

}  // namespace

std::optional<std::string> ReadSmallTextFile(const std::string& path) { return ReadText(path); }

std::string NormalizeDistName(absl::string_view name) {
  std::string out;
  bool sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out.push_back('-');
    sep = false;
    out.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

PackageMetadata ParseMetadata(absl::string_view text) {
  PackageMetadata md;
  // Headers end at the first empty line; the description follows.
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    absl::ConsumeSuffix(&line, "\r");
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') continue;  // a continuation
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    const absl::string_view key = line.substr(0, colon);
    const absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
    if (absl::EqualsIgnoreCase(key, "Name") && md.name.empty()) {
      md.name = std::string(value);
    } else if (absl::EqualsIgnoreCase(key, "Version") && md.version.empty()) {
      md.version = std::string(value);
    } else if (absl::EqualsIgnoreCase(key, "Requires-Dist")) {
      md.requirements.emplace_back(value);
      size_t end = 0;
      while (end < value.size() && (absl::ascii_isalnum(value[end]) || value[end] == '-' ||
                                    value[end] == '_' || value[end] == '.')) {
        ++end;
      }
      if (NormalizeDistName(value.substr(0, end)) != "torch") continue;
      const size_t semi = value.find(';');
      if (semi != absl::string_view::npos) {
        std::string marker(value.substr(semi + 1));
        marker.erase(std::remove(marker.begin(), marker.end(), ' '), marker.end());
        if (absl::StrContains(marker, "extra==")) continue;  // only with an extra
      }
      md.torch_requirements.emplace_back(absl::StripAsciiWhitespace(value.substr(0, semi)));
    }
  }
  return md;
}

// "__version__ = '2.9.1+cu128'" and "cuda: Optional[str] = '12.8'" of torch/version.py.
std::string PyStringAssignment(absl::string_view text, absl::string_view key) {
  for (size_t at = text.find(key); at != absl::string_view::npos; at = text.find(key, at + 1)) {
    if (at != 0 && text[at - 1] != '\n') continue;
    const size_t eol = text.find('\n', at);
    absl::string_view line = text.substr(at, eol == absl::string_view::npos ? eol : eol - at);
    const size_t q1 = line.find_first_of("'\"");
    if (q1 == absl::string_view::npos) return "";
    const size_t q2 = line.find(line[q1], q1 + 1);
    if (q2 == absl::string_view::npos) return "";
    return std::string(line.substr(q1 + 1, q2 - q1 - 1));
  }
  return "";
}

std::vector<CudaPreload> TorchCudaPreloads(absl::string_view init_py) {
  // The success path of _load_global_deps: from the RTLD_GLOBAL load of libtorch_global_deps to
  // its `except OSError`. It names each library, or calls _preload_cuda_deps() for its list
  // (2.15: _preload_cuda_deps(required=False), every one best-effort).
  std::vector<CudaPreload> out;
  const size_t def = init_py.find("def _load_global_deps");
  if (def == absl::string_view::npos) return out;
  const size_t load = init_py.find("mode=ctypes.RTLD_GLOBAL)", def);
  if (load == absl::string_view::npos) return out;
  const size_t except = init_py.find("except OSError", load);
  absl::string_view block = init_py.substr(
      load, except == absl::string_view::npos ? absl::string_view::npos : except - load);
  // Quoted pairs ("folder", "glob") — a call's arguments or a list's tuples; a call that says
  // required=False is best-effort, and so is every pair when `best_effort`.
  auto pairs = [](absl::string_view s, bool best_effort, std::vector<CudaPreload>* to) {
    auto quoted = [&](size_t* i, std::string* v) {
      while (*i < s.size() && s[*i] == ' ') ++*i;
      if (*i >= s.size() || s[*i] != '"') return false;
      const size_t close = s.find('"', *i + 1);
      if (close == absl::string_view::npos) return false;
      *v = std::string(s.substr(*i + 1, close - *i - 1));
      *i = close + 1;
      return true;
    };
    for (size_t open = s.find('('); open != absl::string_view::npos; open = s.find('(', open + 1)) {
      size_t i = open + 1;
      std::string a, b;
      if (!quoted(&i, &a)) continue;
      while (i < s.size() && s[i] == ' ') ++i;
      if (i >= s.size() || s[i] != ',') continue;
      ++i;
      if (!quoted(&i, &b)) continue;
      const size_t close = s.find(')', i);
      const bool optional =
          best_effort ||
          absl::StrContains(
              s.substr(i, close == absl::string_view::npos ? absl::string_view::npos : close - i),
              "required=False");
      if (absl::StrContains(b, ".so")) to->push_back({a, b, !optional});
    }
  };
  const size_t call = block.find("_preload_cuda_deps(");
  if (call != absl::string_view::npos && !block.substr(call).empty() &&
      (absl::StartsWith(block.substr(call), "_preload_cuda_deps()") ||
       absl::StartsWith(block.substr(call), "_preload_cuda_deps(required="))) {
    const bool best_effort =
        absl::StartsWith(block.substr(call), "_preload_cuda_deps(required=False)");
    const size_t body = init_py.find("def _preload_cuda_deps(");
    if (body != absl::string_view::npos) {
      const size_t next = init_py.find("\ndef ", body + 1);
      pairs(init_py.substr(body,
                           next == absl::string_view::npos ? absl::string_view::npos : next - body),
            best_effort, &out);
    }
  } else {
    pairs(block, false, &out);
  }
  return out;
}

std::vector<std::string> FileNamesIn(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  return names;
}

std::vector<std::string> ResolveCudaPreloads(
    const std::string& site_packages, const std::string& cuda_major,
    const std::vector<CudaPreload>& preloads,
    const std::function<std::vector<std::string>(const std::string& dir)>& list_dir) {
  std::vector<std::string> out;
  for (const auto& [folder, pattern, required] : preloads) {
    bool found = false;
    std::vector<std::string> dirs = {absl::StrCat(site_packages, "/nvidia/", folder, "/lib")};
    if (!cuda_major.empty())
      dirs.push_back(absl::StrCat(site_packages, "/nvidia/cu", cuda_major, "/lib"));
    dirs.push_back(absl::StrCat(site_packages, "/", folder, "/lib"));
    for (const std::string& d : dirs) {
      std::vector<std::string> matches;
      for (const std::string& n : list_dir(d)) {
        if (::fnmatch(pattern.c_str(), n.c_str(), FNM_PERIOD) == 0)
          matches.push_back(absl::StrCat(d, "/", n));
      }
      if (matches.empty()) continue;
      // glob.glob's order is the directory's; any match is the same library (a symlink chain).
      std::sort(matches.begin(), matches.end());
      if (std::find(out.begin(), out.end(), matches.front()) == out.end())
        out.push_back(matches.front());
      found = true;
      break;
    }
    // _preload_cuda_lib raises ValueError; the `except Exception: pass` around the loop ends it.
    if (!found && required) break;
  }
  return out;
}

std::vector<std::string> ResolveCudaPreloads(const std::string& site_packages,
                                             const std::string& cuda_major,
                                             const std::vector<CudaPreload>& preloads) {
  return ResolveCudaPreloads(site_packages, cuda_major, preloads, FileNamesIn);
}

std::vector<std::string> TorchPreloadPaths(
    const std::string& site_packages, bool has_global_deps, absl::string_view init_py,
    absl::string_view version_py,
    const std::function<std::vector<std::string>(const std::string& dir)>& list_dir) {
  const std::string cuda = PyStringAssignment(version_py, "cuda");
  if (!has_global_deps || cuda.empty()) return {};
  return ResolveCudaPreloads(site_packages, cuda.substr(0, cuda.find('.')),
                             TorchCudaPreloads(init_py), list_dir);
}

namespace {

// Every shared object under site-packages, once (symlinked copies by their own names), sorted.
absl::StatusOr<std::vector<std::string>> SharedObjectsUnder(const std::string& site,
                                                            const ReadLimits& limits) {
  std::vector<std::string> all;
  std::error_code ec;
  uint64_t count = 0;
  fs::recursive_directory_iterator it(site, fs::directory_options::skip_permission_denied, ec), end;
  std::string last;  // the entry the walk stood on: where it goes next when a read fails
  for (; !ec && it != end; it.increment(ec)) {
    last = it->path().string();
    if (it.depth() > limits.max_depth) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("%s: nested deeper than %d directories (raise it with --max-depth)", site,
                          limits.max_depth));
    }
    if (++count > limits.max_files) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "%s: more than %d files (raise it with --max-files)", site, limits.max_files));
    }
    const std::string name = it->path().filename().string();
    // What cannot be read is an input error naming it, never skipped without a word (issue 17).
    if ((it->is_directory(ec) || LooksLikeSharedObject(name)) &&
        ::access(it->path().c_str(), R_OK) != 0 && errno == EACCES) {
      return absl::PermissionDeniedError(absl::StrCat(it->path().string(), ": Permission denied"));
    }
    if (it->is_directory(ec)) {
      // torch is the build and nvidia/ its CUDA libraries: none of their objects is checked as a
      // package's, so their thousands of files are not walked.
      if (InstalledNothingToLoad(name) ||
          (it.depth() == 0 && (name == "torch" || name == "nvidia")))
        it.disable_recursion_pending();
      continue;
    }
    if (LooksLikeSharedObject(name) && HasElfMagicFile(it->path())) all.push_back(it->path());
  }
  if (ec) {
    // pip removing a package while it is read: the directory the walk was about to enter (or
    // the one it was in) is gone. Named, with the likely cause; the environment was not read
    // whole, so this is no verdict (issue 37 item 14).
    if (ec == std::errc::no_such_file_or_directory && !last.empty()) {
      return absl::UnavailableError(absl::StrCat(
          last, ": ", ec.message(),
          " (it vanished while the environment was read: is pip changing it? Check again)"));
    }
    return absl::UnavailableError(absl::StrCat(
        last.empty() ? site : absl::StrCat(site, " (after ", last, ")"), ": ", ec.message()));
  }
  std::sort(all.begin(), all.end());
  return all;
}

// One *.dist-info: its METADATA, and the shared objects its RECORD lists that no distribution
// before it claimed (`owned`).
InstalledDistribution ReadDistribution(const std::string& site, const std::string& di,
                                       absl::flat_hash_set<std::string>* owned) {
  InstalledDistribution dist;
  dist.dist_info = di;
  if (std::optional<std::string> md = ReadText(di + "/METADATA")) {
    dist.metadata = ParseMetadata(*md);
  } else {
    dist.problems.push_back(
        absl::StrCat(di, "/METADATA: missing or unreadable; named from its directory"));
  }
  if (dist.metadata.name.empty() || dist.metadata.version.empty()) {
    // "name-version.dist-info"
    std::string stem = Basename(di);
    stem.resize(stem.size() - std::string(".dist-info").size());
    const size_t dash = stem.find('-');
    if (dist.metadata.name.empty()) dist.metadata.name = stem.substr(0, dash);
    if (dist.metadata.version.empty() && dash != std::string::npos)
      dist.metadata.version = stem.substr(dash + 1);
  }
  std::optional<std::string> record = ReadText(di + "/RECORD");
  if (!record) {
    // Over the cap is said as such (issue 37: it read "missing or unreadable").
    struct stat st;
    const bool over = ::stat((di + "/RECORD").c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                      static_cast<uint64_t>(st.st_size) > kMaxTextFile;
    dist.problems.push_back(absl::StrCat(
        di, "/RECORD: ",
        over ? absl::StrFormat("%d bytes, over the %d MiB abicheck reads of a text file",
                               static_cast<uint64_t>(st.st_size), kMaxTextFile >> 20)
             : std::string("missing or unreadable"),
        "; its shared objects count as belonging to no distribution"));
  } else {
    // Lines end as Python's csv module ends them: \n, \r\n or a bare \r (pip reads RECORD so).
    for (absl::string_view line : absl::StrSplit(*record, absl::ByAnyChar("\r\n"))) {
      if (line.empty()) continue;
      const std::string rel = RecordPath(line);
      if (rel.empty() || !LooksLikeSharedObject(Basename(rel))) continue;
      if (rel.find('\0') != std::string::npos) {  // no file has that name (Python: ValueError)
        dist.problems.push_back(absl::StrCat(di, "/RECORD lists a path with a NUL byte (",
                                             absl::CHexEscape(rel), "): not a file name, skipped"));
        continue;
      }
      const std::string file =
          (rel[0] == '/' ? fs::path(rel) : fs::path(site) / rel).lexically_normal().string();
      if (!IsRegular(file)) {
        dist.problems.push_back(absl::StrCat(di, "/RECORD lists ", rel, ", which is not there"));
        continue;
      }
      if (!HasElfMagicFile(file) || !owned->insert(file).second) continue;
      dist.shared_objects.push_back(file);
    }
    std::sort(dist.shared_objects.begin(), dist.shared_objects.end());
  }
  return dist;
}

// Which distribution is torch: exactly one, with its files there.
absl::Status FindTorch(const std::string& site, InstalledTorch need, PythonEnvironment* envp) {
  PythonEnvironment& env = *envp;
  std::vector<std::string> torches;
  for (size_t i = 0; i < env.distributions.size(); ++i) {
    if (NormalizeDistName(env.distributions[i].metadata.name) == "torch") {
      env.torch = static_cast<int>(i);
      torches.push_back(env.distributions[i].dist_info);
    }
  }
  if (torches.empty() && need == InstalledTorch::kOptional) {
    env.torch_dir = site + "/torch";  // where a build is placed (E11)
    return absl::OkStatus();
  }
  if (torches.empty()) {
    return absl::NotFoundError(
        absl::StrCat(site, ": no torch installed here (no torch-*.dist-info)"));
  }
  if (torches.size() > 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        site, ": several torch installs, pip would not leave: ", absl::StrJoin(torches, ", ")));
  }
  env.torch_dir = site + "/torch";
  if (!IsDir(env.torch_dir + "/lib")) {
    return absl::NotFoundError(absl::StrCat(env.torch_dir, "/lib: No such directory (",
                                            torches.front(), " is installed, its files are not)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::optional<std::string>> InstalledTorchDirectory(const std::string& path) {
  if (!IsDir(path)) return std::nullopt;
  absl::StatusOr<Layout> layout = FindLayout(path);
  if (absl::IsNotFound(layout.status())) return std::nullopt;  // no site-packages: not one
  if (!layout.ok()) return layout.status();
  std::string torch = layout->site_packages + "/torch";
  if (!IsDir(torch + "/lib")) return std::nullopt;
  return torch;
}

std::string EnvironmentPythonVersion(const std::string& path) {
  if (!IsDir(path)) return "";
  absl::StatusOr<Layout> layout = FindLayout(path);
  return layout.ok() ? layout->python_version : "";
}

absl::StatusOr<PythonEnvironment> ReadPythonEnvironment(const std::string& path,
                                                        const ReadLimits& limits,
                                                        InstalledTorch torch) {
  absl::StatusOr<Layout> layout = FindLayout(path);
  if (!layout.ok()) return layout.status();
  PythonEnvironment env;
  env.path = path;
  env.site_packages = layout->site_packages;
  env.python_version = layout->python_version;
  env.interpreter = layout->interpreter;
  const std::string& site = env.site_packages;
  ABICHECK_ASSIGN_OR_RETURN(std::vector<std::string> all, SharedObjectsUnder(site, limits));
  std::error_code ec;
  absl::flat_hash_set<std::string> owned;
  std::vector<std::string> dist_infos;
  fs::directory_iterator first(site, ec);
  ABICHECK_RETURN_IF_ERROR(Unlistable(site, ec));
  for (fs::directory_iterator d = std::move(first), e; !ec && d != e; d.increment(ec)) {
    const std::string n = d->path().filename().string();
    if (absl::EndsWith(n, ".dist-info") && IsDir(d->path())) dist_infos.push_back(d->path());
    if (absl::EndsWith(n, ".egg-info"))
      env.notes.push_back(absl::StrCat(d->path().string(),
                                       ": an egg-info install (no RECORD): its files count as "
                                       "belonging to no distribution"));
  }
  std::sort(dist_infos.begin(), dist_infos.end());
  for (const std::string& di : dist_infos)
    env.distributions.push_back(ReadDistribution(site, di, &owned));
  std::sort(env.distributions.begin(), env.distributions.end(),
            [](const InstalledDistribution& a, const InstalledDistribution& b) {
              return NormalizeDistName(a.metadata.name) < NormalizeDistName(b.metadata.name);
            });
  for (const std::string& f : all) {
    if (!owned.contains(f)) env.unowned.push_back(f);
  }
  ABICHECK_RETURN_IF_ERROR(FindTorch(site, torch, &env));
  return env;
}

}  // namespace abicheck
