// FileTree: a site-packages made of wheel members (docs/loader-model.md E10).
#include "lib/io/file_tree.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace abicheck {
namespace {

std::string WorkingDirectory() {
  char buf[4096];
  return ::getcwd(buf, sizeof buf) != nullptr ? std::string(buf) : std::string("/");
}

}  // namespace

std::string LexicallyAbsolute(absl::string_view path, absl::string_view cwd) {
  std::vector<absl::string_view> parts;
  auto add = [&](absl::string_view text) {
    for (absl::string_view c : absl::StrSplit(text, '/')) {
      if (c.empty() || c == ".") continue;
      if (c == "..") {
        if (!parts.empty()) parts.pop_back();
        continue;
      }
      parts.push_back(c);
    }
  };
  if (!absl::StartsWith(path, "/")) add(cwd);
  add(path);
  std::string out;
  for (absl::string_view c : parts) absl::StrAppend(&out, "/", c);
  return out.empty() ? "/" : out;
}

FileTree::FileTree(absl::string_view root, Kind kind)
    : cwd_(WorkingDirectory()), root_(LexicallyAbsolute(root, cwd_)), kind_(kind) {
  dirs_.insert(root_);
}

void FileTree::Hide(absl::string_view path) { hidden_.insert(LexicallyAbsolute(path, cwd_)); }

bool FileTree::Hides(absl::string_view path) const {
  if (hidden_.empty()) return false;
  std::optional<std::string> at = Resolve(path);
  return at && hidden_.contains(*at);
}

void FileTree::KeepOnDisk(absl::string_view path) { kept_.insert(LexicallyAbsolute(path, cwd_)); }

bool FileTree::KeptOnDisk(absl::string_view path) const {
  if (kept_.empty()) return false;
  std::optional<std::string> at = Resolve(path);
  return at && kept_.contains(*at);
}

bool FileTree::Add(absl::string_view relative, InputFile file) {
  const std::string path = LexicallyAbsolute(absl::StrCat(root_, "/", relative), "/");
  if (!absl::StartsWith(path, root_ + "/")) return false;
  if (files_.contains(path) || dirs_.contains(path)) return false;
  for (size_t slash = path.rfind('/'); slash > root_.size(); slash = path.rfind('/', slash - 1))
    dirs_.insert(path.substr(0, slash));
  file.path = path;
  files_.emplace(path, std::move(file));
  return true;
}

namespace {

// `path` from the working directory `cwd` when relative (an environment given as "venvs/x", its
// files named so), as the kernel takes it, with each run of slashes one slash, as the kernel
// reads them: a wheel read from a URL names its members "http://HOST/x.whl/torch/lib/...", and
// the tree's root is that path normalized (docs/loader-model.md E10).
std::string Rooted(absl::string_view path, absl::string_view cwd) {
  std::string out;
  if (!absl::StartsWith(path, "/")) absl::StrAppend(&out, cwd, "/");
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  return out;
}

}  // namespace

bool FileTree::Contains(absl::string_view given) const {
  auto under = [&](absl::string_view path) {
    return absl::StartsWith(path, root_) &&
           (path.size() == root_.size() || path[root_.size()] == '/');
  };
  // Most paths asked are absolute and plain: no copy for them (the loader asks for every search).
  if (absl::StartsWith(given, "/") && !absl::StrContains(given, "//")) return under(given);
  return under(Rooted(given, cwd_));
}

std::optional<std::string> FileTree::Resolve(absl::string_view given) const {
  // Most paths asked are absolute and plain, as Rooted would give them: used as they are.
  std::string rooted;
  absl::string_view path = given;
  if (!absl::StartsWith(given, "/") || absl::StrContains(given, "//")) {
    rooted = Rooted(given, cwd_);
    path = rooted;
  }
  if (!Contains(path)) return std::nullopt;
  // The kernel walks through each place `at` it reaches to reach the next component: each must be
  // a directory. dirs_ holds every parent of its members up to the root, so a place there vouches
  // for every place it extends: only the deepest place before each ".." and the last parent are
  // looked up — one hash of a long path each, not one per component (the loader's
  // "$ORIGIN/../../nvidia/..." paths, asked for every search).
  std::string at = root_;
  size_t checked = at.size();  // `at` up to here is a directory of the tree
  size_t parent = at.size();   // `at` before its last component
  auto is_directory = [&](size_t length) {
    return length == checked || dirs_.contains(absl::string_view(at).substr(0, length));
  };
  auto outside = [&]() -> std::optional<std::string> {
    if (kind_ == Kind::kAlone) return std::nullopt;
    // An overlay: a directory of the disk (or nothing, which the disk will say).
    std::string lexical = LexicallyAbsolute(path, "/");
    if (!Contains(lexical)) return std::nullopt;
    return lexical;
  };
  for (absl::string_view c : absl::StrSplit(path.substr(root_.size()), '/')) {
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      if (!is_directory(at.size())) return outside();
      if (at == root_) return std::nullopt;  // above the tree: nothing modelled is there
      at.resize(at.rfind('/'));
      checked = parent = at.size();
      continue;
    }
    parent = at.size();
    absl::StrAppend(&at, "/", c);
  }
  if (!is_directory(parent)) return outside();
  return at;
}

const InputFile* FileTree::File(absl::string_view path) const {
  std::optional<std::string> at = Resolve(path);
  if (!at) return nullptr;
  auto it = files_.find(*at);
  return it == files_.end() ? nullptr : &it->second;
}

std::optional<std::string> FileTree::Directory(absl::string_view path) const {
  std::optional<std::string> at = Resolve(path);
  if (!at || !dirs_.contains(*at)) return std::nullopt;
  return at;
}

std::vector<const InputFile*> FileTree::FilesIn(absl::string_view dir) const {
  std::vector<const InputFile*> out;
  for (const auto& [path, file] : files_) {
    if (path.size() > dir.size() + 1 && absl::StartsWith(path, dir) && path[dir.size()] == '/' &&
        path.find('/', dir.size() + 1) == std::string::npos)
      out.push_back(&file);
  }
  std::sort(out.begin(), out.end(),
            [](const InputFile* a, const InputFile* b) { return a->path < b->path; });
  return out;
}

}  // namespace abicheck
