#pragma once
// Runs a task graph as a discrete-event simulation: a task becomes ready when its dependencies have
// ended; each resource serves one ready task at a time, the lowest task id first (the order the
// builder issued them, like a CUDA stream), so ties are deterministic. Observers see every start
// and end; the engine keeps no statistics of its own.

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

Schedule run(const TaskGraph& graph, const std::vector<Observer*>& observers = {});

}  // namespace preflight::engine
