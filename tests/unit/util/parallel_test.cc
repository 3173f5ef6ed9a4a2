// The thread pool: ParallelForInOrder hands every text to `emit` once, in index order, on the
// calling thread, however unevenly the items take.

#include "lib/util/parallel.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace abicheck {
namespace {

TEST(ParallelTest, EmitsInIndexOrderOnTheCallingThread) {
  for (size_t threads : {1, 2, 4}) {
    constexpr size_t kItems = 300;
    std::vector<std::string> got;
    std::atomic<int> emitting{0};
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> overlapped{false};
    std::atomic<int> reused{0};
    ParallelForInOrder(
        kItems, threads,
        [&](size_t i, std::string* text) {
          if (!text->empty()) overlapped = true;  // must come empty
          if (text->capacity() >= 64) ++reused;
          text->reserve(64);
          // Early items take longest, so later ones finish first and wait their turn.
          if (i % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
          absl::StrAppend(text, "item ", i);
        },
        [&](const std::string& text) {
          if (emitting.fetch_add(1) != 0 || std::this_thread::get_id() != caller) overlapped = true;
          got.push_back(text);
          emitting.fetch_sub(1);
        });
    ASSERT_EQ(got.size(), kItems) << threads;
    for (size_t i = 0; i < kItems; ++i) EXPECT_EQ(got[i], absl::StrCat("item ", i)) << threads;
    EXPECT_FALSE(overlapped) << threads;
    // On one thread each text goes out before the next is made, so every buffer after the first
    // is the first one again (on more, how many are reused depends on the timing).
    if (threads == 1) {
      EXPECT_EQ(reused.load(), static_cast<int>(kItems) - 1);
    }
  }
}

// A sink that throws stops the work: the items under way finish, no other starts, every thread
// is joined, and the exception reaches the caller.
TEST(ParallelTest, AThrowingEmitEndsTheWork) {
  for (size_t threads : {1, 2, 4}) {
    std::atomic<int> filled{0};
    int sent = 0;
    EXPECT_THROW(ParallelForInOrder(
                     1000, threads,
                     [&](size_t i, std::string* text) {
                       ++filled;
                       absl::StrAppend(text, i);
                     },
                     [&](const std::string&) {
                       if (++sent == 3) throw std::runtime_error("sink full");
                     }),
                 std::runtime_error);
    EXPECT_EQ(sent, 3) << threads;
    EXPECT_LT(filled.load(), 1000) << threads;
  }
}

}  // namespace
}  // namespace abicheck
