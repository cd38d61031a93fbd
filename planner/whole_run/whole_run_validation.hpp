#pragma once
// `validate`'s whole-run set: each published run planned as a user would (published/whole_runs.csv
// gives the scenario), its predicted GPU-hours (the winner's expected hours, with faults, checkpoints
// and start-up, times its GPUs) against the GPU-hours the team published, and the summaries the
// model issue holds it to: the median absolute error and the mean signed error.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/whole_run/published_whole_runs.hpp"

namespace preflight::whole_run {

// The bounds the whole-run issue sets: a median absolute error of at most 25% with no systematic
// optimism (the mean signed error within +-15%).
inline constexpr double kMedianAbsoluteTolerance = 0.25;
inline constexpr double kMeanSignedTolerance = 0.15;

struct WholeRunResult {
  PublishedWholeRun run;  // a copy: the results outlive the file's rows
  // The plan's GPU-hours as the row counts them (run.from_throughput: its steps alone, at the
  // predicted step time; else its expected hours); none: no plan on the published machine.
  std::optional<double> predicted_gpu_hours;
  double wall_hours = 0.0;                    // the plan's expected hours
  double failure_free_share = 0.0;            // of those hours, the share spent in steps (no fault, stall, start-up)
  double mfu = 0.0;
  std::string layout;                         // the plan's strategy in words
  std::string refusal;                        // why there is no plan
  // - when the prediction is below the published figure (optimistic), + when above.
  double error() const { return *predicted_gpu_hours / run.published_gpu_hours - 1.0; }
};

struct WholeRunSummary {
  int rows = 0;         // with a prediction
  int unplanned = 0;    // without one
  double median_absolute = 0.0;
  double mean_signed = 0.0;
  double worst = 0.0;   // the largest absolute error, signed
  bool within_tolerance() const {
    return unplanned == 0 && median_absolute <= kMedianAbsoluteTolerance && mean_signed >= -kMeanSignedTolerance &&
           mean_signed <= kMeanSignedTolerance;
  }
};

struct WholeRunValidation {
  std::filesystem::path file;
  std::vector<WholeRunResult> rows;
  WholeRunSummary all;
  std::map<std::string, WholeRunSummary> by_family;
  // What the plans took whole runs to sustain of a step: fitted to these runs (the errors above are
  // in sample), with its error on families it did not see. interval.rows 0: none (the step alone).
  SustainedThroughput sustained;
};

WholeRunSummary summarize(const std::vector<const WholeRunResult*>& rows);

// One run planned with `fit` (null: the physics alone); a search's refusal of the row's choices
// names the row.
WholeRunResult predict_whole_run(const PublishedWholeRun& run, const Catalog& catalog, const StepModelFit* fit);

// Every run planned with the catalog's fitted step model (`fit`, null: the physics alone) at the
// project's default seed and trials.
WholeRunValidation validate_whole_runs(const std::vector<PublishedWholeRun>& runs, const std::filesystem::path& file,
                                       const Catalog& catalog, const StepModelFit* fit);

}  // namespace preflight::whole_run
