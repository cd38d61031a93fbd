#pragma once
// When a job of N nodes is interrupted: a Poisson process from a per-node rate (the traces' default
// for the machine's class, a bucket, an inline cluster's figure, or a rate the user gives), or the
// replay of a recorded trace. A job is interrupted when any of its nodes is; a reclaim takes many
// nodes at once (the reclaim fraction), so N nodes see fewer interruptions than N independent ones.
// Beside spot reclaims, hardware and software faults stop a job on any pricing (fault_rates.hpp): a
// Poisson process of the job's own rate superposed on the reclaims.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "simulator/economics/job_exposure.hpp"
#include "simulator/economics/spot_trace.hpp"
#include "simulator/economics/trial_rng.hpp"

namespace preflight {

// The AWS Spot Advisor's interruption-frequency buckets, as it spells them (run_defaults.hpp gives
// the monthly fraction taken in each).
inline constexpr std::array<std::string_view, 5> kSpotAdvisorBuckets{"<5%", "5-10%", "10-15%", "15-20%", ">20%"};

// Per node-hour rate for an AWS Spot Advisor bucket ("<5%" ... ">20%"); empty bucket: the default one.
double bucket_interruptions_per_node_hour(const std::optional<std::string>& bucket);

class InterruptionProcess {
 public:
  static InterruptionProcess none();
  // Reclaim events take each of the job's nodes with probability `reclaim_fraction` (0: every node
  // on its own); a node is reclaimed at `per_node_per_hour`, so events touching an N-node job
  // arrive at (rate / f)(1 - (1 - f)^N) per hour: still a Poisson process (a thinned one).
  static InterruptionProcess poisson(double per_node_per_hour, double reclaim_fraction = 0.0);
  // A trace replayed for a job of `nodes` nodes (its exposure to the events is looked up once here);
  // the trace must outlive the process, and next() / job_rate_per_hour() are asked for that size.
  static InterruptionProcess replay(const SpotTrace* trace, int nodes);
  // The same reclaims with the job's faults arriving at `per_hour` (replacing any given before).
  InterruptionProcess with_faults(double per_hour) const;
  double faults_per_hour() const { return faults_; }

  // Where one Monte Carlo trial stands in a replayed trace: its random offset into the looped trace
  // and the next event not yet considered (so no event is ever drawn twice).
  struct Cursor {
    double offset_hours = 0.0;
    std::int64_t loop = 0;
    std::size_t event = 0;
    // A Poisson job rate for `rate_nodes` nodes, computed once per trial rather than once per draw
    // (an expm1 and a log1p: a tenth of a whole-catalog plan's time when it was per draw).
    int rate_nodes = -1;
    double job_rate = 0.0;
  };

  // Prepares one Monte Carlo trial (a replay starts at a random offset into the looped trace).
  Cursor start_trial(TrialRng& rng) const;
  // The next interruption of an N-node job strictly after `hours` of wall time; +inf when none.
  double next(double hours, int nodes, Cursor& cursor, TrialRng& rng) const;
  // Expected interruptions per hour of an N-node job, reclaims and faults (for Young/Daly's mean time
  // between interruptions).
  double job_rate_per_hour(int nodes) const;

  bool interrupts() const { return kind_ != Kind::none || faults_ > 0.0; }
  // Whether interruptions arrive as a Poisson process (or never): then the closed forms of
  // expected_run.hpp are exact, not an approximation.
  bool memoryless() const { return kind_ != Kind::replay; }
  std::string describe() const;

 private:
  double next_replayed(double hours, Cursor& cursor, TrialRng& rng) const;
  void check_nodes(int nodes) const;

  enum class Kind { none, poisson, replay };
  Kind kind_ = Kind::none;
  double rate_ = 0.0;
  double reclaim_fraction_ = 0.0;
  const SpotTrace* trace_ = nullptr;
  const JobExposure* exposure_ = nullptr;
  int nodes_ = 0;
  double faults_ = 0.0;  // the job's faults per hour
};

}  // namespace preflight
