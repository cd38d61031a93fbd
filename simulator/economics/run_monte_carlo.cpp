#include "simulator/economics/run_monte_carlo.hpp"

#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/run_trial.hpp"
#include "simulator/economics/spot_fallback.hpp"
#include "simulator/economics/step_time_uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace preflight {

namespace {

using Trial = RunTrial;

// How trials walk a run under Poisson interruptions, worked out once per Monte Carlo.
struct PoissonPlan {
  enum class Mode { walk, per_segment, normal_sum } mode = Mode::walk;
  double rate = 0.0;
  RunSegments segments;
  double restart_h = 0.0;
  double wait_h = 0.0;  // mean wait for capacity after each interruption
  SegmentMoments full, last;
  double mean_hours = 0.0, sd_hours = 0.0, interruptions = 0.0;
};

// Up to this many expected interruptions per run a trial walks them one by one (exactly, jumping
// over the segments an interruption spares). Beyond it, with at least kNormalSumSegments segments
// the run is one normal draw (a sum of that many independent segment times: central limit theorem);
// with fewer, each segment draws its geometric number of failures exactly and, past
// kExactLossDraws failures, their lost work as a normal sum of that many truncated exponentials.
constexpr double kWalkInterruptions = 30.0;
constexpr std::int64_t kNormalSumSegments = 30;
constexpr double kExactLossDraws = 30.0;
constexpr double kPi = std::numbers::pi;

double standard_normal(TrialRng& rng) {
  return std::sqrt(2.0 * standard_exponential(rng)) * std::cos(2.0 * kPi * uniform01(rng));
}

PoissonPlan poisson_plan(const RunInputs& in) {
  PoissonPlan p;
  p.rate = in.interruptions.job_rate_per_hour(in.nodes);
  p.segments = run_segments(in);
  p.restart_h = restart_hours(in);
  p.wait_h = in.reacquire_hours;
  p.full = segment_moments(p.segments.segment_hours, p.rate, p.restart_h, p.wait_h);
  p.last = segment_moments(p.segments.last_hours, p.rate, p.restart_h, p.wait_h);
  const double n = static_cast<double>(p.segments.full);
  p.interruptions = n * p.full.interruptions + p.last.interruptions;
  p.mean_hours = n * p.full.mean + p.last.mean;
  p.sd_hours = std::sqrt(n * p.full.variance + p.last.variance);
  if (p.interruptions > kWalkInterruptions) {
    p.mode = p.segments.full >= kNormalSumSegments ? PoissonPlan::Mode::normal_sum : PoissonPlan::Mode::per_segment;
  }
  return p;
}

// One wait for capacity, counted in the trial.
double wait(const PoissonPlan& p, TrialRng& rng, Trial& t) {
  const double w = capacity_wait(p.wait_h, rng);
  t.waited_hours += w;
  return w;
}

// The share of a failure's cost that is waiting for capacity: a lost stretch of work, the wait, the
// restart (E[Y], W, R of the segments that make up most of the run).
double wait_share(const PoissonPlan& p) {
  const SegmentMoments& m = p.segments.full > 0 ? p.full : p.last;
  const double cycle = m.mean_loss + p.wait_h + p.restart_h;
  return cycle > 0.0 ? p.wait_h / cycle : 0.0;
}

// The exact walk, jumping over the segments an interruption spares.
void walk_poisson(const PoissonPlan& p, double give_up_h, TrialRng& rng, Trial& t) {
  if (p.rate <= 0.0) {  // never interrupted
    t.hours = static_cast<double>(p.segments.full) * p.segments.segment_hours + p.segments.last_hours;
    return;
  }
  const auto exponential = [&] { return standard_exponential(rng) / p.rate; };
  const std::int64_t full = p.segments.full;
  const double full_h = p.segments.segment_hours, last_h = p.segments.last_hours;
  double now = 0.0;
  double next = exponential();
  std::int64_t segment = 0;
  while (segment < full && now < give_up_h) {
    const std::int64_t left = full - segment;
    const double room = next - now;
    const std::int64_t spared = room >= full_h * static_cast<double>(left) ? left : static_cast<std::int64_t>(room / full_h);
    now += full_h * static_cast<double>(spared);
    segment += spared;
    if (segment == full) break;
    t.interruptions += 1.0;  // inside this segment: its work is lost
    now = next + wait(p, rng, t) + p.restart_h;
    next = now + exponential();
  }
  while (now < give_up_h) {
    if (next >= now + last_h) {
      now += last_h;
      break;
    }
    t.interruptions += 1.0;
    now = next + wait(p, rng, t) + p.restart_h;
    next = now + exponential();
  }
  t.hours = now;
}

// One segment: failures before the success are geometric (inverse CDF, one draw); each loses a
// truncated exponential of work plus the restart.
double segment_draw(double hours, const SegmentMoments& m, double rate, double restart_h, double wait_h, TrialRng& rng,
                    Trial& t) {
  if (m.failure_probability <= 0.0) return hours;
  const double u = 1.0 - uniform01(rng);  // (0, 1]
  const double failures =
      m.failure_probability >= 1.0 ? 1e15 : std::min(1e15, std::floor(std::log(u) / m.log_failure_probability));
  t.interruptions += failures;
  double lost = 0.0, waited = 0.0;
  if (failures <= kExactLossDraws) {
    if (failures > 0.0) {
      // Each failure loses a truncated exponential of work (inverse CDF: -ln(1 - u p) / rate) and
      // waits an exponential (-ln(1 - u') W), drawn in that order. Forming 1 - u p adds at most the
      // rounding the product u p already carries (2^-53 of 1), which std::log1p(-u p) sees too. A sum
      // of logs is the log of a product: one std::log for each sum instead of one for each term
      // (the same draws; the products differ from the sums by rounding alone), folded into the sum
      // before a product of factors as small as 2^-53 could underflow.
      constexpr double kFold = 1e-250;
      double loss_factors = 1.0, wait_factors = 1.0, log_loss = 0.0, log_wait = 0.0;
      for (int i = 0; i < static_cast<int>(failures); ++i) {
        loss_factors *= 1.0 - uniform01(rng) * m.failure_probability;
        if (wait_h > 0.0) wait_factors *= 1.0 - uniform01(rng);
        if (loss_factors < kFold) {
          log_loss += std::log(loss_factors);
          loss_factors = 1.0;
        }
        if (wait_factors < kFold) {
          log_wait += std::log(wait_factors);
          wait_factors = 1.0;
        }
      }
      lost = -(log_loss + std::log(loss_factors)) / rate;
      waited = wait_h > 0.0 ? -(log_wait + std::log(wait_factors)) * wait_h : 0.0;
    }
  } else {
    lost = std::max(0.0, failures * m.mean_loss + std::sqrt(failures * m.loss_variance) * standard_normal(rng));
    // A sum of that many exponential waits: normal, mean f W and deviation sqrt(f) W.
    waited = std::max(0.0, wait_h * (failures + std::sqrt(failures) * standard_normal(rng)));
  }
  t.waited_hours += waited;
  return hours + lost + waited + failures * restart_h;
}

Trial poisson_trial(const RunInputs& in, const PoissonPlan& p, double give_up_h, TrialRng& rng) {
  Trial t;
  switch (p.mode) {
    case PoissonPlan::Mode::walk: walk_poisson(p, give_up_h, rng, t); break;
    case PoissonPlan::Mode::per_segment: {
      for (std::int64_t i = 0; i < p.segments.full && t.hours < give_up_h; ++i) {
        t.hours += segment_draw(p.segments.segment_hours, p.full, p.rate, p.restart_h, p.wait_h, rng, t);
      }
      t.hours += segment_draw(p.segments.last_hours, p.last, p.rate, p.restart_h, p.wait_h, rng, t);
      break;
    }
    case PoissonPlan::Mode::normal_sum:
      t.hours = p.mean_hours + p.sd_hours * standard_normal(rng);
      t.interruptions = p.interruptions;
      // The waits' part of what this trial took beyond the failure-free run: their share of a failure's
      // cost (so their mean is exact and no trial waits longer than it ran late).
      t.waited_hours = wait_share(p) * std::max(0.0, t.hours - failure_free_hours(in));
      break;
  }
  // A segment longer than many mean times between interruptions never ends: cut off as the walk is.
  t.hours = std::isfinite(t.hours) ? std::clamp(t.hours, failure_free_hours(in), give_up_h) : give_up_h;
  if (t.hours >= give_up_h) {
    // A history cut off never finished; it counts the interruptions and waits of the hours it was
    // followed for, not of a run that would never end.
    t.unfinished = true;
    t.interruptions = std::min(t.interruptions, p.rate * give_up_h);
    t.waited_hours = wait_share(p) * (t.hours - failure_free_hours(in));
  }
  // The machines are held for at least the run's failure-free hours.
  t.waited_hours = std::clamp(t.waited_hours, 0.0, t.hours - std::min(t.hours, failure_free_hours(in)));
  return t;
}

// A replayed trace, interruption by interruption (each found in constant time however long the trace,
// interruption_process.cpp), jumping over the segments an interruption spares. A segment is the
// compute between two checkpoints plus the stall of the checkpoint that ends it; the last segment
// ends the run (its final save is not counted: the run is over).
Trial replay_trial(const RunInputs& in, double give_up_h, TrialRng& rng) {
  InterruptionProcess::Cursor cursor = in.interruptions.start_trial(rng);
  const double step_h = in.step_seconds / 3600.0;
  const double stall_h = in.checkpoint.stall_seconds / 3600.0;
  const std::int64_t per_segment = in.checkpoint.interval_steps > 0 ? in.checkpoint.interval_steps : in.steps;
  const double restart_h = restart_hours(in);
  Trial t;
  double now = 0.0;
  std::int64_t done = 0;  // steps safely checkpointed
  const double full_segment_h = static_cast<double>(per_segment) * step_h + stall_h;
  double next_interruption = in.interruptions.next(now, in.nodes, cursor, rng);
  while (done < in.steps && now < give_up_h) {
    // Whole segments before the next interruption (never the last one), in one jump.
    const std::int64_t spared = std::min((in.steps - done - 1) / per_segment,
                                         static_cast<std::int64_t>(std::min((next_interruption - now) / full_segment_h, 9e15)));
    if (spared > 0 && now + static_cast<double>(spared) * full_segment_h <= next_interruption) {
      now += static_cast<double>(spared) * full_segment_h;
      done += spared * per_segment;
      continue;
    }
    const std::int64_t steps = std::min(per_segment, in.steps - done);
    const bool last = done + steps >= in.steps;
    const double segment_end = now + static_cast<double>(steps) * step_h + (last ? 0.0 : stall_h);
    if (next_interruption >= segment_end) {
      now = segment_end;
      done += steps;
      continue;
    }
    // Interrupted: the segment's work is lost; wait for capacity, restart, resume from the last checkpoint.
    ++t.interruptions;
    const double waited = capacity_wait(in.reacquire_hours, rng);
    t.waited_hours += waited;
    now = next_interruption + waited + restart_h;
    next_interruption = in.interruptions.next(now, in.nodes, cursor, rng);
  }
  t.hours = now;
  t.unfinished = done < in.steps;
  return t;
}

// The nearest-rank percentile of `values` (a copy of the trials' figures, reordered in place): the
// element a full sort would put at that rank, found by selection (a few percentiles of thousands of
// trials, for hundreds of Monte Carlo runs a plan).
double percentile(std::vector<double>& values, double q) {
  const std::size_t rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(rank, 1, values.size()) - 1);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

// `values` in trial order (the sums), `ranked` a copy of them for the percentiles.
Distribution distribution(const std::vector<double>& values, std::vector<double>& ranked) {
  Distribution d;
  double sum = 0.0;
  for (double v : values) sum += v;  // in trial order: the same sum whatever the thread count
  d.mean = sum / static_cast<double>(values.size());
  double squares = 0.0;
  for (double v : values) squares += (v - d.mean) * (v - d.mean);
  d.stddev = std::sqrt(squares / static_cast<double>(values.size()));
  d.p50 = percentile(ranked, 0.5);
  d.p90 = percentile(ranked, 0.9);
  return d;
}

}  // namespace

