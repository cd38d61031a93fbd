#pragma once
// A step as a graph of tasks: each task runs on one resource (a GPU stream, a link, a copy engine,
// the CPU, an NVMe drive) for a fixed duration, after the tasks it depends on. Memory is allocated
// when a task starts and freed when it ends. The graph knows nothing about transformers; the
// strategy builders (simulator/strategy/) fill it, the engine (event_engine.hpp) runs it.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

// GCC 12 with the sanitizers reports -Wmaybe-uninitialized inside boost::optional as used by
// boost/graph/named_graph.hpp (a false positive in a system header's inlined code).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/adjacency_list.hpp>
#pragma GCC diagnostic pop

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

class TaskGraph {
 public:
  TaskGraph() : graph_(std::make_unique<Graph>()) {}
  TaskGraph(const TaskGraph& other)
      : resident_bytes(other.resident_bytes), graph_(std::make_unique<Graph>(*other.graph_)), resources_(other.resources_) {}
  TaskGraph& operator=(const TaskGraph& other) {
    if (this != &other) *this = TaskGraph(other);
    return *this;
  }
  // boost::adjacency_list has no move (and its swap copies), so the graph lives behind a pointer
  // that moves for free: a built step graph changes hands without copying its edge lists.
  TaskGraph(TaskGraph&&) noexcept = default;
  TaskGraph& operator=(TaskGraph&&) noexcept = default;

  ResourceId add_resource(std::string name);
  TaskId add_task(const Task& task);
  void depends(TaskId later, TaskId earlier);  // `later` starts only after `earlier` ends

  std::size_t task_count() const { return boost::num_vertices(*graph_); }
  std::size_t resource_count() const { return resources_.size(); }
  const Task& task(TaskId id) const { return (*graph_)[id]; }
  const std::string& resource_name(ResourceId id) const { return resources_[id]; }
  // Calls f(successor) for each task that depends on `id` (no allocation: the engine's hot path).
  template <typename F>
  void for_each_successor(TaskId id, F&& f) const {
    for (auto [it, end] = boost::adjacent_vertices(id, *graph_); it != end; ++it) f(static_cast<TaskId>(*it));
  }
  // How many tasks each task waits for (one pass over the edges).
  std::vector<std::size_t> predecessor_counts() const;
  // Memory held before the first task (model states resident for the whole step).
  double resident_bytes = 0.0;

  // Throws std::logic_error when the dependencies contain a cycle (a builder bug).
  void check_acyclic() const;

 private:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, Task>;
  std::unique_ptr<Graph> graph_;
  std::vector<std::string> resources_;
};

}  // namespace preflight::engine
