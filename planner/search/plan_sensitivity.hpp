#pragma once
// What drives the answer: the winner's cost and P(deadline) at the optimistic and pessimistic end of
// each assumption no datasheet fixes (the interruption rate, the wait for capacity after a reclaim,
// the price zone, the step time), each varied alone with the plan as chosen (its checkpoint interval
// kept), by the same Monte Carlo (kScreeningTrials each); and, for a spot plan, the interruption rate
// at which it stops being cheaper than the same config on demand.

#include <optional>
#include <string>
#include <vector>

#include "planner/scenario/scenario.hpp"
#include "planner/search/plan.hpp"

namespace preflight {

std::vector<SensitivityRow> plan_sensitivity(const PlanEntry& winner);

// Empty unless the winner runs on spot under a Poisson rate and the machine lists an on-demand price.
// The spot side is the closed-form mean of the winner's config on pure spot, the on-demand side the
// plan's own figure for the same config on demand (else its steps at the on-demand quote), both at
// the step-time multiplier's mean.
std::optional<SpotBreakEven> spot_break_even(const Scenario& scenario, const Plan& plan);

}  // namespace preflight
