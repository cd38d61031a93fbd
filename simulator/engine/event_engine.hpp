#pragma once
// Runs a task graph as a discrete-event simulation: a task becomes ready when its dependencies have
// ended; each resource serves one ready task at a time, the lowest task id first (the order the
// builder issued them, like a CUDA stream), so ties are deterministic. Observers see every start
// and end; the engine keeps no statistics of its own.

#include <cstdint>
#include <vector>

#include "simulator/engine/task_graph.hpp"

namespace preflight::engine {

struct TaskTiming {
  double start = 0.0;
  double end = 0.0;
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void task_started(const TaskGraph&, TaskId, double /*seconds*/) {}
  virtual void task_ended(const TaskGraph&, TaskId, double /*seconds*/) {}
  virtual void finished(const TaskGraph&, double /*makespan_seconds*/) {}
};

struct Schedule {
  std::vector<TaskTiming> timings;  // by task id
  double makespan = 0.0;
  std::vector<double> busy_seconds;  // by resource
};

// The engine's own lists, kept by a caller that runs graph after graph so that their memory is
// reused rather than asked for again each time (what they hold between runs means nothing).
struct Workspace {
  struct Completion {
    double time;
    TaskId task;
    bool operator>(const Completion& o) const { return time != o.time ? time > o.time : task > o.task; }
  };
  std::vector<std::size_t> waiting;                  // by task: dependencies not yet ended
  std::vector<std::vector<TaskId>> ready;            // by resource: a min-heap of ready task ids
  std::vector<char> busy;                            // by resource (not vector<bool>: tested at every event)
  std::vector<std::uint64_t> candidates;             // resources that may be idle with a task ready
  std::vector<Completion> running;                   // a min-heap of the running tasks' ends
};

Schedule run(const TaskGraph& graph, const std::vector<Observer*>& observers = {});
// The same into `schedule`, with `workspace`'s lists.
void run(const TaskGraph& graph, const std::vector<Observer*>& observers, Schedule& schedule, Workspace& workspace);

}  // namespace preflight::engine
