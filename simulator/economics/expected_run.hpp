#pragma once
// The mean wall time of a run in closed form, without a Monte Carlo: what the planner ranks
// thousands of candidates by before it spends a Monte Carlo on the few that can win.
//
// Restart model (e.g. Duda 1983): with Poisson interruptions at rate lambda and a downtime R during
// which nothing fails, a segment of s hours of work between checkpoints takes
// (1/lambda + R)(e^(lambda s) - 1) hours on average. A replayed trace enters with its mean rate, so
// for traces this is an approximation the Monte Carlo then replaces.

#include "simulator/economics/run_monte_carlo.hpp"

namespace preflight {

// The run as segments: `full` segments of the checkpoint interval plus its stall, then the last.
struct RunSegments {
  std::int64_t full = 0;
  double segment_hours = 0.0;
  double last_hours = 0.0;
};
RunSegments run_segments(const RunInputs& in);

// Hours of restart downtime per interruption: reprovision and warm-up plus the checkpoint reload
// (billed: the machines are held); the wait for capacity comes before it (reacquire_hours).
double restart_hours(const RunInputs& in);

// One segment of `work_hours` under Poisson interruptions at `rate` per hour with `restart_hours` of
// uninterruptible downtime each, after a wait W_i ~ Exp(mean `wait_hours`) for capacity:
// T = s + sum_{i<=N} (Y_i + W_i + R), N ~ Geometric(p = e^(-rate s)) failures before the success,
// Y_i ~ Exp(rate) truncated to [0, s].
struct SegmentMoments {
  double failure_probability = 0.0;  // q = 1 - e^(-rate s), per attempt
  double log_failure_probability = 0.0;  // ln q, which every geometric draw of the Monte Carlo divides by
  double mean_loss = 0.0;            // E[Y]
  double loss_variance = 0.0;        // Var Y
  double interruptions = 0.0;        // E[N] = e^(rate s) - 1
  double mean = 0.0;                 // E[T]
  double billed = 0.0;               // E[T] less the waits: s + E[N] (E[Y] + R)
  double variance = 0.0;             // Var T = E[N] (Var Y + Var W) + Var N (E[Y] + E[W] + R)^2
};
SegmentMoments segment_moments(double work_hours, double rate, double restart_hours, double wait_hours = 0.0);

double expected_run_hours(const RunInputs& in);
// The horizon past which a Monte Carlo history is cut off as one that never ends: 100 times the
// failure-free hours, at least a year. A run expected past it is not a plan.
double run_horizon_hours(const RunInputs& in);
// Hours the job holds (and pays for) its machines on average: the run less the waits for capacity.
double expected_billed_hours(const RunInputs& in);
// The mean cost in closed form: machines, storage and egress (spot_with_fallback: its spot run,
// an estimate the Monte Carlo replaces).
double expected_run_usd(const RunInputs& in);
// Interruptions per run on average.
double expected_interruptions(const RunInputs& in);

// The variance of the run's wall time under the same model. Per segment the time is the work s plus
// N failed attempts, N geometric with success probability e^(-lambda s), each attempt an exponential
// truncated to [0, s] plus R; segments are independent, so variances add.
double run_hours_variance(const RunInputs& in);

// A lower bound on the mean cost of a run under Poisson interruptions (or none) over the Monte Carlo's
// step-time strata: the closed-form mean taken at the floor of each of a few groups of them
// (step_time_multiplier_floors; the cost rises with the step time). The Monte Carlo estimates that
// mean; the bound is on the mean itself. Not for spot_with_fallback or a replayed trace, whose closed
// forms are approximations.
double monte_carlo_cost_bound(const RunInputs& in);

// An upper bound on the probability of finishing within `deadline_hours` (Cantelli's one-sided
// inequality from the mean and variance above): lets a search reject a plan without a Monte Carlo
// when even the bound is below the required probability. Exact only for memoryless interruptions;
// 1 (no bound) for replayed traces or when the deadline is past the mean.
double completion_probability_bound(const RunInputs& in, double deadline_hours);

}  // namespace preflight
