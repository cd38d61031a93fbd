#pragma once
// spot_with_fallback: run on spot while the deadline's slack allows, on demand when it does not.
// The policy is Uniform Progress (Wu et al., "Can't Be Late: Optimizing Spot Instance Savings under
// Deadlines", NSDI'24, section 5), with its rules as the paper states them, d the restart overhead:
//   1. while spot capacity is away and progress is behind the uniform line t x work / deadline, run
//      on demand to catch up;
//   2. take spot whenever it is available, and stay on it until it is reclaimed;
//   3. (the hysteresis of rule 3 is subsumed here: on-demand stints end at the first checkpoint
//      after spot capacity returns, where a switch loses no work);
//   4. when idle and the time left is under the work left plus 2d, take on-demand to the end (here
//      plus one checkpoint interval: an interruption loses the work since the last checkpoint, where
//      the paper's jobs lose only d).
// Switches happen at checkpoints (none of the run's work is lost by them); each start of a stint pays
// the restart (reprovision, warm-up, reload) on the machines it starts.

#include "simulator/economics/run_monte_carlo.hpp"
#include "simulator/economics/run_trial.hpp"

namespace preflight {

// A trial interrupted this often gives up on spot and finishes on demand: bounds the walk of a run
// whose spot market is hopeless (the slack would otherwise be spent one restart at a time).
inline constexpr int kFallbackMaxInterruptions = 10000;

// One trial of `in` (deadline_hours > 0, fallback_usd_per_hour > 0) under the policy above.
RunTrial fallback_trial(const RunInputs& in, TrialRng& rng);

}  // namespace preflight
