#pragma once
// A recorded spot-capacity trace: when nodes of a fleet were removed, and how many were alive then.
// Replayed in the Monte Carlo, and summarised by the statistics its publishers report.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace preflight {

class JobExposureCache;  // job_exposure.hpp

struct TraceEvent {
  double hours = 0.0;       // since the start of the trace
  int removals = 0;         // nodes removed at this moment
  int alive_before = 0;     // fleet size just before the removals
};

struct SpotTrace {
  std::string name;
  std::vector<TraceEvent> events;  // removal events, in time order
  double span_hours = 0.0;
  double node_hours = 0.0;  // integral of the fleet size over the span
  int max_nodes = 0;

  int total_removals() const;
  int distinct_removal_times() const { return static_cast<int>(events.size()); }
  // Removals per node-hour of exposure (the maximum-likelihood Poisson rate; what the trace papers report).
  double removals_per_node_hour() const;
  // The hazard one given node sees, averaged over the span: sum(removals / alive) / span. A replayed
  // job node is a uniformly chosen alive node, so this is the Poisson rate whose mean matches replay.
  double per_node_hazard_per_hour() const;

  // What jobs of each size see of the events, worked out once per size (job_exposure.hpp) and
  // shared by the copies of this trace; build_trace sets it.
  std::shared_ptr<JobExposureCache> exposures;
};

// Builds a trace from a time-ordered list of fleet changes (+1 add, -1 remove per node) in hours.
struct FleetChange {
  double hours = 0.0;
  int added = 0;
  int removed = 0;
};
SpotTrace build_trace(std::string name, const std::vector<FleetChange>& changes);

}  // namespace preflight
