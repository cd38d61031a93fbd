#include "simulator/economics/expected_run.hpp"

#include "simulator/economics/step_time_uncertainty.hpp"

#include <algorithm>
#include <cmath>

namespace preflight {

RunSegments run_segments(const RunInputs& in) {
  const double step_h = in.step_seconds / 3600.0;
  RunSegments s;
  if (in.checkpoint.interval_steps <= 0 || in.checkpoint.interval_steps >= in.steps) {
    s.last_hours = static_cast<double>(in.steps) * step_h;
    return s;
  }
  // Every segment but the last ends with a checkpoint stall; the last ends the run.
  s.full = (in.steps - 1) / in.checkpoint.interval_steps;
  s.segment_hours = static_cast<double>(in.checkpoint.interval_steps) * step_h + in.checkpoint.stall_seconds / 3600.0;
  s.last_hours = static_cast<double>(in.steps - s.full * in.checkpoint.interval_steps) * step_h;
  return s;
}

double restart_hours(const RunInputs& in) { return (in.restart_seconds + in.checkpoint.read_seconds) / 3600.0; }

SegmentMoments segment_moments(double work_hours, double rate, double restart, double wait) {
  SegmentMoments m;
  m.mean = m.billed = work_hours;
  if (rate <= 0.0 || work_hours <= 0.0) return m;
  const double q = -std::expm1(-rate * work_hours);
  const double p = 1.0 - q;
  m.failure_probability = q;
  m.log_failure_probability = std::log(q);
  // Written without differences of large terms, so small rates keep their precision.
  m.mean_loss = 1.0 / rate - work_hours * p / q;
  m.loss_variance = std::max(0.0, 1.0 / (rate * rate) - work_hours * work_hours * p / (q * q));
  m.interruptions = std::expm1(rate * work_hours);  // q / p
  const double attempt = m.mean_loss + wait + restart;
  m.mean += m.interruptions * attempt;  // = (1/rate + W + R)(e^(rate s) - 1)
  m.billed += m.interruptions * (m.mean_loss + restart);
  // An exponential wait's variance is its mean squared.
  m.variance = m.interruptions * (m.loss_variance + wait * wait) + (q / (p * p)) * attempt * attempt;
  return m;
}

namespace {

// The run's full segments and its last, each under the job's rate, restart and wait.
template <class Field>
double over_segments(const RunInputs& in, Field field) {
  const double rate = in.interruptions.job_rate_per_hour(in.nodes);
  const RunSegments s = run_segments(in);
  return static_cast<double>(s.full) * field(segment_moments(s.segment_hours, rate, restart_hours(in), in.reacquire_hours)) +
         field(segment_moments(s.last_hours, rate, restart_hours(in), in.reacquire_hours));
}

}  // namespace

double expected_run_hours(const RunInputs& in) {
  return over_segments(in, [](const SegmentMoments& m) { return m.mean; });
}

double expected_interruptions(const RunInputs& in) {
  return over_segments(in, [](const SegmentMoments& m) { return m.interruptions; });
}

double run_hours_variance(const RunInputs& in) {
  return over_segments(in, [](const SegmentMoments& m) { return m.variance; });
}

double expected_billed_hours(const RunInputs& in) {
  return over_segments(in, [](const SegmentMoments& m) { return m.billed; });
}

double run_horizon_hours(const RunInputs& in) { return std::max(100.0 * failure_free_hours(in), 24.0 * 365.0); }

double expected_run_usd(const RunInputs& in) {
  return expected_billed_hours(in) * in.usd_per_hour + expected_run_hours(in) * in.storage_usd_per_hour + in.fixed_usd;
}

double monte_carlo_cost_bound(const RunInputs& given) {
  // Few groups: the bound is asked for tens of thousands of candidates.
  constexpr int kBins = 5;
  RunInputs in = given;
  double mean = 0.0;
  const std::vector<double> floors = step_time_multiplier_floors(given.step_interval, kBins);
  for (const double m : floors) {
    in.step_seconds = given.step_seconds * m;
    mean += expected_run_usd(in);
  }
  return std::max(0.0, mean / static_cast<double>(floors.size()));
}

double completion_probability_bound(const RunInputs& given, double deadline_hours) {
  // A replayed trace is not memoryless; the fallback policy changes the run's law: no bound.
  if (!given.interruptions.memoryless() || given.fallback_usd_per_hour > 0.0) return 1.0;
  // The Monte Carlo mixes runs at several step times; the fastest stratum's bound holds for each (a
  // run's hours grow with its step time), so for their mixture too.
  RunInputs in = given;
  in.step_seconds *= fastest_step_time_multiplier(given.step_interval);
  const double gap = expected_run_hours(in) + given.start_delay_hours + given.startup_hours - deadline_hours;
  if (gap <= 0.0) return 1.0;
  const double variance = run_hours_variance(in);
  if (!std::isfinite(variance)) return 1.0;  // a segment that practically never ends: no bound
  return variance / (variance + gap * gap);
}

}  // namespace preflight
