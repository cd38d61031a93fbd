#pragma once
// When a job of N nodes is interrupted: a Poisson process from a per-node rate (a catalog bucket, an
// inline cluster's figure, or a rate fitted to a trace), or the replay of a recorded trace. A job is
// interrupted when any of its nodes is.

#include <cstdint>
#include <optional>
#include <string>

#include "simulator/economics/spot_trace.hpp"
#include "simulator/economics/trial_rng.hpp"

namespace preflight {

// Per node-hour rate for an AWS Spot Advisor bucket ("<5%" ... ">20%"); empty bucket: the default one.
double bucket_interruptions_per_node_hour(const std::optional<std::string>& bucket);

class InterruptionProcess {
 public:
  static InterruptionProcess none();
  static InterruptionProcess poisson(double per_node_per_hour);
  static InterruptionProcess replay(const SpotTrace* trace);  // the trace must outlive the process

  // Where one Monte Carlo trial stands in a replayed trace: its random offset into the looped trace
  // and the next event not yet considered (so no event is ever drawn twice).
  struct Cursor {
    double offset_hours = 0.0;
    std::int64_t loop = 0;
    std::size_t event = 0;
  };

  // Prepares one Monte Carlo trial (a replay starts at a random offset into the looped trace).
  Cursor start_trial(TrialRng& rng) const;
  // The next interruption of an N-node job strictly after `hours` of wall time; +inf when none.
  double next(double hours, int nodes, Cursor& cursor, TrialRng& rng) const;
  // Expected interruptions per hour of an N-node job (for Young/Daly's mean time between interruptions).
  double job_rate_per_hour(int nodes) const;

  bool interrupts() const { return kind_ != Kind::none; }
  // Whether interruptions arrive as a Poisson process (or never): then the closed forms of
  // expected_run.hpp are exact, not an approximation.
  bool memoryless() const { return kind_ != Kind::replay; }
  std::string describe() const;

 private:
  enum class Kind { none, poisson, replay };
  Kind kind_ = Kind::none;
  double rate_ = 0.0;
  const SpotTrace* trace_ = nullptr;
};

// A uniform draw in [0, 1) from the engine's raw bits: portable, unlike std::uniform_real_distribution.
double uniform01(TrialRng& rng);

}  // namespace preflight
