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

}  // namespace preflight
