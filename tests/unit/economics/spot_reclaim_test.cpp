// Spot interruptions as the public traces show them: reclaims take many of a job's nodes at once
// (the reclaim fraction) and capacity stays away for a while after each (the re-acquire wait, unbilled
// because nothing is held). Both are checked against an event-by-event simulation written here: a
// zone's reclaim events, each taking every node of the job with probability f, and an exponential
// wait for capacity after each hit, walked step by step with no closed form and none of the Monte
// Carlo's shortcuts.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/interruption_process.hpp"
#include "simulator/economics/run_monte_carlo.hpp"

namespace preflight {
namespace {

// A zone's reclaim events arrive at `events_per_hour`; each takes each of the job's `nodes` nodes
// with probability `fraction`. Returns the rate of events that take at least one, and the per-node
// loss rate, over `hours`.
struct FleetRates {
  double job_per_hour = 0.0;
  double node_per_hour = 0.0;
};

FleetRates fleet(double events_per_hour, double fraction, int nodes, double hours, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::exponential_distribution<double> gap(events_per_hour);
  std::bernoulli_distribution taken(fraction);
  double t = gap(gen);
  std::int64_t hits = 0, losses = 0;
  while (t < hours) {
    int lost = 0;
    for (int n = 0; n < nodes; ++n) lost += taken(gen) ? 1 : 0;
    losses += lost;
    hits += lost > 0 ? 1 : 0;
    t += gap(gen);
  }
  return {static_cast<double>(hits) / hours, static_cast<double>(losses) / (hours * nodes)};
}

// The process's job rate is (rate / f)(1 - (1 - f)^N): for 1, 8 and 32 nodes it matches the events a
// simulated zone throws at the job, and the per-node rate is what the traces count (losses per
// node-hour). f = 0.106 is the traces' median (catalogs/fitted/spot_interruptions.json).
TEST(SpotReclaims, CorrelatedReclaimsMatchAnEventByEventZone) {
  const double fraction = 0.106, events = 8.0;  // a node is lost at 0.848 per hour
  for (const int nodes : {1, 8, 32}) {
    const FleetRates measured = fleet(events, fraction, nodes, 200000.0, 7 + static_cast<std::uint64_t>(nodes));
    const InterruptionProcess p = InterruptionProcess::poisson(events * fraction, fraction);
    EXPECT_NEAR(measured.node_per_hour, events * fraction, 0.01 * events * fraction) << nodes;
    EXPECT_NEAR(p.job_rate_per_hour(nodes), measured.job_per_hour, 0.01 * measured.job_per_hour) << nodes;
    std::cout << nodes << " nodes: zone simulation " << measured.job_per_hour << " interruptions per hour, model "
              << p.job_rate_per_hour(nodes) << ", independent nodes would give " << events * fraction * nodes << "\n";
  }
  // Independent nodes (f = 0) and one reclaim taking everything (f = 1) are the two limits.
  EXPECT_DOUBLE_EQ(InterruptionProcess::poisson(0.5, 0.0).job_rate_per_hour(8), 4.0);
  EXPECT_DOUBLE_EQ(InterruptionProcess::poisson(0.5, 1.0).job_rate_per_hour(8), 0.5);
}

// A run of checkpointed segments under the zone above, walked event by event: every reclaim event
// is drawn, those that take a node interrupt the job, the segment's work is lost, the job waits an
// exponential time for capacity (billed nothing) and restarts (billed). Hours, billed hours and the
// p90 agree with the Monte Carlo, and the closed-form means with both.
struct Walked {
  double mean_hours = 0.0, p90_hours = 0.0, mean_billed = 0.0;
};

Walked walk(const RunInputs& in, double events, double fraction, int trials) {
  std::mt19937_64 gen(99);
  std::exponential_distribution<double> gap(events);
  std::exponential_distribution<double> wait(1.0 / in.reacquire_hours);
  std::bernoulli_distribution taken(fraction);
  const double step_h = in.step_seconds / 3600.0, stall_h = in.checkpoint.stall_seconds / 3600.0;
  const double restart_h = (in.restart_seconds + in.checkpoint.read_seconds) / 3600.0;
  const std::int64_t per = in.checkpoint.interval_steps;
  std::vector<double> hours;
  double billed_sum = 0.0;
  for (int trial = 0; trial < trials; ++trial) {
    double now = 0.0, waited = 0.0;
    // The next reclaim that takes one of the job's nodes, after `t` (events during a wait or a
    // restart find nothing of the job's running).
    const auto next_hit = [&](double t) {
      for (;;) {
        t += gap(gen);
        bool hit = false;
        for (int n = 0; n < in.nodes; ++n) hit = taken(gen) || hit;
        if (hit) return t;
      }
    };
    double hit = next_hit(0.0);
    for (std::int64_t done = 0; done < in.steps;) {
      const std::int64_t steps = std::min(per, in.steps - done);
      const bool last = done + steps >= in.steps;
      const double end = now + static_cast<double>(steps) * step_h + (last ? 0.0 : stall_h);
      if (hit >= end) {
        now = end;
        done += steps;
        continue;
      }
      const double w = wait(gen);
      waited += w;
      now = hit + w + restart_h;
      hit = next_hit(now);
    }
    hours.push_back(now);
    billed_sum += now - waited;
  }
  std::sort(hours.begin(), hours.end());
  Walked out;
  for (double h : hours) out.mean_hours += h / trials;
  out.p90_hours = hours[static_cast<std::size_t>(0.9 * trials) - 1];
  out.mean_billed = billed_sum / trials;
  return out;
}

// At 3 reclaim events an hour the run sees ~30 interruptions and the Monte Carlo walks them one by
// one; at 5, ~55, and it draws the run as one normal sum over its 40 segments: both must agree with
// the walk here.
TEST(SpotReclaims, WaitsForCapacityMatchAnEventByEventWalk) {
  for (const double events : {3.0, 5.0}) {
  const double fraction = 0.106;
  RunInputs in;
  in.steps = 600;
  in.step_seconds = 120.0;  // 20 h of compute
  in.checkpoint.interval_steps = 15;
  in.checkpoint.stall_seconds = 60.0;
  in.checkpoint.read_seconds = 30.0;
  in.restart_seconds = 420.0;
  in.reacquire_hours = 1.4;
  in.nodes = 4;
  in.usd_per_hour = 100.0;
  in.interruptions = InterruptionProcess::poisson(events * fraction, fraction);
  in.trials = 20000;
  const RunOutcome mc = simulate_run(in);
  const Walked w = walk(in, events, fraction, 8000);
  std::cout << events << " events per hour, 4 nodes, 20 h of work, waits of 1.4 h: " << mc.interruptions_expected
            << " interruptions, Monte Carlo " << mc.hours.mean << " h (p90 " << mc.hours.p90 << ", billed "
            << mc.billed_hours << "), event walk " << w.mean_hours << " h (p90 " << w.p90_hours << ", billed " << w.mean_billed
            << "), closed form " << expected_run_hours(in) << " h (billed " << expected_billed_hours(in) << ")\n";
  EXPECT_NEAR(mc.hours.mean, w.mean_hours, 0.02 * w.mean_hours);
  EXPECT_NEAR(mc.hours.p90, w.p90_hours, 0.03 * w.p90_hours);
  EXPECT_NEAR(mc.billed_hours, w.mean_billed, 0.02 * w.mean_billed);
  EXPECT_NEAR(expected_run_hours(in), w.mean_hours, 0.02 * w.mean_hours);
  EXPECT_NEAR(expected_billed_hours(in), w.mean_billed, 0.02 * w.mean_billed);
  // Nothing is billed while the job waits: the machines' dollars follow the billed hours.
  EXPECT_NEAR(mc.compute_usd, 100.0 * mc.billed_hours, 1e-6 * mc.compute_usd);
  EXPECT_GT(mc.hours.mean - mc.billed_hours, 5.0);
  }
}

// The wait's closed form, by hand for one segment: s = 2 h at rate 0.5 per hour, restart 0.1 h,
// wait 1 h: E[T] = (1/rate + W + R)(e^(rate s) - 1) = (2 + 1 + 0.1)(e - 1); the waits are
// E[N] W = (e - 1) hours of it.
TEST(SpotReclaims, TheWaitEntersTheRestartFormula) {
  RunInputs in;
  in.steps = 2;
  in.step_seconds = 3600.0;
  in.restart_seconds = 360.0;
  in.reacquire_hours = 1.0;
  in.interruptions = InterruptionProcess::poisson(0.5);
  const double e1 = std::expm1(1.0);
  EXPECT_NEAR(expected_run_hours(in), 3.1 * e1, 1e-12);
  EXPECT_NEAR(expected_billed_hours(in), 3.1 * e1 - e1, 1e-12);
}

}  // namespace
}  // namespace preflight
