// spot_with_fallback, the Uniform Progress policy (Wu et al., "Can't Be Late", NSDI'24), against an
// implementation written here in the paper's own terms: time in one-minute ticks, spot capacity that
// is there or not, the job on spot, on demand or idle at each tick, and the rules applied tick by tick.
// The Monte Carlo walks events instead of ticks; both must give the same cost, hours and deadline
// probability. Then the policy's limits: a market that never interrupts (all spot) and one that
// always does (all on demand, on time).

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "simulator/economics/run_monte_carlo.hpp"

namespace preflight {
namespace {

struct Policy {
  double work_hours = 40.0;     // compute (checkpoints are free here)
  double segment_hours = 0.5;   // a checkpoint every half hour of work
  double deadline_hours = 80.0;
  double rate = 0.5;            // interruptions per hour while on spot
  double wait_hours = 1.0;      // mean time capacity stays away after one
  double restart_hours = 0.1;   // every start of a stint
  double spot_usd = 10.0, on_demand_usd = 30.0;  // per hour
};

struct Ticked {
  double mean_usd = 0.0, mean_hours = 0.0, p_deadline = 0.0, fallback_share = 0.0;
};

// The tick simulation. Restarts are spent on the machines being started, progress is kept at
// checkpoints, and the rules are the paper's, in the order its policy applies them: on demand to
// the end when idle with less slack than 2 restarts and one checkpoint interval (4), else spot when it
// is there (2), else catch up on demand when behind t x work / deadline (1); an on-demand catch-up
// ends at a checkpoint once spot is back (3).
Ticked ticks(const Policy& p, int trials) {
  const double dt = 1.0 / 60.0;
  std::mt19937_64 gen(2024);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::exponential_distribution<double> wait(1.0 / p.wait_hours);
  const double p_interrupt = -std::expm1(-p.rate * dt);
  Ticked out;
  for (int trial = 0; trial < trials; ++trial) {
    enum class Mode { spot, on_demand, idle, on_demand_to_end } mode = Mode::spot;
    double t = 0.0, done = 0.0, restart_left = 0.0, back = 0.0, spot_h = 0.0, od_h = 0.0;
    bool used_od = false;
    while (done < p.work_hours - 1e-9) {
      const double left = p.work_hours - std::floor(done / p.segment_hours + 1e-9) * p.segment_hours;
      if (mode == Mode::idle) {
        const double slack = p.deadline_hours - t - left;
        if (slack < 2.0 * p.restart_hours + p.segment_hours) {
          mode = Mode::on_demand_to_end;
          restart_left = p.restart_hours;
          used_od = true;
        } else if (t >= back) {
          mode = Mode::spot;
          restart_left = p.restart_hours;
        } else if (done < t * p.work_hours / p.deadline_hours) {
          mode = Mode::on_demand;
          restart_left = p.restart_hours;
          used_od = true;
        }
      }
      t += dt;
      switch (mode) {
        case Mode::idle: break;
        case Mode::spot:
          spot_h += dt;
          if (restart_left > 0.0) {
            restart_left -= dt;
          } else if (u(gen) < p_interrupt) {
            done = std::floor(done / p.segment_hours + 1e-9) * p.segment_hours;  // back to the last checkpoint
            back = t + wait(gen);
            mode = Mode::idle;
          } else {
            done += dt;
          }
          break;
        case Mode::on_demand:
        case Mode::on_demand_to_end: {
          od_h += dt;
          if (restart_left > 0.0) {
            restart_left -= dt;
            break;
          }
          const double before = done;
          done += dt;
          const bool checkpoint = std::floor(done / p.segment_hours + 1e-9) > std::floor(before / p.segment_hours + 1e-9);
          if (mode == Mode::on_demand && checkpoint && t >= back) {
            const double rest = p.work_hours - std::floor(done / p.segment_hours + 1e-9) * p.segment_hours;
            if (p.deadline_hours - t < rest + 2.0 * p.restart_hours + p.segment_hours) {
              mode = Mode::on_demand_to_end;
            } else {
              mode = Mode::spot;
              restart_left = p.restart_hours;
            }
          }
          break;
        }
      }
    }
    out.mean_usd += (spot_h * p.spot_usd + od_h * p.on_demand_usd) / trials;
    out.mean_hours += t / trials;
    out.p_deadline += (t <= p.deadline_hours ? 1.0 : 0.0) / trials;
    out.fallback_share += (used_od ? 1.0 : 0.0) / trials;
  }
  return out;
}

RunInputs inputs(const Policy& p, int trials) {
  RunInputs in;
  in.steps = static_cast<std::int64_t>(std::llround(p.work_hours * 60.0));
  in.step_seconds = 60.0;
  in.checkpoint.interval_steps = static_cast<std::int64_t>(std::llround(p.segment_hours * 60.0));
  in.restart_seconds = p.restart_hours * 3600.0;
  in.reacquire_hours = p.wait_hours;
  in.usd_per_hour = p.spot_usd;
  in.fallback_usd_per_hour = p.on_demand_usd;
  in.deadline_hours = p.deadline_hours;
  in.interruptions = InterruptionProcess::poisson(p.rate);
  in.trials = trials;
  return in;
}

TEST(SpotFallback, MatchesTheRulesTickByTick) {
  for (const double deadline : {55.0, 80.0, 150.0}) {
    Policy p;
    p.deadline_hours = deadline;
    const RunOutcome mc = simulate_run(inputs(p, 20000));
    const Ticked t = ticks(p, 3000);
    std::cout << "deadline " << deadline << " h: Monte Carlo $" << mc.usd.mean << ", " << mc.hours.mean << " h, P " << mc.p_meets_deadline
              << ", on demand in " << mc.fallback_probability << "; tick by tick $" << t.mean_usd << ", " << t.mean_hours
              << " h, P " << t.p_deadline << ", on demand in " << t.fallback_share << "\n";
    EXPECT_NEAR(mc.usd.mean, t.mean_usd, 0.03 * t.mean_usd) << deadline;
    EXPECT_NEAR(mc.hours.mean, t.mean_hours, 0.03 * t.mean_hours) << deadline;
    EXPECT_NEAR(mc.p_meets_deadline, t.p_deadline, 0.02) << deadline;
    EXPECT_NEAR(mc.fallback_probability, t.fallback_share, 0.03) << deadline;
  }
}

// Never interrupted: all of it on spot. Always interrupted: on time, the work on demand, plus the
// restarts of the on-demand stints the policy starts each time it has tried spot again (rule 2 takes
// spot whenever capacity is back).
TEST(SpotFallback, TheTwoLimits) {
  Policy calm;
  calm.rate = 0.0;
  const RunOutcome quiet = simulate_run(inputs(calm, 1000));
  EXPECT_NEAR(quiet.usd.mean, calm.work_hours * calm.spot_usd, 1e-9);
  EXPECT_EQ(quiet.fallback_probability, 0.0);

  Policy storm;
  storm.rate = 200.0;  // a reclaim every 18 s
  const RunOutcome stormy = simulate_run(inputs(storm, 4000));
  EXPECT_EQ(stormy.p_meets_deadline, 1.0);
  EXPECT_EQ(stormy.fallback_probability, 1.0);
  EXPECT_GE(stormy.fallback_hours, storm.work_hours);
  EXPECT_LT(stormy.fallback_hours, 1.15 * storm.work_hours);
  EXPECT_LT(stormy.usd.mean, 1.2 * storm.on_demand_usd * storm.work_hours);
}

// Capacity back at once (no wait): the job never idles, so only rule 4 saves the deadline, and it
// must still fire when the slack runs out.
TEST(SpotFallback, TheSafetyNetFiresWithoutAWaitForCapacity) {
  Policy p;
  p.wait_hours = 0.0;
  p.rate = 0.9;
  p.deadline_hours = 52.0;  // pure spot takes (1/0.9 + 0.1)(e^0.45 - 1) = 0.69 h a half-hour segment: 55 h
  RunInputs in = inputs(p, 4000);
  in.reacquire_hours = 0.0;
  const RunOutcome fallback = simulate_run(in);
  in.fallback_usd_per_hour = 0.0;
  const RunOutcome pure = simulate_run(in);
  EXPECT_LT(pure.p_meets_deadline, 0.9);
  EXPECT_GT(fallback.p_meets_deadline, 0.99);
  EXPECT_GT(fallback.fallback_probability, 0.0);
}

// The last stretch on demand runs the steps alone: on demand a job checkpoints against hardware
// failures (hours apart), not at the spot cadence. With a 6-minute stall every half hour of work on
// spot (20%) and a deadline that leaves no slack beyond rule 4's margin, the job goes on demand at
// its first interruption and does 40 h of work there, not 48.
TEST(SpotFallback, TheLastStretchOnDemandSkipsTheSpotCheckpoints) {
  Policy storm;
  storm.rate = 200.0;
  RunInputs in = inputs(storm, 2000);
  in.checkpoint.stall_seconds = 360.0;
  in.deadline_hours = 40.8;  // 40 h of steps + 2 restarts + one 0.6 h segment: rule 4 at once
  const RunOutcome o = simulate_run(in);
  EXPECT_EQ(o.p_meets_deadline, 1.0);
  EXPECT_NEAR(o.fallback_hours, storm.work_hours + storm.restart_hours, 0.02 * storm.work_hours);
}

// Against pure spot on a market that makes spot late: the fallback meets the deadline far more often
// and costs less than on demand.
TEST(SpotFallback, BeatsSpotOnTimeAndOnDemandOnCost) {
  Policy p;
  p.rate = 0.8;
  p.deadline_hours = 60.0;
  const RunOutcome fallback = simulate_run(inputs(p, 10000));
  RunInputs spot = inputs(p, 10000);
  spot.fallback_usd_per_hour = 0.0;
  const RunOutcome pure = simulate_run(spot);
  const double on_demand = p.work_hours * p.on_demand_usd;
  std::cout << "spot: P " << pure.p_meets_deadline << ", $" << pure.usd.mean << "; fallback: P " << fallback.p_meets_deadline << ", $"
            << fallback.usd.mean << "; on demand $" << on_demand << "\n";
  EXPECT_LT(pure.p_meets_deadline, 0.9);
  EXPECT_GT(fallback.p_meets_deadline, 0.99);
  EXPECT_LT(fallback.usd.mean, on_demand);
}

}  // namespace
}  // namespace preflight
