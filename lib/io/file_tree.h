// Files laid out under a root that is no directory on disk: the site-packages pip would make of a
// torch wheel and the dependency wheels it pins, without unpacking any of them
// (docs/loader-model.md E10). The root is the torch wheel's own path, a regular file, so nothing
// on disk can lie under it: the tree shadows no real file. The loader searches it as it searches
// directories, through ParseCache.
#ifndef ABICHECK_LIB_IO_FILE_TREE_H_
#define ABICHECK_LIB_IO_FILE_TREE_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "lib/io/blob.h"

namespace abicheck {

// `path` made absolute against `cwd` and lexically normal: "." and empty components dropped,
// ".." taking off the one before it ("/" stays "/"). No file system access.
std::string LexicallyAbsolute(absl::string_view path, absl::string_view cwd);

class FileTree {
 public:
  // A tree answers for every path under its root (kAlone: a wheel's path, where nothing is on
  // disk), or lies over a directory that exists (kOverlay: an environment's site-packages with
  // another torch installed in it, docs/loader-model.md E11): a path the tree has no file for is
  // then the disk's, unless the tree hides it (a file pip would remove).
  enum class Kind { kAlone, kOverlay };
  // `root`: where the tree stands, made absolute against the working directory.
  explicit FileTree(absl::string_view root, Kind kind = Kind::kAlone);
  bool overlay() const { return kind_ == Kind::kOverlay; }
  const std::string& root() const { return root_; }
  // Adds `file` at `relative` under the root ("nvidia/cu13/lib/libcudart.so.13"); its `path`
  // (what $ORIGIN is made from) becomes that place. A second file at the same place is not
  // added: false.
  bool Add(absl::string_view relative, InputFile file);
  // An overlay's file on disk at `path` (absolute) is not there: pip removes it.
  void Hide(absl::string_view path);
  // Whether an overlay hides the disk's file at `path` (as the loader makes it).
  bool Hides(absl::string_view path) const;
  // Whether `path` (absolute, as the loader makes it) names a place under the root: the tree
  // answers for it (an overlay first, then the disk).
  bool Contains(absl::string_view path) const;
  // The file at `path` as the kernel would resolve it in the tree — every component before the
  // last must be a directory of the tree, also before a ".." — or nullptr.
  const InputFile* File(absl::string_view path) const;
  // The directory at `path` resolved the same way: its normalized path, or nullopt.
  std::optional<std::string> Directory(absl::string_view path) const;
  // The files directly in the directory `dir` (normalized), in name order.
  std::vector<const InputFile*> FilesIn(absl::string_view dir) const;
  size_t size() const { return files_.size(); }
  // The pinned requirements whose wheels the tree lacks ("nvidia-cudnn-cu13==9.20.0.48"): a
  // directory of the tree that is not there may be one such a wheel installs, so a library found
  // elsewhere after the loader tried it may be another file than the install's
  // (docs/loader-model.md E12). Empty when the world is whole.
  void SetNotGiven(std::vector<std::string> pins) { not_given_ = std::move(pins); }
  const std::vector<std::string>& not_given() const { return not_given_; }
  // An overlay's file on disk that is the world's own: an installed distribution's that
  // satisfies one of its pins, which pip keeps (E11) — a file no wheel the world lacks replaces
  // (E12).
  void KeepOnDisk(absl::string_view path);
  bool KeptOnDisk(absl::string_view path) const;

 private:
  // `path` resolved component by component; nullopt where a component before the last is not
  // a directory of the tree (or the walk leaves the root). An overlay's directories are also
  // the disk's: where the walk meets a component the tree does not have, the path is taken
  // lexically (a symbolic link to a directory under site-packages is not followed as the kernel
  // would follow it).
  std::optional<std::string> Resolve(absl::string_view given) const;

  std::string cwd_;  // what a relative path is taken against
  std::string root_;
  Kind kind_;
  absl::flat_hash_set<std::string> hidden_;            // an overlay's: disk files pip removes
  absl::flat_hash_map<std::string, InputFile> files_;  // by normalized path
  absl::flat_hash_set<std::string> dirs_;              // the root and every parent of a file
  std::vector<std::string> not_given_;
  absl::flat_hash_set<std::string> kept_;  // KeepOnDisk's, as Hide's
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_FILE_TREE_H_
