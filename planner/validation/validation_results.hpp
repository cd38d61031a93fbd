#pragma once
// The simulator against every row of the published datasets: each row's predicted time and signed
// error (+ predicted faster than measured), and the summaries `validate` prints (rows, mean absolute
// and signed error, worst, runs that really ran yet are predicted out of memory), per dataset and by
// GPU, precision, stack and regime.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/validation/validation_case.hpp"

namespace preflight::validation {

struct RowResult {
  const ValidationCase* row = nullptr;
  double predicted_seconds = 0.0;
  std::optional<bool> fits;
  double error() const { return speed_error(row->measured_seconds, predicted_seconds); }
};

struct ErrorSummary {
  int rows = 0;
  double mean_absolute = 0.0;
  double mean_signed = 0.0;
  double worst = 0.0;               // the largest absolute error
  int predicted_out_of_memory = 0;  // of the rows that report memory
};

ErrorSummary summarize(const std::vector<const RowResult*>& rows);

struct DatasetResult {
  const Dataset* dataset = nullptr;
  std::vector<RowResult> rows;
  ErrorSummary all;
  std::map<std::string, ErrorSummary> by_gpu, by_precision, by_framework, by_regime;
  bool within_tolerance() const { return all.mean_absolute <= dataset->mae_tolerance && all.predicted_out_of_memory == 0; }
  // What `validate`'s exit status asks of it: within its tolerance, unless the set is not gated.
  bool passes() const { return within_tolerance() || !dataset->gated; }
};

// Every row of every dataset simulated under `fit` (null: the physics alone), rows in parallel.
std::vector<DatasetResult> evaluate_datasets(const std::vector<Dataset>& datasets, const StepModelFit* fit);

}  // namespace preflight::validation
