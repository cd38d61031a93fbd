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

SegmentMoments segment_moments(double work_hours, double rate, double restart) {
  SegmentMoments m;
  m.mean = work_hours;
  if (rate <= 0.0 || work_hours <= 0.0) return m;
  const double q = -std::expm1(-rate * work_hours);
  const double p = 1.0 - q;
  m.failure_probability = q;
  // Written without differences of large terms, so small rates keep their precision.
  m.mean_loss = 1.0 / rate - work_hours * p / q;
  m.loss_variance = std::max(0.0, 1.0 / (rate * rate) - work_hours * work_hours * p / (q * q));
  m.interruptions = std::expm1(rate * work_hours);  // q / p
  const double attempt = m.mean_loss + restart;
  m.mean += m.interruptions * attempt;  // = (1/rate + R)(e^(rate s) - 1)
  m.variance = m.interruptions * m.loss_variance + (q / (p * p)) * attempt * attempt;
  return m;
}

double expected_run_hours(const RunInputs& in) {
  const double rate = in.interruptions.job_rate_per_hour(in.nodes);
  const RunSegments s = run_segments(in);
  return static_cast<double>(s.full) * segment_moments(s.segment_hours, rate, restart_hours(in)).mean +
         segment_moments(s.last_hours, rate, restart_hours(in)).mean;
}

double expected_interruptions(const RunInputs& in) {
  const double rate = in.interruptions.job_rate_per_hour(in.nodes);
  const RunSegments s = run_segments(in);
  return static_cast<double>(s.full) * segment_moments(s.segment_hours, rate, restart_hours(in)).interruptions +
         segment_moments(s.last_hours, rate, restart_hours(in)).interruptions;
}

double run_hours_variance(const RunInputs& in) {
  const double rate = in.interruptions.job_rate_per_hour(in.nodes);
  const RunSegments s = run_segments(in);
  return static_cast<double>(s.full) * segment_moments(s.segment_hours, rate, restart_hours(in)).variance +
         segment_moments(s.last_hours, rate, restart_hours(in)).variance;
}

double completion_probability_bound(const RunInputs& given, double deadline_hours) {
  if (!given.interruptions.memoryless()) return 1.0;
  // The Monte Carlo mixes runs at several step times; the fastest stratum's bound holds for each (a
  // run's hours grow with its step time), so for their mixture too.
  RunInputs in = given;
  in.step_seconds *= fastest_step_time_multiplier(given.step_interval);
  const double gap = expected_run_hours(in) - deadline_hours;
  if (gap <= 0.0) return 1.0;
  const double variance = run_hours_variance(in);
  if (!std::isfinite(variance)) return 1.0;  // a segment that practically never ends: no bound
  return variance / (variance + gap * gap);
}

}  // namespace preflight
