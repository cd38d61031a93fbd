#include "planner/search/screened_entries.hpp"

#include <utility>

namespace preflight {

ScreenedEntries::ScreenedEntries(std::vector<std::vector<PlanEntry>> lists) : lists_(std::move(lists)) { build_index(); }

ScreenedEntries::ScreenedEntries(const ScreenedEntries& other) : lists_(other.lists_) { build_index(); }

ScreenedEntries& ScreenedEntries::operator=(const ScreenedEntries& other) {
  if (this != &other) {
    lists_ = other.lists_;
    build_index();
  }
  return *this;
}

void ScreenedEntries::build_index() {
  std::size_t n = 0;
  for (const std::vector<PlanEntry>& list : lists_) n += list.size();
  index_.clear();
  index_.reserve(n);
  for (std::vector<PlanEntry>& list : lists_) {
    for (PlanEntry& e : list) index_.push_back(&e);
  }
}

}  // namespace preflight
