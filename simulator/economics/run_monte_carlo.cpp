#include "simulator/economics/run_monte_carlo.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace preflight {

namespace {

struct Trial {
  double hours = 0.0;
  int interruptions = 0;
};

// A segment is the compute between two checkpoints plus the stall of the checkpoint that ends it;
// the last segment ends the run (its final save is not counted: the run is over).
Trial run_trial(const RunInputs& in, std::uint64_t trial) {
  TrialRng rng(splitmix64(in.seed ^ splitmix64(trial)));
  InterruptionProcess::Cursor cursor = in.interruptions.start_trial(rng);

  const double step_h = in.step_seconds / 3600.0;
  const double stall_h = in.checkpoint.stall_seconds / 3600.0;
  const std::int64_t per_segment = in.checkpoint.interval_steps > 0 ? in.checkpoint.interval_steps : in.steps;
  const double restart_h = (in.restart_seconds + in.checkpoint.read_seconds) / 3600.0;

  // A history that never finishes (interruptions faster than checkpoints) is cut off here and
  // counted as missing any deadline.
  const double give_up_h = std::max(100.0 * failure_free_hours(in), 24.0 * 365.0);

  Trial t;
  double now = 0.0;
  std::int64_t done = 0;  // steps safely checkpointed
  double next_interruption = in.interruptions.next(now, in.nodes, cursor, rng);
  while (done < in.steps && now < give_up_h) {
    const std::int64_t steps = std::min(per_segment, in.steps - done);
    const bool last = done + steps >= in.steps;
    const double segment_end = now + static_cast<double>(steps) * step_h + (last ? 0.0 : stall_h);
    if (next_interruption >= segment_end) {
      now = segment_end;
      done += steps;
      continue;
    }
    // Interrupted: the segment's work is lost; restart, then resume from the last checkpoint.
    ++t.interruptions;
    now = next_interruption + restart_h;
    next_interruption = in.interruptions.next(now, in.nodes, cursor, rng);
  }
  t.hours = now;
  return t;
}

double percentile(std::vector<double> sorted_values, double q) {
  std::sort(sorted_values.begin(), sorted_values.end());
  const std::size_t rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted_values.size())));
  return sorted_values[std::clamp<std::size_t>(rank, 1, sorted_values.size()) - 1];  // nearest rank
}

Distribution distribution(const std::vector<double>& values) {
  Distribution d;
  double sum = 0.0;
  for (double v : values) sum += v;  // in trial order: the same sum whatever the thread count
  d.mean = sum / static_cast<double>(values.size());
  double squares = 0.0;
  for (double v : values) squares += (v - d.mean) * (v - d.mean);
  d.stddev = std::sqrt(squares / static_cast<double>(values.size()));
  d.p50 = percentile(values, 0.5);
  d.p90 = percentile(values, 0.9);
  return d;
}

}  // namespace

double failure_free_hours(const RunInputs& in) {
  const std::int64_t checkpoints =
      in.checkpoint.interval_steps > 0 ? (in.steps - 1) / in.checkpoint.interval_steps : 0;
  return (static_cast<double>(in.steps) * in.step_seconds + static_cast<double>(checkpoints) * in.checkpoint.stall_seconds) /
         3600.0;
}

RunOutcome simulate_run(const RunInputs& in) {
  RunOutcome out;
  out.failure_free_hours = failure_free_hours(in);
  const int trials = in.interruptions.interrupts() ? std::max(in.trials, 1) : 1;
  std::vector<Trial> results(static_cast<std::size_t>(trials));
  tbb::parallel_for(tbb::blocked_range<int>(0, trials), [&](const tbb::blocked_range<int>& r) {
    for (int i = r.begin(); i != r.end(); ++i) results[static_cast<std::size_t>(i)] = run_trial(in, static_cast<std::uint64_t>(i));
  });

  std::vector<double> hours, usd;
  hours.reserve(results.size());
  usd.reserve(results.size());
  double interruptions = 0.0;
  int on_time = 0;
  for (const Trial& t : results) {
    hours.push_back(t.hours);
    usd.push_back(t.hours * in.usd_per_hour);
    interruptions += t.interruptions;
    if (in.deadline_hours <= 0.0 || t.hours <= in.deadline_hours) ++on_time;
  }
  out.hours = distribution(hours);
  out.hours_at_target = percentile(hours, in.target_probability);
  const auto [fastest, slowest] = std::minmax_element(hours.begin(), hours.end());
  out.histogram_start_hours = *fastest;
  out.histogram_bin_hours = (*slowest - *fastest) / kHistogramBins;
  out.hours_histogram.assign(kHistogramBins, 0);
  for (double h : hours) {
    const int bin = out.histogram_bin_hours > 0.0 ? static_cast<int>((h - *fastest) / out.histogram_bin_hours) : 0;
    ++out.hours_histogram[static_cast<std::size_t>(std::min(bin, kHistogramBins - 1))];
  }
  out.usd = distribution(usd);
  out.interruptions_expected = interruptions / trials;
  out.p_meets_deadline = static_cast<double>(on_time) / trials;
  return out;
}

}  // namespace preflight
