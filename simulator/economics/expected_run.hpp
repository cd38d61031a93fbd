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

double expected_run_hours(const RunInputs& in);

// The variance of the run's wall time under the same model. Per segment the time is the work s plus
// N failed attempts, N geometric with success probability e^(-lambda s), each attempt an exponential
// truncated to [0, s] plus R; segments are independent, so variances add.
double run_hours_variance(const RunInputs& in);

// An upper bound on the probability of finishing within `deadline_hours` (Cantelli's one-sided
// inequality from the mean and variance above): lets a search reject a plan without a Monte Carlo
// when even the bound is below the required probability. Exact only for memoryless interruptions;
// 1 (no bound) for replayed traces or when the deadline is past the mean.
double completion_probability_bound(const RunInputs& in, double deadline_hours);

}  // namespace preflight
