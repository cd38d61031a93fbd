#include "simulator/engine/task_graph.hpp"

#include <stdexcept>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/topological_sort.hpp>
#pragma GCC diagnostic pop

namespace preflight::engine {

ResourceId TaskGraph::add_resource(std::string name) {
  resources_.push_back(std::move(name));
  return static_cast<ResourceId>(resources_.size() - 1);
}

void TaskGraph::unknown_resource() { throw std::logic_error("task on an unknown resource"); }

void TaskGraph::unknown_task() { throw std::logic_error("dependency on an unknown task"); }

std::vector<std::size_t> TaskGraph::predecessor_counts() const {
  std::vector<std::size_t> counts;
  predecessor_counts(counts);
  return counts;
}

void TaskGraph::predecessor_counts(std::vector<std::size_t>& counts) const {
  counts.assign(tasks_.size(), 0);
  for (const auto& [earlier, later] : edges_) ++counts[later];
}

SuccessorGraph TaskGraph::successors() const {
  // Unsorted edges are bucketed by source in the order given, so successors keep insertion order.
  return SuccessorGraph(boost::edges_are_unsorted_multi_pass, edges_.begin(), edges_.end(),
                        static_cast<TaskId>(tasks_.size()));
}

void TaskGraph::check_acyclic() const {
  const SuccessorGraph g = successors();
  std::vector<TaskId> order;
  order.reserve(tasks_.size());
  try {
    boost::topological_sort(g, std::back_inserter(order));
  } catch (const boost::not_a_dag&) {
    throw std::logic_error("the step graph has a dependency cycle");
  }
}

}  // namespace preflight::engine
