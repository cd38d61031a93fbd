#pragma once
// Every config a search priced, kept in the lists the search's groups of configs wrote them into and
// read as one sequence, in group order. A plan prices tens of thousands of configs of about two
// kilobytes each: gathering them into one list took a fifth of a plan's time and a second copy of
// its memory (page faults and all), for nothing the readers need.

#include <cstddef>
#include <vector>

#include <boost/iterator/indirect_iterator.hpp>

#include "planner/search/plan_entry.hpp"

namespace preflight {

class ScreenedEntries {
 public:
  using iterator = boost::indirect_iterator<std::vector<PlanEntry*>::const_iterator, PlanEntry>;
  using const_iterator = boost::indirect_iterator<std::vector<PlanEntry*>::const_iterator, const PlanEntry>;

  ScreenedEntries() = default;
  // The lists in order (empty ones allowed); their entries stay where they are.
  explicit ScreenedEntries(std::vector<std::vector<PlanEntry>> lists);
  ScreenedEntries(const ScreenedEntries& other);
  ScreenedEntries& operator=(const ScreenedEntries& other);
  // A moved list keeps its entries where they are, so the index stays valid.
  ScreenedEntries(ScreenedEntries&&) noexcept = default;
  ScreenedEntries& operator=(ScreenedEntries&&) noexcept = default;
  ~ScreenedEntries() = default;

  std::size_t size() const { return index_.size(); }
  bool empty() const { return index_.empty(); }
  PlanEntry& operator[](std::size_t i) { return *index_[i]; }
  const PlanEntry& operator[](std::size_t i) const { return *index_[i]; }
  iterator begin() { return iterator(index_.cbegin()); }
  iterator end() { return iterator(index_.cend()); }
  const_iterator begin() const { return const_iterator(index_.cbegin()); }
  const_iterator end() const { return const_iterator(index_.cend()); }

 private:
  void build_index();

  std::vector<std::vector<PlanEntry>> lists_;
  std::vector<PlanEntry*> index_;  // every entry of the lists, in order
};

}  // namespace preflight
