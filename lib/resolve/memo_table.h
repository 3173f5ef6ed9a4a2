// What a later stage derives from a symbol table and keeps for the rest of a call (relocation's
// references of an object, diagnosis' exported names by base name and its candidates split),
// possibly made on another thread.
#ifndef ABICHECK_LIB_RESOLVE_MEMO_TABLE_H_
#define ABICHECK_LIB_RESOLVE_MEMO_TABLE_H_

#include <cstdint>
#include <future>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/symbols/symbol_table.h"

namespace abicheck {

class MemoTable {
 public:
  enum class Kind : uint8_t { kReferences, kSourceNames, kSplitNames };
  using Future = std::shared_future<std::shared_ptr<const void>>;

  // Empty until filled by its user, or by what Pending() handed over (waited for here). The
  // reference is into a hash map: fill it before asking for another slot.
  std::shared_ptr<const void>& Memo(const SymbolTable* table, Kind kind) {
    std::shared_ptr<const void>& slot = memo_[{table, kind}];
    if (slot == nullptr) {
      if (auto it = pending_.find({table, kind}); it != pending_.end()) {
        slot = it->second.get();
        pending_.erase(it);
      }
    }
    return slot;
  }
  // A memo being made on another thread: Memo() waits for it when it is first asked for.
  void Pending(const SymbolTable* table, Kind kind, Future value) {
    pending_.insert_or_assign({table, kind}, std::move(value));
  }
  // The work of another thread, waited for when this table is destroyed: its owner destroys the
  // table before the parses that work reads.
  void KeepUntilDone(std::future<void> work) { background_.push_back(std::move(work)); }

 private:
  absl::flat_hash_map<std::pair<const SymbolTable*, Kind>, std::shared_ptr<const void>> memo_;
  absl::flat_hash_map<std::pair<const SymbolTable*, Kind>, Future> pending_;
  // Last: destroyed first, so that work on other threads ends before the memos it fills.
  std::vector<std::future<void>> background_;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_MEMO_TABLE_H_
