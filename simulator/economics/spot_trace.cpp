#include "simulator/economics/spot_trace.hpp"

#include <algorithm>

#include "simulator/economics/job_exposure.hpp"

namespace preflight {

int SpotTrace::total_removals() const {
  int total = 0;
  for (const TraceEvent& e : events) total += e.removals;
  return total;
}

double SpotTrace::removals_per_node_hour() const {
  return node_hours > 0.0 ? total_removals() / node_hours : 0.0;
}

double SpotTrace::per_node_hazard_per_hour() const {
  double hazard = 0.0;
  for (const TraceEvent& e : events) hazard += static_cast<double>(e.removals) / std::max(e.alive_before, 1);
  return span_hours > 0.0 ? hazard / span_hours : 0.0;
}

SpotTrace build_trace(std::string name, const std::vector<FleetChange>& changes) {
  SpotTrace t;
  t.name = std::move(name);
  int alive = 0;
  double last = changes.empty() ? 0.0 : changes.front().hours;
  const double start = last;
  for (const FleetChange& c : changes) {
    t.node_hours += alive * (c.hours - last);
    last = c.hours;
    if (c.removed > 0 && alive > 0) t.events.push_back({c.hours - start, c.removed, alive});
    alive += c.added - c.removed;
    t.max_nodes = std::max(t.max_nodes, alive);
  }
  t.span_hours = last - start;
  t.exposures = std::make_shared<JobExposureCache>();
  return t;
}

}  // namespace preflight
