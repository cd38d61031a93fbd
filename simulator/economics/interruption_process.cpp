#include "simulator/economics/interruption_process.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "simulator/economics/run_defaults.hpp"

namespace preflight {

namespace rd = run_defaults;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Probability that at least one of the job's N nodes is among k removed from a fleet of F alive
// nodes (job nodes placed uniformly among them): 1 - C(F-N, k) / C(F, k).
double hit_probability(int nodes, int removals, int alive) {
  if (nodes >= alive || removals >= alive) return 1.0;
  double miss = 1.0;
  for (int i = 0; i < removals; ++i) miss *= static_cast<double>(alive - nodes - i) / (alive - i);
  return 1.0 - std::max(miss, 0.0);
}

}  // namespace

double uniform01(TrialRng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double bucket_interruptions_per_node_hour(const std::optional<std::string>& bucket) {
  static const char* names[] = {"<5%", "5-10%", "10-15%", "15-20%", ">20%"};
  int index = rd::kDefaultBucketIndex;
  for (int i = 0; i < 5; ++i) {
    if (bucket && *bucket == names[i]) index = i;
  }
  return -std::log(1.0 - rd::kBucketMonthlyFraction[index]) / rd::kHoursPerMonth;
}

InterruptionProcess InterruptionProcess::none() { return {}; }

InterruptionProcess InterruptionProcess::poisson(double per_node_per_hour) {
  InterruptionProcess p;
  p.kind_ = per_node_per_hour > 0.0 ? Kind::poisson : Kind::none;
  p.rate_ = per_node_per_hour;
  return p;
}

InterruptionProcess InterruptionProcess::replay(const SpotTrace* trace) {
  InterruptionProcess p;
  p.kind_ = Kind::replay;
  p.trace_ = trace;
  return p;
}

InterruptionProcess::Cursor InterruptionProcess::start_trial(TrialRng& rng) const {
  Cursor c;
  if (kind_ != Kind::replay) return c;
  c.offset_hours = uniform01(rng) * trace_->span_hours;
  const auto& events = trace_->events;
  c.event = static_cast<std::size_t>(std::upper_bound(events.begin(), events.end(), c.offset_hours,
                                                      [](double h, const TraceEvent& e) { return h < e.hours; }) -
                                     events.begin());
  return c;
}

double InterruptionProcess::next(double hours, int nodes, Cursor& c, TrialRng& rng) const {
  switch (kind_) {
    case Kind::none: return kInfinity;
    case Kind::poisson: return hours - std::log1p(-uniform01(rng)) / (rate_ * nodes);
    case Kind::replay: {
      // Walk the looped trace from the cursor; each removal event hits the job with the
      // hypergeometric probability. Events before `hours` (during a restart) are skipped.
      const auto& events = trace_->events;
      const double span = trace_->span_hours;
      if (events.empty() || span <= 0.0) return kInfinity;
      const std::int64_t max_loop = c.loop + 1000;  // a trace that (almost) never hits this job size
      for (; c.loop < max_loop; ++c.loop, c.event = 0) {
        for (; c.event < events.size(); ++c.event) {
          const TraceEvent& e = events[c.event];
          const double t = static_cast<double>(c.loop) * span + e.hours - c.offset_hours;
          if (t <= hours) continue;
          if (uniform01(rng) < hit_probability(nodes, e.removals, e.alive_before)) {
            ++c.event;
            return t;
          }
        }
      }
      return kInfinity;
    }
  }
  return kInfinity;
}

double InterruptionProcess::job_rate_per_hour(int nodes) const {
  switch (kind_) {
    case Kind::none: return 0.0;
    case Kind::poisson: return rate_ * nodes;
    case Kind::replay: {
      double expected = 0.0;
      for (const TraceEvent& e : trace_->events) expected += hit_probability(nodes, e.removals, e.alive_before);
      return trace_->span_hours > 0.0 ? expected / trace_->span_hours : 0.0;
    }
  }
  return 0.0;
}

std::string InterruptionProcess::describe() const {
  switch (kind_) {
    case Kind::none: return "none";
    case Kind::poisson: return "poisson";
    case Kind::replay: return "trace " + trace_->name;
  }
  return "?";
}

}  // namespace preflight
