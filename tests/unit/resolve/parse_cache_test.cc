// ParseCache's per-call memos: a slot filled on another thread is waited for where it is first
// asked for, and the search paths of a directory are kept for the call.
#include "lib/resolve/parse_cache.h"

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace abicheck {
namespace {

TEST(ParseCacheTest, PendingMemoIsWaitedForWhereItIsFirstAskedFor) {
  // Declared before the cache: they outlive the thread, which the cache joins when it goes.
  std::promise<std::shared_ptr<const void>> made;
  ParseCache cache;
  // Only the table's identity is used: a memo is keyed by the address.
  const auto* table = reinterpret_cast<const SymbolTable*>(&cache);
  cache.Pending(table, ParseCache::MemoKind::kSourceNames, made.get_future().share());
  auto value = std::make_shared<const int>(42);
  cache.KeepUntilDone(std::async(std::launch::async, [&made, value] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    made.set_value(value);
  }));
  // Another kind of the same table is not pending: empty at once.
  EXPECT_EQ(cache.Memo(table, ParseCache::MemoKind::kReferences), nullptr);
  const std::shared_ptr<const void>& slot = cache.Memo(table, ParseCache::MemoKind::kSourceNames);
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(*static_cast<const int*>(slot.get()), 42);
  // Kept: the same object the next time, with nothing pending any more.
  EXPECT_EQ(cache.Memo(table, ParseCache::MemoKind::kSourceNames).get(), value.get());
}

TEST(ParseCacheTest, SearchPathsAreKeptPerMachineDirectoryAndName) {
  ParseCache cache;
  std::vector<std::string>& a = cache.SearchPaths(62, "/lib", "libc.so.6");
  EXPECT_TRUE(a.empty());  // not searched yet: the loader fills it
  a.push_back("/lib/libc.so.6");
  EXPECT_EQ(cache.SearchPaths(62, "/lib", "libc.so.6").size(), 1u);
  EXPECT_TRUE(cache.SearchPaths(183, "/lib", "libc.so.6").empty());  // another machine
  EXPECT_TRUE(cache.SearchPaths(62, "/lib/", "libc.so.6").empty());  // another directory string
  EXPECT_TRUE(cache.SearchPaths(62, "/lib", "libm.so.6").empty());   // another name
}

}  // namespace
}  // namespace abicheck
