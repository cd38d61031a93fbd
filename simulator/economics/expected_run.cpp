#include "simulator/economics/expected_run.hpp"

#include <cmath>

namespace preflight {

namespace {

double expected_segment_hours(double work_hours, double rate_per_hour, double restart_hours) {
  if (rate_per_hour <= 0.0) return work_hours;
  return (1.0 / rate_per_hour + restart_hours) * std::expm1(rate_per_hour * work_hours);
}

// Variance of one segment's wall time: T = s + sum_{i<=N} (Y_i + R), N ~ Geometric(p = e^(-lambda s))
// failures before the success, Y_i ~ Exp(lambda) truncated to [0, s]. Compound sum:
// Var T = E[N] Var X + Var N E[X]^2 with X = Y + R.
double segment_variance(double work_hours, double rate, double restart_hours) {
  if (rate <= 0.0 || work_hours <= 0.0) return 0.0;
  const double ls = rate * work_hours;
  const double fail = -std::expm1(-ls);  // 1 - p
  const double p = 1.0 - fail;
  const double ey = 1.0 / rate - work_hours * p / fail;
  const double ey2 = (2.0 / (rate * rate) - p * (work_hours * work_hours + 2.0 * work_hours / rate + 2.0 / (rate * rate))) / fail;
  const double var_x = ey2 - ey * ey;
  const double ex = ey + restart_hours;
  const double en = fail / p;
  const double var_n = fail / (p * p);
  return en * var_x + var_n * ex * ex;
}

// The run as segments: `full` segments of interval steps plus the checkpoint stall, then the last.
struct Segments {
  std::int64_t full = 0;
  double segment_hours = 0.0;
  double last_hours = 0.0;
};

Segments segments(const RunInputs& in) {
  const double step_h = in.step_seconds / 3600.0;
  Segments s;
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

}  // namespace

double expected_run_hours(const RunInputs& in) {
  const double rate = in.interruptions.job_rate_per_hour(in.nodes);
  const Segments s = segments(in);
  return static_cast<double>(s.full) * expected_segment_hours(s.segment_hours, rate, restart_hours(in)) +
         expected_segment_hours(s.last_hours, rate, restart_hours(in));
}

double run_hours_variance(const RunInputs& in) {
  const double rate = in.interruptions.job_rate_per_hour(in.nodes);
  const Segments s = segments(in);
  return static_cast<double>(s.full) * segment_variance(s.segment_hours, rate, restart_hours(in)) +
         segment_variance(s.last_hours, rate, restart_hours(in));
}

double completion_probability_bound(const RunInputs& in, double deadline_hours) {
  if (!in.interruptions.memoryless()) return 1.0;
  const double gap = expected_run_hours(in) - deadline_hours;
  if (gap <= 0.0) return 1.0;
  const double variance = run_hours_variance(in);
  return variance / (variance + gap * gap);
}

}  // namespace preflight
