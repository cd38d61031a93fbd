#include "simulator/economics/expected_run.hpp"

#include <cmath>

namespace preflight {

namespace {

double expected_segment_hours(double work_hours, double rate_per_hour, double restart_hours) {
  if (rate_per_hour <= 0.0) return work_hours;
  return (1.0 / rate_per_hour + restart_hours) * std::expm1(rate_per_hour * work_hours);
}

}  // namespace

double expected_run_hours(const RunInputs& in) {
  const double rate = in.interruptions.job_rate_per_hour(in.nodes);
  const double step_h = in.step_seconds / 3600.0;
  const double restart_h = (in.restart_seconds + in.checkpoint.read_seconds) / 3600.0;
  if (in.checkpoint.interval_steps <= 0 || in.checkpoint.interval_steps >= in.steps) {
    return expected_segment_hours(static_cast<double>(in.steps) * step_h, rate, restart_h);
  }
  // Every segment but the last ends with a checkpoint stall; the last ends the run.
  const std::int64_t full = (in.steps - 1) / in.checkpoint.interval_steps;
  const std::int64_t last_steps = in.steps - full * in.checkpoint.interval_steps;
  const double segment_h = static_cast<double>(in.checkpoint.interval_steps) * step_h + in.checkpoint.stall_seconds / 3600.0;
  return static_cast<double>(full) * expected_segment_hours(segment_h, rate, restart_h) +
         expected_segment_hours(static_cast<double>(last_steps) * step_h, rate, restart_h);
}

}  // namespace preflight
