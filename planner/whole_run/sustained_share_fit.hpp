#pragma once
// The sustained share (simulator/spec/sustained_throughput.hpp) fitted to published whole runs: the
// share that makes the median of published over predicted GPU-hours one, each run planned as
// `validate` plans it with the step model's factors; and its honest error: each family of runs
// (one team's models, one stack and cluster) predicted by the share fitted to the other families.
// The run's interval is the spread of those held-out errors.

#include <string>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/whole_run/published_whole_runs.hpp"
#include "simulator/spec/step_model_fit.hpp"

namespace preflight::whole_run {

struct HeldOutFamily {
  std::string family;
  int runs = 0;
  double share = 1.0;       // fitted without the family
  double median_absolute = 0.0;
  double mean_signed = 0.0;  // predicted over published, minus 1
};

struct SustainedShareFit {
  SustainedThroughput sustained;  // fitted to every run, with the held-out error and interval
  std::vector<HeldOutFamily> held_out;
  int runs = 0;  // runs with a plan
};

// `step` is the step model the runs are planned with (its `sustained` is replaced). Plans each run
// up to about eighty times (two rounds of up to eight passes over every run and over each family's
// complement): seconds. Runs counted from a team's throughput are left out (a step's, not a run's).
SustainedShareFit fit_sustained_share(const std::vector<PublishedWholeRun>& runs, const Catalog& catalog, const StepModelFit& step);

}  // namespace preflight::whole_run
