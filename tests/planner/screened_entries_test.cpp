// The search's priced configs read as one sequence over the lists its groups wrote: in order, each
// entry once, and a copy that owns its own entries (a Plan is copied by sweeps and tests).

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "planner/search/screened_entries.hpp"

namespace preflight {
namespace {

std::vector<PlanEntry> list(std::initializer_list<int> micro_batches) {
  std::vector<PlanEntry> out;
  for (int mb : micro_batches) {
    PlanEntry e;
    e.evaluation.config.micro_batch = mb;
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::int64_t> micro_batches(const ScreenedEntries& s) {
  std::vector<std::int64_t> out;
  for (const PlanEntry& e : s) out.push_back(e.config().micro_batch);
  return out;
}

TEST(ScreenedEntries, ReadsTheListsInOrderAndCopiesOwnTheirEntries) {
  std::vector<std::vector<PlanEntry>> lists;
  lists.push_back(list({1, 2}));
  lists.push_back({});
  lists.push_back(list({3}));
  ScreenedEntries s(std::move(lists));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(micro_batches(s), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(s[2].config().micro_batch, 3);

  const ScreenedEntries copy = s;
  s[0].evaluation.config.micro_batch = 7;  // the copy's entries are its own
  EXPECT_EQ(micro_batches(copy), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_NE(&copy[0], &s[0]);

  const PlanEntry* first = &s[0];
  const ScreenedEntries moved = std::move(s);  // a move keeps the entries where they are
  EXPECT_EQ(&moved[0], first);
  EXPECT_EQ(micro_batches(moved), (std::vector<std::int64_t>{7, 2, 3}));
}

}  // namespace
}  // namespace preflight
