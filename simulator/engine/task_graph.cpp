#include "simulator/engine/task_graph.hpp"

#include <stdexcept>

#include <boost/graph/topological_sort.hpp>

namespace preflight::engine {

ResourceId TaskGraph::add_resource(std::string name) {
  resources_.push_back(std::move(name));
  return static_cast<ResourceId>(resources_.size() - 1);
}

TaskId TaskGraph::add_task(const Task& task) {
  if (task.resource >= resources_.size()) throw std::logic_error("task on an unknown resource");
  return static_cast<TaskId>(boost::add_vertex(task, *graph_));
}

void TaskGraph::depends(TaskId later, TaskId earlier) { boost::add_edge(earlier, later, *graph_); }

std::vector<std::size_t> TaskGraph::predecessor_counts() const {
  std::vector<std::size_t> counts(task_count(), 0);
  for (TaskId t = 0; t < task_count(); ++t) for_each_successor(t, [&](TaskId next) { ++counts[next]; });
  return counts;
}

void TaskGraph::check_acyclic() const {
  std::vector<Graph::vertex_descriptor> order;
  try {
    boost::topological_sort(*graph_, std::back_inserter(order));
  } catch (const boost::not_a_dag&) {
    throw std::logic_error("the step graph has a dependency cycle");
  }
}

}  // namespace preflight::engine