double failure_free_hours(const RunInputs& in) {
  const std::int64_t checkpoints =
      in.checkpoint.interval_steps > 0 ? (in.steps - 1) / in.checkpoint.interval_steps : 0;
  return (static_cast<double>(in.steps) * in.step_seconds + static_cast<double>(checkpoints) * in.checkpoint.stall_seconds) /
         3600.0;
}

// One stratum of the step-time multiplier: the run at that step time, and how its trials are drawn.
struct RunMonteCarlo::Stratum {
  RunInputs in;
  double give_up_h = 0.0;
  std::optional<PoissonPlan> poisson;  // empty: a replayed trace, event by event (or the fallback's walk)
  bool fallback = false;               // spot_with_fallback: the Uniform Progress walk
};

namespace {

RunMonteCarlo::Stratum stratum(const RunInputs& base, double multiplier) {
  RunMonteCarlo::Stratum s{base, 0.0, std::nullopt};
  s.in.step_seconds *= multiplier;
  // A history that never finishes (interruptions faster than checkpoints) is cut off here and
  // counted as missing any deadline.
  s.give_up_h = run_horizon_hours(s.in);
  if (base.fallback_usd_per_hour > 0.0 && base.deadline_hours > 0.0 && base.interruptions.interrupts()) {
    s.fallback = true;  // its walk ends by the deadline's slack, never at give_up_h
  } else if (s.in.interruptions.memoryless()) {
    s.poisson = poisson_plan(s.in);  // none is memoryless too: a walk with rate 0
  } else if (PoissonPlan p = poisson_plan(s.in); p.interruptions > kWalkInterruptions) {
    // A run that outlasts many passes of a replayed trace meets its events at the trace's mean rate
    // for the job: past kWalkInterruptions it is drawn as that Poisson process (segment by segment,
    // or one normal sum), so its cost does not grow with the run.
    s.poisson = p;
  }
  return s;
}

}  // namespace

