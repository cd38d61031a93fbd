#pragma once
// The whole run as a distribution: a Monte Carlo over interruption histories. Each trial walks the
// run: compute between checkpoints, checkpoint stalls, interruptions that lose the work since the
// last checkpoint, a wait for capacity to come back (nothing held, nothing billed), then a restart
// (reprovision, reload, warm-up). Under spot_with_fallback a trial follows the Uniform Progress
// policy (spot_fallback.hpp). Trials run in parallel (oneTBB); each draws from its own generator
// seeded by (seed, trial), so a seed gives the same numbers whatever the thread count.

#include <cstdint>
#include <vector>

#include "simulator/economics/checkpoint_plan.hpp"
#include "simulator/economics/interruption_process.hpp"
#include "simulator/economics/run_trial.hpp"
#include "simulator/spec/step_model_fit.hpp"

namespace preflight {

struct RunInputs {
  std::int64_t steps = 0;
  double step_seconds = 0.0;  // the prediction
  // How far the real step time may be from it (measured over predicted; 80%): each trial's run takes
  // a multiplier from it (step_time_uncertainty.hpp). A point ({1, 1}): the prediction is taken as exact.
  StepTimeInterval step_interval;
  CheckpointPlan checkpoint;  // interval_steps 0: no checkpoints (an interruption restarts from scratch)
  double restart_seconds = 0.0;  // reprovision + warm-up; the checkpoint reload is added from the plan
  // After a reclaim the capacity is often not there: the job holds nothing and waits an exponential
  // time of this mean before its restart (0: capacity at once).
  double reacquire_hours = 0.0;
  int nodes = 1;
  double usd_per_hour = 0.0;  // the whole job (all nodes), per hour it holds its machines
  // spot_with_fallback: the same machines on demand (all nodes); above 0 (with a deadline) a trial
  // moves to them when the deadline's slack runs out (spot_fallback.hpp).
  double fallback_usd_per_hour = 0.0;
  double storage_usd_per_hour = 0.0;  // checkpoint storage, per wall-clock hour until the run ends
  double fixed_usd = 0.0;             // once per run (egress of the final weights)
  // A capacity block (capacity_block.hpp): the spans sold, ascending. The Monte Carlo buys the
  // shortest that covers the run's hours at target_probability (the longest when none does) and bills
  // every trial for the longer of its run and that block, at usd_per_hour. Empty: billed by the hour.
  std::vector<double> block_hours;
  // Wall time before the run can start (a block bought ahead): nothing held, nothing billed, and it
  // counts against the deadline.
  double start_delay_hours = 0.0;
  // Start-up on the machines before the first step (the weights fetched and loaded): held and billed,
  // once per run (a restart's own reload is in restart_seconds).
  double startup_hours = 0.0;
  InterruptionProcess interruptions;
  double deadline_hours = 0.0;  // 0: none
  double target_probability = 0.9;  // the quantile reported as hours_at_target
  int trials = 10000;
  std::uint64_t seed = 1;
};

struct Distribution {
  double mean = 0.0;
  double stddev = 0.0;
  double p50 = 0.0;
  double p90 = 0.0;
};

inline constexpr int kHistogramBins = 30;

struct RunOutcome {
  Distribution hours;
  Distribution usd;  // everything: machines, storage, egress
  // The means of usd's parts: machines (spot and on-demand), checkpoint storage, egress.
  double compute_usd = 0.0;
  double storage_usd = 0.0;
  double fixed_usd = 0.0;
  double billed_hours = 0.0;          // mean hours the job held machines at usd_per_hour
  double fallback_hours = 0.0;        // mean hours on the on-demand fallback
  double fallback_probability = 0.0;  // share of trials that used it
  double interruptions_expected = 0.0;
  double p_meets_deadline = 1.0;  // without a deadline: the share of histories that finish at all
  // Histories cut off at the Monte Carlo's horizon (100 x the failure-free hours, or a year): runs
  // whose interruptions outpace their checkpoints, which never end.
  double unfinished_probability = 0.0;
  double hours_at_target = 0.0;  // the deadline this run meets with the target probability
  // Completion times as a histogram (kHistogramBins equal bins from the fastest trial to the slowest).
  std::vector<int> hours_histogram;
  double histogram_start_hours = 0.0;
  double histogram_bin_hours = 0.0;
  double failure_free_hours = 0.0;  // compute plus checkpoint stalls, no interruption, at the predicted step time
  double block_hours = 0.0;         // the capacity block bought (0: none)
};

// Hours of one uninterrupted run: compute plus one stall per checkpoint taken.
double failure_free_hours(const RunInputs& in);

RunOutcome simulate_run(const RunInputs& in);

// The same Monte Carlo, extended on demand: trial i is the same whatever count it is part of (its
// generator is seeded by (seed, i), its stratum is i mod the strata), so a short first look and the
// longer run after it share their first trials instead of drawing them twice. `in` must outlive it;
// its `trials` is not read (extend_to says how many).
class RunMonteCarlo {
 public:
  struct Stratum;

  explicit RunMonteCarlo(const RunInputs& in);
  ~RunMonteCarlo();
  RunMonteCarlo(const RunMonteCarlo&) = delete;
  RunMonteCarlo& operator=(const RunMonteCarlo&) = delete;

  // Runs the trials up to `trials` in all (at least one a stratum; only that when nothing interrupts).
  void extend_to(int trials);
  // The distribution of the trials run so far.
  RunOutcome outcome() const;

 private:
  const RunInputs& in_;
  std::vector<Stratum> strata_;
  std::vector<RunTrial> results_;
};

}  // namespace preflight
