#include "simulator/economics/run_monte_carlo.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace preflight {

namespace {

struct Trial {
  double hours = 0.0;
  double interruptions = 0.0;
};

// Above this many expected interruptions per run the run's segments are summed as one normal draw:
// it is a sum of thousands of independent segment times (central limit theorem), and walking them
// one by one made a volatile market's Monte Carlo cost minutes.
constexpr double kNormalSumInterruptions = 100.0;
constexpr double kPi = std::numbers::pi;

double exponential(double rate, TrialRng& rng) { return -std::log1p(-uniform01(rng)) / rate; }

double standard_normal(TrialRng& rng) {
  return std::sqrt(-2.0 * std::log1p(-uniform01(rng))) * std::cos(2.0 * kPi * uniform01(rng));
}

// One segment of `length` hours under Poisson interruptions at `rate` per hour, restarted after each
// interruption (the restart itself is not interrupted): every failed attempt loses the work since
// the segment began, an exponential time cut off at `length`, plus the restart. Failed attempts
// before one succeeds are geometric with failure probability q = 1 - exp(-rate L).
struct SegmentMoments {
  double mean = 0.0;      // hours
  double variance = 0.0;  // hours^2
  double interruptions = 0.0;
};

SegmentMoments segment_moments(double length, double rate, double restart_h) {
  SegmentMoments m;
  const double q = -std::expm1(-rate * length);
  m.mean = length;
  if (q <= 0.0) return m;
  const double p = 1.0 - q;
  const double failures = q / p, failures_variance = q / (p * p);
  const double lost = 1.0 / rate - length * p / q;  // E[X | X < L], X ~ Exp(rate)
  const double lost_variance = std::max(0.0, 1.0 / (rate * rate) - length * length * p / (q * q));
  m.mean += failures * (lost + restart_h);
  m.variance = failures * lost_variance + failures_variance * (lost + restart_h) * (lost + restart_h);
  m.interruptions = failures;
  return m;
}

// The exact walk under Poisson interruptions, jumping over the segments an interruption spares:
// `full` segments of `full_h` hours (each ends with a checkpoint), then the last of `last_h`.
void walk_poisson(std::int64_t full, double full_h, double last_h, double rate, double restart_h, double give_up_h,
                  TrialRng& rng, Trial& t) {
  double now = 0.0;
  double next = exponential(rate, rng);
  std::int64_t segment = 0;
  while (segment < full && now < give_up_h) {
    const std::int64_t left = full - segment;
    const double room = next - now;
    const std::int64_t spared = room >= full_h * static_cast<double>(left) ? left : static_cast<std::int64_t>(room / full_h);
    now += full_h * static_cast<double>(spared);
    segment += spared;
    if (segment == full) break;
    t.interruptions += 1.0;  // inside this segment: its work is lost
    now = next + restart_h;
    next = now + exponential(rate, rng);
  }
  while (now < give_up_h) {
    if (next >= now + last_h) {
      now += last_h;
      break;
    }
    t.interruptions += 1.0;
    now = next + restart_h;
    next = now + exponential(rate, rng);
  }
  t.hours = now;
}

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
  if (in.interruptions.memoryless()) {
    // Segments before the last end with a checkpoint stall; the last ends the run.
    const std::int64_t full = (in.steps + per_segment - 1) / per_segment - 1;
    const double full_h = static_cast<double>(per_segment) * step_h + stall_h;
    const double last_h = static_cast<double>(in.steps - full * per_segment) * step_h;
    const double rate = in.interruptions.job_rate_per_hour(in.nodes);
    const SegmentMoments f = segment_moments(full_h, rate, restart_h);
    const SegmentMoments l = segment_moments(last_h, rate, restart_h);
    const double n = static_cast<double>(full);
    if (n * f.interruptions + l.interruptions <= kNormalSumInterruptions) {
      walk_poisson(full, full_h, last_h, rate, restart_h, give_up_h, rng, t);
      return t;
    }
    const double hours = n * f.mean + l.mean + std::sqrt(n * f.variance + l.variance) * standard_normal(rng);
    // A segment longer than many mean times between interruptions never ends: cut off as the walk is.
    t.hours = std::isfinite(hours) ? std::clamp(hours, failure_free_hours(in), give_up_h) : give_up_h;
    t.interruptions = std::min(n * f.interruptions + l.interruptions, 1e15);
    return t;
  }
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
