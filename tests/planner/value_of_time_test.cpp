// The value of wall time (constraints.value_of_time_usd_per_hour): set, the plan minimises cost +
// value x expected hours; set or not, it names the fastest plan within +25% of the winner's cost (or
// the cheapest faster one beyond it).

#include <gtest/gtest.h>

#include <string>

#include "planner/search/plan_search.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

Scenario seventy_b() {
  return load_scenario(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-70b-sft-a100.json", test::catalog());
}

PlanOptions as_the_cli() {
  PlanOptions o;
  o.fit = test::catalog().step_model_fit();
  return o;
}

bool any_line(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& l : lines) {
    if (l.find(part) != std::string::npos) return true;
  }
  return false;
}

// The bundled 70B full fine-tune: cheapest, it runs for days on one node; at $500 an hour of wall
// time it finishes within a day, and its cost plus its time is below the cheapest plan's.
TEST(ValueOfTime, FiveHundredDollarsAnHourFinishesWithinADay) {
  const Plan cheapest = search_plan(seventy_b(), test::catalog(), as_the_cli());
  Scenario s = seventy_b();
  s.constraints.value_of_time_usd_per_hour = 500.0;
  const Plan valued = search_plan(s, test::catalog(), as_the_cli());
  ASSERT_TRUE(cheapest.best && valued.best);
  const RunOutcome& c = cheapest.best->run.outcome;
  const RunOutcome& v = valued.best->run.outcome;
  EXPECT_GT(c.hours.mean, 24.0);
  EXPECT_LE(v.hours.mean, 24.0);
  EXPECT_GE(v.usd.mean, c.usd.mean);
  EXPECT_LT(v.usd.mean + 500.0 * v.hours.mean, c.usd.mean + 500.0 * c.hours.mean);
  EXPECT_TRUE(any_line(valued.reasons, "lowest cost + $500 x expected hours"));
  EXPECT_TRUE(any_line(valued.reasons, "at $500 an hour of wall time"));
}

// Without a value of time the plan still says what a little more money buys: here no plan within
// +25% is faster, and the cheapest faster one (several nodes) costs more but is many times faster.
TEST(ValueOfTime, EveryPlanNamesWhatMoreMoneyBuys) {
  const Plan p = search_plan(seventy_b(), test::catalog(), as_the_cli());
  ASSERT_TRUE(p.best);
  if (p.fastest_within) {
    EXPECT_LE(p.fastest_within->run.outcome.usd.mean, 1.25 * p.best->run.outcome.usd.mean);
    EXPECT_LT(p.fastest_within->run.outcome.hours.mean, p.best->run.outcome.hours.mean);
    EXPECT_TRUE(any_line(p.reasons, "fastest within +25% of this cost"));
  } else {
    EXPECT_TRUE(any_line(p.reasons, "no plan within +25% of this cost is faster; the cheapest faster one"));
  }
}

}  // namespace
}  // namespace preflight
