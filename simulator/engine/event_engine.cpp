#include "simulator/engine/event_engine.hpp"

#include <bit>
#include <cstdint>
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
  // Resources that may be idle with a task ready (a task became ready there, or its task ended):
  // only these are looked at when tasks start, in id order, as a scan of every resource would.
  std::vector<std::uint64_t> candidates((g.resource_count() + 63) / 64, 0);
  const auto mark = [&](ResourceId r) { candidates[r / 64] |= std::uint64_t{1} << (r % 64); };
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> running;

  for (TaskId t = 0; t < n; ++t) {
    if (waiting[t] == 0) {
      ready[g.task(t).resource].push(t);
      mark(g.task(t).resource);
    }
  }
  auto start_idle = [&](double now) {
    for (std::size_t w = 0; w < candidates.size(); ++w) {
      for (std::uint64_t bits = candidates[w]; bits != 0; bits &= bits - 1) {
        const ResourceId r = static_cast<ResourceId>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
        if (busy[r] || ready[r].empty()) continue;
        const TaskId t = ready[r].top();
        ready[r].pop();
        busy[r] = 1;
        s.timings[t] = {now, now + g.task(t).seconds};
        s.busy_seconds[r] += g.task(t).seconds;
        for (Observer* o : observers) o->task_started(g, t, now);
        running.push({now + g.task(t).seconds, t});
      }
      candidates[w] = 0;  // busy now, or nothing ready: marked again when that changes
    }
  };

  std::size_t done = 0;
  double now = 0.0;
  start_idle(now);
  while (!running.empty()) {
    const Completion c = running.top();
    running.pop();
    now = c.time;
    const ResourceId freed = g.task(c.task).resource;
    busy[freed] = 0;
    mark(freed);
    ++done;
    for (Observer* o : observers) o->task_ended(g, c.task, now);
    for (auto [it, end] = boost::adjacent_vertices(c.task, successors); it != end; ++it) {
      const TaskId next = *it;
      if (--waiting[next] == 0) {
        ready[g.task(next).resource].push(next);
        mark(g.task(next).resource);
      }
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
