#pragma once
// A run's interruptions split by kind, as every format reports them: hardware and software faults
// (any pricing) apart from spot reclaims. The Monte Carlo counts them together; each kind is its
// share of the job's rate (both Poisson, or a trace's mean rate beside the faults).

#include <string>

#include "planner/run/run_estimate.hpp"

namespace preflight {

double faults_expected(const RunEstimate& run);
double reclaims_expected(const RunEstimate& run);
// "0.31 faults and 2.1 spot reclaims expected", "0.02 faults expected (no spot reclaims on demand)".
std::string interruptions_text(const RunEstimate& run);

}  // namespace preflight