RunMonteCarlo::RunMonteCarlo(const RunInputs& in) : in_(in) {
  for (double m : step_time_multipliers(in.step_interval)) strata_.push_back(stratum(in, m));
}

RunMonteCarlo::~RunMonteCarlo() = default;

void RunMonteCarlo::extend_to(int trials) {
  // Trial i runs in stratum i mod strata: every stratum equally often, whatever the thread count.
  const int count = static_cast<int>(strata_.size());
  const int total = in_.interruptions.interrupts() ? std::max(trials, count) : count;
  const int done = static_cast<int>(results_.size());
  if (total <= done) return;
  results_.resize(static_cast<std::size_t>(total));
  tbb::parallel_for(tbb::blocked_range<int>(done, total), [&](const tbb::blocked_range<int>& r) {
    for (int i = r.begin(); i != r.end(); ++i) {
      const Stratum& s = strata_[static_cast<std::size_t>(i % count)];
      TrialRng rng(splitmix64(in_.seed ^ splitmix64(static_cast<std::uint64_t>(i))));
      results_[static_cast<std::size_t>(i)] = s.fallback  ? fallback_trial(s.in, rng)
                                               : s.poisson ? poisson_trial(s.in, *s.poisson, s.give_up_h, rng)
                                                           : replay_trial(s.in, s.give_up_h, rng);
    }
  });
}

