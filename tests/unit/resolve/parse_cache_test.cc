// ParseCache's per-call memos: a slot filled on another thread is waited for where it is first
// asked for, and the search paths of a directory are kept for the call.
#include "lib/resolve/parse_cache.h"

#include <chrono>
#include <future>
#include <memory>
#include <optional>
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

// A pending memo the other thread has not started is made where it is asked for, not waited for:
// here that thread never starts it (its future is never set), so waiting would never end.
TEST(ParseCacheTest, PendingMemoNotStartedIsMadeWhereItIsAskedFor) {
  std::promise<std::shared_ptr<const void>> never;
  ParseCache cache;
  const auto* table = reinterpret_cast<const SymbolTable*>(&cache);
  auto value = std::make_shared<const int>(7);
  int taken = 0;
  cache.Pending(table, ParseCache::MemoKind::kSourceNames, never.get_future().share(), [&] {
    ++taken;
    return std::shared_ptr<const void>(value);
  });
  EXPECT_EQ(cache.Memo(table, ParseCache::MemoKind::kSourceNames).get(), value.get());
  EXPECT_EQ(cache.Memo(table, ParseCache::MemoKind::kSourceNames).get(), value.get());
  EXPECT_EQ(taken, 1);
  // Started on the other thread (the take answers nullptr): waited for, as before.
  std::promise<std::shared_ptr<const void>> made;
  const auto* other = reinterpret_cast<const SymbolTable*>(&made);
  cache.Pending(other, ParseCache::MemoKind::kSourceNames, made.get_future().share(),
                [] { return std::shared_ptr<const void>(); });
  made.set_value(value);
  EXPECT_EQ(cache.Memo(other, ParseCache::MemoKind::kSourceNames).get(), value.get());
}

TEST(ParseCacheTest, CapabilityDirsAreKeptPerDirectoryAndSubdirectoryList) {
  ParseCache cache;
  const std::vector<std::string> x86 = {"glibc-hwcaps/x86-64-v3", "tls"}, other = {"tls"};
  std::optional<std::vector<std::string>>& a = cache.CapabilityDirs("/lib", x86);
  EXPECT_FALSE(a.has_value());  // not searched yet: the loader fills it
  a = std::vector<std::string>{"/lib/tls"};
  ASSERT_TRUE(cache.CapabilityDirs("/lib", x86).has_value());
  EXPECT_EQ(cache.CapabilityDirs("/lib", x86)->size(), 1u);
  EXPECT_FALSE(cache.CapabilityDirs("/lib", other).has_value());  // another machine's list
  EXPECT_FALSE(cache.CapabilityDirs("/lib/", x86).has_value());   // another directory string
  EXPECT_FALSE(cache.CapabilityDirs("/usr/lib", x86).has_value());
}

}  // namespace
}  // namespace abicheck
