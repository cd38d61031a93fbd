#include "simulator/engine/event_engine.hpp"

#include <functional>
#include <queue>
#include <stdexcept>

namespace preflight::engine {

namespace {

struct Completion {
  double time;
  TaskId task;
  bool operator>(const Completion& o) const { return time != o.time ? time > o.time : task > o.task; }
};

using ReadyQueue = std::priority_queue<TaskId, std::vector<TaskId>, std::greater<>>;

}  // namespace

Schedule run(const TaskGraph& g, const std::vector<Observer*>& observers) {
  const std::size_t n = g.task_count();
  Schedule s;
  s.timings.assign(n, {});
  s.busy_seconds.assign(g.resource_count(), 0.0);
  std::vector<std::size_t> waiting = g.predecessor_counts();
  const SuccessorGraph successors = g.successors();
  std::vector<ReadyQueue> ready(g.resource_count());
  std::vector<char> busy(g.resource_count(), 0);  // not vector<bool>: tested at every event
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> running;

  for (TaskId t = 0; t < n; ++t) {
    if (waiting[t] == 0) ready[g.task(t).resource].push(t);
  }
  auto start_idle = [&](double now) {
    for (ResourceId r = 0; r < ready.size(); ++r) {
      if (busy[r] || ready[r].empty()) continue;
      const TaskId t = ready[r].top();
      ready[r].pop();
      busy[r] = 1;
      s.timings[t] = {now, now + g.task(t).seconds};
      s.busy_seconds[r] += g.task(t).seconds;
      for (Observer* o : observers) o->task_started(g, t, now);
      running.push({now + g.task(t).seconds, t});
    }
  };

  std::size_t done = 0;
  double now = 0.0;
  start_idle(now);
  while (!running.empty()) {
    const Completion c = running.top();
    running.pop();
    now = c.time;
    busy[g.task(c.task).resource] = 0;
    ++done;
    for (Observer* o : observers) o->task_ended(g, c.task, now);
    for (auto [it, end] = boost::adjacent_vertices(c.task, successors); it != end; ++it) {
      const TaskId next = *it;
      if (--waiting[next] == 0) ready[g.task(next).resource].push(next);
    }
    // Finish every completion at this instant before starting anything, so the lowest ready id wins.
    if (running.empty() || running.top().time > now) start_idle(now);
  }
  if (done != n) throw std::logic_error("the step graph has a dependency cycle");
  s.makespan = now;
  for (Observer* o : observers) o->finished(g, now);
  return s;
}

}  // namespace preflight::engine
