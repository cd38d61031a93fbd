#include "simulator/engine/event_engine.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <stdexcept>

namespace preflight::engine {

Schedule run(const TaskGraph& g, const std::vector<Observer*>& observers) {
  Schedule s;
  Workspace w;
  run(g, observers, s, w);
  return s;
}

void run(const TaskGraph& g, const std::vector<Observer*>& observers, Schedule& s, Workspace& w) {
  const std::size_t n = g.task_count();
  const std::size_t resources = g.resource_count();
  s.timings.assign(n, {});
  s.busy_seconds.assign(resources, 0.0);
  s.makespan = 0.0;
  g.predecessor_counts(w.waiting);
  const SuccessorGraph successors = g.successors();
  if (w.ready.size() < resources) w.ready.resize(resources);
  for (std::size_t r = 0; r < resources; ++r) w.ready[r].clear();
  w.busy.assign(resources, 0);
  // Resources that may be idle with a task ready (a task became ready there, or its task ended):
  // only these are looked at when tasks start, in id order, as a scan of every resource would.
  w.candidates.assign((resources + 63) / 64, 0);
  w.running.clear();
  std::vector<std::size_t>& waiting = w.waiting;
  std::vector<std::vector<TaskId>>& ready = w.ready;
  std::vector<char>& busy = w.busy;
  std::vector<std::uint64_t>& candidates = w.candidates;
  std::vector<Workspace::Completion>& running = w.running;
  const auto mark = [&](ResourceId r) { candidates[r / 64] |= std::uint64_t{1} << (r % 64); };
  // Each resource's ready tasks, lowest id on top; the running tasks, earliest end (then lowest id) on top.
  const auto make_ready = [&](TaskId t) {
    std::vector<TaskId>& q = ready[g.task(t).resource];
    q.push_back(t);
    std::push_heap(q.begin(), q.end(), std::greater<>());
    mark(g.task(t).resource);
  };

  for (TaskId t = 0; t < n; ++t) {
    if (waiting[t] == 0) make_ready(t);
  }
  auto start_idle = [&](double now) {
    for (std::size_t word = 0; word < candidates.size(); ++word) {
      for (std::uint64_t bits = candidates[word]; bits != 0; bits &= bits - 1) {
        const ResourceId r = static_cast<ResourceId>(word * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
        std::vector<TaskId>& q = ready[r];
        if (busy[r] || q.empty()) continue;
        std::pop_heap(q.begin(), q.end(), std::greater<>());
        const TaskId t = q.back();
        q.pop_back();
        busy[r] = 1;
        s.timings[t] = {now, now + g.task(t).seconds};
        s.busy_seconds[r] += g.task(t).seconds;
        for (Observer* o : observers) o->task_started(g, t, now);
        running.push_back({now + g.task(t).seconds, t});
        std::push_heap(running.begin(), running.end(), std::greater<>());
      }
      candidates[word] = 0;  // busy now, or nothing ready: marked again when that changes
    }
  };

  std::size_t done = 0;
  double now = 0.0;
  start_idle(now);
  while (!running.empty()) {
    std::pop_heap(running.begin(), running.end(), std::greater<>());
    const Workspace::Completion c = running.back();
    running.pop_back();
    now = c.time;
    const ResourceId freed = g.task(c.task).resource;
    busy[freed] = 0;
    mark(freed);
    ++done;
    for (Observer* o : observers) o->task_ended(g, c.task, now);
    for (auto [it, end] = boost::adjacent_vertices(c.task, successors); it != end; ++it) {
      if (--waiting[*it] == 0) make_ready(*it);
    }
    // Finish every completion at this instant before starting anything, so the lowest ready id wins.
    if (running.empty() || running.front().time > now) start_idle(now);
  }
  if (done != n) throw std::logic_error("the step graph has a dependency cycle");
  s.makespan = now;
  for (Observer* o : observers) o->finished(g, now);
}

}  // namespace preflight::engine
