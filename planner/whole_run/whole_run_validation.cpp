#include "planner/whole_run/whole_run_validation.hpp"

#include <algorithm>
#include <cmath>

#include "planner/scenario/scenario.hpp"
#include "planner/search/plan_search.hpp"
#include "planner/text/candidate_text.hpp"
#include "simulator/economics/step_time_uncertainty.hpp"
#include "simulator/hardware/compute_model.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::whole_run {

namespace {

// A row's scenario (its JSON paths are the row's columns).
Scenario scenario_of(const PublishedWholeRun& run, const Catalog& catalog) { return read_scenario(run.scenario, run.file, catalog); }

WholeRunResult predict_row(const PublishedWholeRun& run, const Catalog& catalog, const StepModelFit* fit) {
  const Scenario scenario = scenario_of(run, catalog);
  PlanOptions options;
  options.fit = fit;
  options.top = 0;
  options.suggest = false;
  const Plan plan = search_plan(scenario, catalog, options);
  WholeRunResult r;
  r.run = run;
  if (!plan.best) {
    r.refusal = "no feasible plan on " + std::to_string(run.gpus) + " GPUs of the published machine";
    return r;
  }
  const PlanEntry& best = *plan.best;
  r.wall_hours = best.mean_hours();
  const double gpus = static_cast<double>(best.config().nodes * best.node->gpus_per_node);
  // A team's measured throughput is a step's: the stepping alone at the step model's mean multiplier,
  // without what whole runs lose beside their steps (the sustained share).
  const double stepping_hours = static_cast<double>(best.run.steps) * best.run.inputs.step_seconds *
                                mean_step_time_multiplier(best.evaluation.step_interval) / 3600.0;
  r.predicted_gpu_hours = (run.from_throughput ? stepping_hours : r.wall_hours) * gpus;
  r.failure_free_share = best.run.outcome.failure_free_hours * mean_step_time_multiplier(best.run.inputs.step_interval) / r.wall_hours;
  if (best.evaluation.step) {
    const StepTime& step = *best.evaluation.step;
    r.mfu = step.model_flops / (step.seconds() * peak_flops(best.node->gpu, scenario.training().precision));
  }
  r.layout = strategy_text(best.config());
  return r;
}

}  // namespace

WholeRunResult predict_whole_run(const PublishedWholeRun& run, const Catalog& catalog, const StepModelFit* fit) {
  try {
    return predict_row(run, catalog, fit);
  } catch (const InputError& e) {
    if (e.json_path().starts_with("row ")) throw;
    throw InputError(e.file(), "row \"" + run.id + "\": " + e.json_path(), e.value(), e.allowed());
  }
}

WholeRunSummary summarize(const std::vector<const WholeRunResult*>& rows) {
  WholeRunSummary s;
  std::vector<double> absolute;
  for (const WholeRunResult* r : rows) {
    if (!r->predicted_gpu_hours) {
      ++s.unplanned;
      continue;
    }
    const double e = r->error();
    ++s.rows;
    s.mean_signed += e;
    absolute.push_back(std::abs(e));
    if (std::abs(e) > std::abs(s.worst)) s.worst = e;
  }
  if (s.rows == 0) return s;
  s.mean_signed /= s.rows;
  std::sort(absolute.begin(), absolute.end());
  const std::size_t n = absolute.size();
  s.median_absolute = n % 2 == 1 ? absolute[n / 2] : 0.5 * (absolute[n / 2 - 1] + absolute[n / 2]);
  return s;
}

WholeRunValidation validate_whole_runs(const std::vector<PublishedWholeRun>& runs, const std::filesystem::path& file,
                                       const Catalog& catalog, const StepModelFit* fit) {
  WholeRunValidation v;
  v.file = file;
  if (fit != nullptr) v.sustained = fit->sustained;
  v.rows.reserve(runs.size());
  // One at a time: each plan already searches on every thread.
  for (const PublishedWholeRun& run : runs) v.rows.push_back(predict_whole_run(run, catalog, fit));
  std::vector<const WholeRunResult*> all;
  std::map<std::string, std::vector<const WholeRunResult*>> families;
  for (const WholeRunResult& r : v.rows) {
    all.push_back(&r);
    families[r.run.family].push_back(&r);
  }
  v.all = summarize(all);
  for (const auto& [family, rows] : families) v.by_family[family] = summarize(rows);
  return v;
}

}  // namespace preflight::whole_run
