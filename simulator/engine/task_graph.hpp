#pragma once
// A step as a graph of tasks: each task runs on one resource (a GPU stream, a link, a copy engine,
// the CPU, an NVMe drive) for a fixed duration, after the tasks it depends on. Memory is allocated
// when a task starts and freed when it ends. The graph knows nothing about transformers; the
// step builder (simulator/step/) fills it, the engine (event_engine.hpp) runs it.
//
// Builders add tasks and dependencies one by one; the engine needs successors fast. So the graph is
// kept as flat task and edge lists while it is built (two allocations that grow, not one per task)
// and turned into a Boost compressed-sparse-row graph when it is run.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// GCC 12 with the sanitizers reports -Wmaybe-uninitialized inside boost::optional as used by
// boost/graph headers (a false positive in a system header's inlined code). Clang has no such group.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/graph/compressed_sparse_row_graph.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace preflight::engine {

using ResourceId = std::uint32_t;
using TaskId = std::uint32_t;

struct Task {
  std::string_view name;     // static text: what the task is ("attn fwd", "all-gather")
  std::int32_t index = -1;   // which layer / bucket / micro-batch it belongs to, -1 for none
  ResourceId resource = 0;
  double seconds = 0.0;
  double alloc_bytes = 0.0;  // allocated when the task starts
  double free_bytes = 0.0;   // released when it ends
};

// Successor lists of a finished graph (vertex i's out-edges lead to the tasks waiting on task i).
using SuccessorGraph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                          boost::no_property, TaskId, TaskId>;

class TaskGraph {
 public:
  ResourceId add_resource(std::string name);
  // Inline: a step graph adds thousands of tasks and dependencies, and every simulation builds one.
  TaskId add_task(const Task& task) {
    if (task.resource >= resources_.size()) unknown_resource();
    tasks_.push_back(task);
    return static_cast<TaskId>(tasks_.size() - 1);
  }
  // `later` starts only after `earlier` ends.
  void depends(TaskId later, TaskId earlier) {
    if (later >= tasks_.size() || earlier >= tasks_.size()) unknown_task();
    edges_.emplace_back(earlier, later);
  }
  // Room for this many tasks and dependencies (a builder that knows its size grows no lists).
  void reserve(std::size_t tasks, std::size_t edges) {
    tasks_.reserve(tasks);
    edges_.reserve(edges);
  }
  // Empty again, keeping the lists' room: a search builds tens of thousands of graphs, and memory
  // handed back and asked for again costs more than the graphs themselves.
  void clear() {
    tasks_.clear();
    edges_.clear();
    resources_.clear();
    resident_bytes = 0.0;
  }

  std::size_t task_count() const { return tasks_.size(); }
  std::size_t resource_count() const { return resources_.size(); }
  const Task& task(TaskId id) const { return tasks_[id]; }
  const std::string& resource_name(ResourceId id) const { return resources_[id]; }
  // How many tasks each task waits for.
  std::vector<std::size_t> predecessor_counts() const;
  void predecessor_counts(std::vector<std::size_t>& counts) const;  // the same, into `counts`
  SuccessorGraph successors() const;
  // Memory held before the first task (model states resident for the whole step).
  double resident_bytes = 0.0;

  // Throws std::logic_error when the dependencies contain a cycle (a builder bug).
  void check_acyclic() const;

 private:
  [[noreturn]] static void unknown_resource();
  [[noreturn]] static void unknown_task();

  std::vector<Task> tasks_;
  std::vector<std::pair<TaskId, TaskId>> edges_;  // (earlier, later)
  std::vector<std::string> resources_;
};

}  // namespace preflight::engine
