#include "simulator/economics/interruption_process.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "simulator/economics/job_exposure.hpp"
#include "simulator/economics/run_defaults.hpp"

namespace preflight {

namespace rd = run_defaults;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

double bucket_interruptions_per_node_hour(const std::optional<std::string>& bucket) {
  std::size_t index = rd::kDefaultBucketIndex;
  for (std::size_t i = 0; i < kSpotAdvisorBuckets.size(); ++i) {
    if (bucket && *bucket == kSpotAdvisorBuckets[i]) index = i;
  }
  return -std::log(1.0 - rd::kBucketMonthlyFraction[index]) / rd::kHoursPerMonth;
}

InterruptionProcess InterruptionProcess::none() { return {}; }

InterruptionProcess InterruptionProcess::poisson(double per_node_per_hour, double reclaim_fraction) {
  if (!(reclaim_fraction >= 0.0 && reclaim_fraction <= 1.0)) throw std::logic_error("a reclaim fraction outside [0, 1]");
  InterruptionProcess p;
  p.kind_ = per_node_per_hour > 0.0 ? Kind::poisson : Kind::none;
  p.rate_ = per_node_per_hour;
  p.reclaim_fraction_ = reclaim_fraction;
  return p;
}

namespace {

// (rate / f)(1 - (1 - f)^N): -expm1(N log1p(-f)) keeps its precision for small f; f -> 0 is N x rate.
double poisson_job_rate(double rate, double f, int nodes) {
  if (f <= 0.0) return rate * nodes;
  if (f >= 1.0) return rate;
  return rate / f * -std::expm1(static_cast<double>(nodes) * std::log1p(-f));
}

}  // namespace

InterruptionProcess InterruptionProcess::replay(const SpotTrace* trace, int nodes) {
  InterruptionProcess p;
  p.kind_ = Kind::replay;
  p.trace_ = trace;
  p.nodes_ = nodes;
  p.exposure_ = &exposure_of(*trace, nodes);
  return p;
}

void InterruptionProcess::check_nodes(int nodes) const {
  if (nodes != nodes_) {
    throw std::logic_error("a trace replayed for " + std::to_string(nodes_) + " nodes asked about " + std::to_string(nodes));
  }
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

InterruptionProcess InterruptionProcess::with_faults(double per_hour) const {
  if (!(per_hour >= 0.0) || !std::isfinite(per_hour)) throw std::logic_error("a fault rate that is not a finite number >= 0");
  InterruptionProcess p = *this;
  p.faults_ = per_hour;
  return p;
}

double InterruptionProcess::next(double hours, int nodes, Cursor& c, TrialRng& rng) const {
  switch (kind_) {
    case Kind::none: return faults_ > 0.0 ? hours + standard_exponential(rng) / faults_ : kInfinity;
    case Kind::poisson:
      // Two Poisson processes superposed are one, at the sum of their rates: one draw.
      if (c.rate_nodes != nodes) {
        c.rate_nodes = nodes;
        c.job_rate = poisson_job_rate(rate_, reclaim_fraction_, nodes) + faults_;
      }
      return hours + standard_exponential(rng) / c.job_rate;
    case Kind::replay: {
      check_nodes(nodes);
      if (faults_ <= 0.0) return next_replayed(hours, c, rng);
      // A fault first leaves the trace's events after it undrawn: the cursor goes back, and the
      // events after the restart are drawn afresh (each event's hit is an independent draw).
      const Cursor before = c;
      const double reclaim = next_replayed(hours, c, rng);
      const double fault = hours + standard_exponential(rng) / faults_;
      if (fault < reclaim) c = before;
      return std::min(reclaim, fault);
    }
  }
  return kInfinity;
}

// The looped trace from the cursor on: events at or before `hours` (during a restart) are passed
// over undrawn; each later event hits the job independently with its hit probability, so the first
// hit is where the hazard summed from the cursor first exceeds an exponential draw (memoryless: the
// draw may be spent event by event or all at once). A few events are walked; past them the hit is
// found by binary search within a pass and whole passes are skipped by division. Exact, and as cheap
// for a trace of a million events looped a thousand times as for ten events.
double InterruptionProcess::next_replayed(double hours, Cursor& c, TrialRng& rng) const {
  const JobExposure& exposure = *exposure_;
  const auto& events = trace_->events;
  const double span = trace_->span_hours;
  if (events.empty() || span <= 0.0 || exposure.loop_hazard() <= 0.0) return kInfinity;
  const auto time_of = [&](std::int64_t loop, std::size_t event) {
    return static_cast<double>(loop) * span + events[event].hours - c.offset_hours;
  };
  const auto wrap = [&] {
    if (c.event >= events.size()) {
      ++c.loop;
      c.event = 0;
    }
  };
  // A trial asks mostly for the next few events, so both searches first walk a few of them.
  constexpr int kWalked = 8;
  // Pass over what lies at or before `hours`: nothing, a restart's worth, or (searched) a long gap.
  wrap();
  for (int walked = 0; time_of(c.loop, c.event) <= hours; ++walked) {
    if (walked == kWalked) {
      const double position = hours + c.offset_hours;
      c.loop = static_cast<std::int64_t>(std::floor(position / span));
      c.event = static_cast<std::size_t>(std::upper_bound(events.begin(), events.end(), position - static_cast<double>(c.loop) * span,
                                                          [](double h, const TraceEvent& e) { return h < e.hours; }) -
                                         events.begin());
      wrap();
      break;
    }
    ++c.event;
    wrap();
  }
  // The first hit: the next few events drawn one by one, then where the hazard summed from the
  // cursor passes an exponential draw.
  for (int walked = 0; walked < kWalked; ++walked) {
    if (uniform01(rng) < exposure.hit[c.event]) {
      const double t = time_of(c.loop, c.event);
      ++c.event;
      return t;
    }
    ++c.event;
    wrap();
  }
  const std::vector<double>& h = exposure.cumulative_hazard;
  double budget = standard_exponential(rng);
  const double rest_of_pass = h.back() - h[c.event];
  if (budget >= rest_of_pass) {
    budget -= rest_of_pass;
    const double passes = std::floor(budget / exposure.loop_hazard());
    if (passes > 1e12) return kInfinity;  // never within any run
    budget -= passes * exposure.loop_hazard();
    c.loop += 1 + static_cast<std::int64_t>(passes);
    c.event = 0;
  }
  // The first event j >= c.event with h[j + 1] - h[c.event] > budget.
  const double target = h[c.event] + budget;
  std::size_t hit = static_cast<std::size_t>(std::upper_bound(h.begin() + static_cast<std::ptrdiff_t>(c.event) + 1, h.end(), target) - h.begin()) - 1;
  hit = std::min(hit, events.size() - 1);
  const double t = time_of(c.loop, hit);
  c.event = hit + 1;
  return t;
}

double InterruptionProcess::job_rate_per_hour(int nodes) const {
  switch (kind_) {
    case Kind::none: return faults_;
    case Kind::poisson: return poisson_job_rate(rate_, reclaim_fraction_, nodes) + faults_;
    case Kind::replay:
      check_nodes(nodes);
      return (trace_->span_hours > 0.0 ? exposure_->hits_per_loop / trace_->span_hours : 0.0) + faults_;
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
