#pragma once
// What a whole production run sustains of the simulated step's throughput. A simulated step is a
// benchmark step: the kernels, collectives and host time of one step on healthy machines. A run of
// weeks on hundreds of GPUs also spends time the step does not show and the fault model does not
// price: evaluations and logging, data-loader and file-system stalls, slow GPUs, hosts and links that
// hold back every synchronous step (stragglers), loss spikes rolled back, planned restarts for
// configuration changes (the Llama 3 report counts 47 planned interruptions beside its 419 faults),
// and a stack that is not the best configuration the search finds. Published whole pre-training runs
// took 1.3-1.5x the GPU-hours a step model predicts; this is that gap, as one factor fitted to them
// (planner/whole_run/sustained_share_fit.cpp, shipped in catalogs/fitted/step_model.json) with its
// held-out error: each family of runs predicted by the factor fitted to the others.

#include <string>

#include "simulator/spec/step_time_interval.hpp"

namespace preflight {

// The share's plausible range: a run that sustains under half of a benchmark step is a broken run,
// not a production one; above 1 a run would beat its own step.
inline constexpr double kMinSustainedShare = 0.5;
inline constexpr double kMaxSustainedShare = 1.0;

struct SustainedThroughput {
  double share = 1.0;  // sustained over simulated throughput, the fitted median
  // The multiplier a whole run's stepping time takes (its 10th and 90th percentiles, about
  // 1 / share): the spread of the held-out families' errors. rows 0: not fitted (the step alone).
  StepTimeInterval interval;
  int families = 0;
  // Each family predicted by the share fitted without it, over every run: median |error| and mean
  // signed error in GPU-hours (predicted over published, minus 1).
  double held_out_median_absolute = 0.0;
  double held_out_mean_signed = 0.0;
  std::string basis;  // the runs it was fitted to
};

}  // namespace preflight
