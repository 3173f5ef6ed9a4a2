// Parse once: the ELF headers and symbol table of every object one call loads (a matrix, an
// environment) are read once, however many of its checks load that object. A check's Loader
// borrows the parses; nothing in them changes during a call.
#ifndef ABICHECK_LIB_RESOLVE_PARSE_CACHE_H_
#define ABICHECK_LIB_RESOLVE_PARSE_CACHE_H_

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "lib/elf/elf_file.h"
#include "lib/io/blob.h"
#include "lib/io/file_tree.h"
#include "lib/resolve/file_system_view.h"
#include "lib/resolve/ld_cache.h"
#include "lib/resolve/memo_table.h"
#include "lib/symbols/symbol_table.h"

namespace abicheck {

struct ParsedObject {
  std::shared_ptr<const Blob> blob;
  std::optional<FileId> file_id;
  // The headers, or why they could not be read (elf is null then).
  absl::Status elf_status;
  std::shared_ptr<const ElfFile> elf;
  // The symbol table, or why it could not be read (syms is null then).
  absl::Status syms_status;
  std::shared_ptr<const SymbolTable> syms;
};

class SharedParseCache;

class ParseCache {
 public:
  // `shared`: parses of given objects that outlive this cache and serve other threads' caches
  // too (an opened Build's); its members are parsed there, once, and borrowed here.
  explicit ParseCache(SharedParseCache* shared = nullptr) : shared_(shared) {}
  // An object given as input, by its bytes' identity.
  const ParsedObject& Given(const InputFile& input);
  // The file at `path`, opened and parsed on first use; nullptr when it cannot be opened (the
  // loader then tries its next directory).
  const ParsedObject* Found(const std::string& path);
  // The file system as the loaders see it (file_system_view.h).
  std::optional<std::vector<std::string>>& CapabilityDirs(absl::string_view dir,
                                                          const std::vector<std::string>& subdirs) {
    return fs_.CapabilityDirs(dir, subdirs);
  }
  const std::optional<FileId>& DirectoryId(const std::string& dir) { return fs_.DirectoryId(dir); }
  void AddTree(std::shared_ptr<const FileTree> tree) { fs_.AddTree(std::move(tree)); }
  const FileTree* TreeAt(absl::string_view path) const { return fs_.TreeAt(path); }
  // The disk's parses stay when the overlay changes.
  void SetOverlay(std::shared_ptr<const FileTree> overlay) { fs_.SetOverlay(std::move(overlay)); }
  absl::StatusOr<std::shared_ptr<const LdCache>> HostCache(const std::string& path) {
    return fs_.HostCache(path);
  }

  // What later stages derive from the parsed symbol tables (memo_table.h); KeepUntilDone's work
  // ends before the parses it reads are freed.
  using MemoKind = MemoTable::Kind;
  using MemoFuture = MemoTable::Future;
  using MemoTake = MemoTable::Take;
  std::shared_ptr<const void>& Memo(const SymbolTable* table, MemoKind kind) {
    return memos_.Memo(table, kind);
  }
  void Pending(const SymbolTable* table, MemoKind kind, MemoFuture value, MemoTake take = nullptr) {
    memos_.Pending(table, kind, std::move(value), std::move(take));
  }
  void KeepUntilDone(std::future<void> work) { memos_.KeepUntilDone(std::move(work)); }
  size_t given_count() const { return given_.size(); }

 private:
  static void Parse(const std::string& name, const ExternalLibrary* external, ParsedObject* p);

  SharedParseCache* shared_ = nullptr;

  absl::flat_hash_map<const Blob*, std::unique_ptr<ParsedObject>> given_;
  absl::flat_hash_map<std::string, std::unique_ptr<ParsedObject>> found_;  // null: absent
  FileSystemView fs_;
  // Last: destroyed first, so that work on other threads ends before the parses it reads.
  MemoTable memos_;
};

// The parses of one build's libraries, shared by the checks against it on any thread. Only the
// build's own objects are kept here: a check's module and its other inputs stay in the check's
// cache, so a build kept open for many checks does not grow with them.
class SharedParseCache {
 public:
  // Before any check: `input` is one of the build's objects.
  void AddMember(const InputFile& input) { members_.insert(input.blob.get()); }
  bool IsMember(const InputFile& input) const { return members_.contains(input.blob.get()); }
  ParsedObject Given(const InputFile& input) {
    absl::MutexLock lock(&mu_);
    return cache_.Given(input);
  }
  size_t parsed() {  // how many members were parsed so far
    absl::MutexLock lock(&mu_);
    return cache_.given_count();
  }

 private:
  absl::flat_hash_set<const Blob*> members_;  // written before the build is shared, then read
  absl::Mutex mu_;
  ParseCache cache_ ABSL_GUARDED_BY(mu_);
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_PARSE_CACHE_H_