RunOutcome simulate_run(const RunInputs& in) {
  RunMonteCarlo monte_carlo(in);
  monte_carlo.extend_to(in.trials);
  return monte_carlo.outcome();
}

RunOutcome RunMonteCarlo::outcome() const {
  const RunInputs& in = in_;
  const std::vector<Trial>& results = results_;
  const double trials = static_cast<double>(results.size());
  RunOutcome out;
  out.failure_free_hours = failure_free_hours(in);
  std::vector<double> hours, usd;
  hours.reserve(results.size());
  usd.reserve(results.size());
  for (const Trial& t : results) hours.push_back(in.startup_hours + t.hours);
  std::vector<double> ranked = hours;
  if (!in.block_hours.empty()) {
    // The block is bought before the run, for the hours it needs with the target probability.
    const double need = percentile(ranked, in.target_probability);
    const auto covering = std::lower_bound(in.block_hours.begin(), in.block_hours.end(), need);
    out.block_hours = covering != in.block_hours.end() ? *covering : in.block_hours.back();
  }
  double interruptions = 0.0, compute = 0.0, storage = 0.0, billed = 0.0, fallback = 0.0;
  int on_time = 0, fell_back = 0, unfinished = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Trial& t = results[i];
    const double held = std::max(in.startup_hours + t.billed_hours(), out.block_hours);
    const double machines = held * in.usd_per_hour + t.fallback_hours * in.fallback_usd_per_hour;
    usd.push_back(machines + hours[i] * in.storage_usd_per_hour + in.fixed_usd);
    compute += machines;
    storage += hours[i] * in.storage_usd_per_hour;
    billed += held;
    fallback += t.fallback_hours;
    if (t.fallback_hours > 0.0) ++fell_back;
    interruptions += t.interruptions;
    // The wait for a block's start is part of the wall time the deadline counts.
    hours[i] += in.start_delay_hours;
    // Without a deadline, "on time" is finishing at all.
    if (t.unfinished) {
      ++unfinished;
    } else if (in.deadline_hours <= 0.0 || hours[i] <= in.deadline_hours) {
      ++on_time;
    }
  }
  ranked = hours;
  out.hours = distribution(hours, ranked);
  out.hours_at_target = percentile(ranked, in.target_probability);
  const auto [fastest, slowest] = std::minmax_element(hours.begin(), hours.end());
  out.histogram_start_hours = *fastest;
  out.histogram_bin_hours = (*slowest - *fastest) / kHistogramBins;
  out.hours_histogram.assign(kHistogramBins, 0);
  for (double h : hours) {
    const int bin = out.histogram_bin_hours > 0.0 ? static_cast<int>((h - *fastest) / out.histogram_bin_hours) : 0;
    ++out.hours_histogram[static_cast<std::size_t>(std::min(bin, kHistogramBins - 1))];
  }
  ranked = usd;
  out.usd = distribution(usd, ranked);
  out.compute_usd = compute / trials;
  out.storage_usd = storage / trials;
  out.fixed_usd = in.fixed_usd;
  out.billed_hours = billed / trials;
  out.fallback_hours = fallback / trials;
  out.fallback_probability = static_cast<double>(fell_back) / trials;
  out.interruptions_expected = interruptions / trials;
  out.p_meets_deadline = static_cast<double>(on_time) / trials;
  out.unfinished_probability = static_cast<double>(unfinished) / trials;
  return out;
}

}  // namespace preflight
