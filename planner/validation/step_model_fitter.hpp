#pragma once
// The honest fit of the step model's open factors to the published datasets: a handful of physically
// meaningful parameters, each bounded to a plausible range and informed only by the rows it moves
// (a GPU generation's kernel efficiency by that generation's rows, the host time shared by every stack
// by all rows and each stack's deviation from it by that stack's rows, with a prior at 1, the overlap
// slowdown by rows whose compute collectives overlap), fitted by coordinate descent on the mean
// squared log error, every dataset weighing the same. Then what it does on data it did not
// see: leave one dataset out, and five folds within every dataset; and from the folds' held-out
// residuals the 80% prediction intervals, whose coverage is itself checked on held-out folds.

#include <optional>
#include <string>
#include <vector>

#include "planner/validation/validation_results.hpp"
#include "simulator/spec/step_model_fit.hpp"

namespace preflight::validation {

struct FittedParameter {
  std::string name;  // "kernel_efficiency.ampere", "host_time.shared", "host_time.megatron", "overlapped_compute_slowdown"
  double value = 0.0;
  double low = 0.0, high = 0.0;
  int rows = 0;                       // rows that informed it (0: left at its prior)
  std::vector<std::string> datasets;  // where they came from
};

struct HeldOut {
  std::string dataset;
  ErrorSummary in_sample;        // under the fit over all data
  ErrorSummary without_dataset;  // under the fit that never saw this dataset
  ErrorSummary k_fold;           // each row under the fit that did not see its fold
  // Under the fit that never saw this dataset, then calibrated on one other row of the same model
  // (what `preflight-calibrate --from-log` does with a trial): mean absolute error over those pairs.
  std::optional<double> without_dataset_calibrated_mae;  // empty: no model with two rows
  double interval_coverage = 0.0;  // share of rows inside the 80% interval built from the other folds
};

struct FitReport {
  StepModelFit fit;
  std::vector<FittedParameter> parameters;
  std::vector<HeldOut> held_out;
  double interval_coverage = 0.0;  // over every row
};

inline constexpr int kFolds = 5;

// The whole procedure over `datasets` (a few seconds on two cores).
FitReport fit_step_model(const std::vector<Dataset>& datasets);

}  // namespace preflight::validation
