#include "simulator/economics/spot_fallback.hpp"

#include <algorithm>
#include <cmath>

#include "simulator/economics/expected_run.hpp"

namespace preflight {

namespace {

// A trial's place in the run: segments behind a checkpoint, and what is left of the work.
class Progress {
 public:
  Progress(const RunSegments& s, const RunInputs& in) : s_(s), in_(in) {}

  double left() const { return static_cast<double>(s_.full - done_) * s_.segment_hours + s_.last_hours; }
  // What is left as the final on-demand stretch runs it: the steps alone (on demand it checkpoints
  // only against hardware failures, a stall in hundreds of hours, not at the spot cadence).
  double left_on_demand() const {
    const std::int64_t steps = in_.checkpoint.interval_steps > 0 ? in_.steps - done_ * in_.checkpoint.interval_steps : in_.steps;
    return static_cast<double>(steps) * in_.step_seconds / 3600.0;
  }
  double work() const { return static_cast<double>(s_.full) * s_.segment_hours + s_.last_hours; }
  // Running `hours` from a checkpoint: the checkpoints passed (never the run's end).
  void run(double hours) {
    if (s_.segment_hours <= 0.0 || done_ == s_.full) return;
    done_ += static_cast<std::int64_t>(std::min(std::floor(hours / s_.segment_hours), static_cast<double>(s_.full - done_)));
  }
  // Running until the first checkpoint at or past `hours` from now: how long that takes, or -1 when
  // the run ends first.
  double until_checkpoint_after(double hours) {
    if (s_.segment_hours <= 0.0) return -1.0;
    const double segments = std::max(1.0, std::ceil(hours / s_.segment_hours));
    if (segments > static_cast<double>(s_.full - done_)) return -1.0;
    done_ += static_cast<std::int64_t>(segments);
    return segments * s_.segment_hours;
  }

 private:
  const RunSegments& s_;
  const RunInputs& in_;
  std::int64_t done_ = 0;
};

}  // namespace

RunTrial fallback_trial(const RunInputs& in, TrialRng& rng) {
  const RunSegments segments = run_segments(in);
  const double restart = restart_hours(in), deadline = in.deadline_hours;
  Progress progress(segments, in);
  RunTrial t;
  double now = 0.0;
  // Rule 4 (or a hopeless market): on demand to the end; `starting`: a stint begins (its restart).
  const auto on_demand_to_the_end = [&](bool starting) {
    const double hours = (starting ? restart : 0.0) + progress.left_on_demand();
    t.fallback_hours += hours;
    t.hours = now + hours;
    return t;
  };
  InterruptionProcess::Cursor cursor = in.interruptions.start_trial(rng);
  for (;;) {
    // On spot, from a checkpoint at `now` (rule 2: until reclaimed).
    const double next = in.interruptions.next(now, in.nodes, cursor, rng);
    if (next >= now + progress.left()) {
      t.hours = now + progress.left();
      return t;
    }
    progress.run(next - now);
    now = next;
    t.interruptions += 1.0;
    if (t.interruptions >= kFallbackMaxInterruptions) return on_demand_to_the_end(true);
    // Idle: capacity returns at `back`. Rule 4 first (whatever spot does), then spot if it is back
    // (rule 2), then rule 1 if behind; else wait for whichever comes first.
    const double back = now + capacity_wait(in.reacquire_hours, rng);
    // Rule 4, with the work one more interruption can lose (a checkpoint interval) in its margin:
    // our interruptions lose the work since the last checkpoint, the paper's lose only d.
    const double margin = 2.0 * restart + segments.segment_hours;
    const double safety = deadline - progress.left_on_demand() - margin;
    const double behind = (progress.work() - progress.left()) * deadline / progress.work();
    if (now >= safety) return on_demand_to_the_end(true);
    const double trigger = std::max(now, std::min(safety, behind));
    if (back <= trigger) {
      t.waited_hours += back - now;
      now = back + restart;  // the restart is paid on the spot machines
      continue;
    }
    t.waited_hours += trigger - now;
    now = trigger;
    if (now >= safety) return on_demand_to_the_end(true);
    // Rule 1: catch up on demand until the first checkpoint after spot capacity is back.
    const double start = now + restart;
    const double ran = progress.until_checkpoint_after(back - start);
    if (ran < 0.0) return on_demand_to_the_end(true);
    t.fallback_hours += restart + ran;
    now = start + ran;
    if (deadline - now < progress.left_on_demand() + margin) return on_demand_to_the_end(false);
    now += restart;  // back on spot
  }
}

}  // namespace preflight
