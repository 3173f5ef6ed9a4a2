// What a later stage derives from a symbol table and keeps for the rest of a call (relocation's
// references of an object, diagnosis' exported names by base name and its candidates split),
// possibly made on another thread.
#ifndef ABICHECK_LIB_RESOLVE_MEMO_TABLE_H_
#define ABICHECK_LIB_RESOLVE_MEMO_TABLE_H_

#include <cstdint>
#include <functional>
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
        if (it->second.take) slot = it->second.take();
        if (slot == nullptr) slot = it->second.value.get();
        pending_.erase(it);
      }
    }
    return slot;
  }
  // Makes a pending memo on the thread that asks for it, unless the other thread has started it
  // (nullptr then: Memo() waits for that thread's).
  using Take = std::function<std::shared_ptr<const void>()>;
  // A memo being made on another thread: when it is first asked for, Memo() takes it over if that
  // thread has not started it yet, else waits for it — the asking thread never waits behind work
  // queued before it that it does not need.
  void Pending(const SymbolTable* table, Kind kind, Future value, Take take = nullptr) {
    pending_.insert_or_assign({table, kind}, PendingMemo{std::move(value), std::move(take)});
  }
  // The work of another thread, waited for when this table is destroyed: its owner destroys the
  // table before the parses that work reads.
  void KeepUntilDone(std::future<void> work) { background_.push_back(std::move(work)); }

 private:
  absl::flat_hash_map<std::pair<const SymbolTable*, Kind>, std::shared_ptr<const void>> memo_;
  struct PendingMemo {
    Future value;
    Take take;
  };
  absl::flat_hash_map<std::pair<const SymbolTable*, Kind>, PendingMemo> pending_;
  // Last: destroyed first, so that work on other threads ends before the memos it fills.
  std::vector<std::future<void>> background_;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_MEMO_TABLE_H_
