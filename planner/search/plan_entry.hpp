#pragma once
// One configuration the search simulated and priced, and the verdict on it.

#include <string>

#include "planner/run/run_estimate.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/spec/enum_names.hpp"

namespace preflight {

// Why a candidate is out: the contract's reasons, then the search's own prunings.
enum class Verdict { feasible, oom, deadline, budget, probability, invalid, dominated, bounded };
inline constexpr int kVerdicts = 8;
inline constexpr EnumNames<Verdict, kVerdicts> kVerdictNames{{{Verdict::feasible, "feasible"},
                                                              {Verdict::oom, "oom"},
                                                              {Verdict::deadline, "deadline"},
                                                              {Verdict::budget, "budget"},
                                                              {Verdict::probability, "probability"},
                                                              {Verdict::invalid, "invalid"},
                                                              {Verdict::dominated, "dominated"},
                                                              {Verdict::bounded, "cost_bound"}}};
inline std::string to_string(Verdict v) { return std::string(name_of(kVerdictNames, v)); }

// One simulated configuration with its run (prepared; with the Monte Carlo when `monte_carlo`).
struct PlanEntry {
  const NodeSpec* node = nullptr;
  Evaluation evaluation;
  RunEstimate run;
  bool monte_carlo = false;
  bool confirmed = false;  // its Monte Carlo ran the full trial count (the search screens with fewer)
  Verdict verdict = Verdict::feasible;

  const StrategyConfig& config() const { return evaluation.config; }
  double lower_bound_usd() const { return run.lower_bound_usd; }
  double expected_usd() const { return run.expected_usd; }
  // The Monte Carlo's means where it ran, else the closed form's.
  double mean_usd() const { return monte_carlo ? run.outcome.usd.mean : expected_usd(); }
  double mean_hours() const { return monte_carlo ? run.outcome.hours.mean : run.expected_hours; }
};

}  // namespace preflight
