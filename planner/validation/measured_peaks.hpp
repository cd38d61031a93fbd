#pragma once
// `validate`'s set of measured peak memory (published/measured_peaks.csv): real fine-tuning and
// training runs of six published sources (torchtune, litgpt, torchtitan, PEFT, Unsloth,
// LLaMA-Factory), each with the settings its source states. A row whose settings preflight can express
// is simulated and its peak compared, as the source counted it, with the measurement; a row that ran
// out of memory must not be predicted to fit. A row that cannot be predicted says why (a setting its
// source does not state, or one preflight does not model yet), and is counted by reason.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/catalog/catalog.hpp"

namespace preflight::validation {

struct MeasuredPeakResult {
  std::string id;
  std::string source;  // torchtune, litgpt, ...
  std::string method;  // full, lora, qlora
  std::string kind;    // what the source counted: allocated, reserved, active, nvidia-smi, unstated
  bool ran = true;     // false: the source reports it out of memory
  std::optional<double> measured_gib;
  double predicted_gib = 0.0;  // the simulated peak as the source counts it (see measured_peaks.cpp)
  double capacity_gib = 0.0;
  bool predicted_fits = true;  // the whole simulated peak within the card's memory
  bool sum_of_components = false;  // the peak is the components' sum: no step rates for the GPU
  std::string not_predicted;   // why there is no prediction; empty when there is one
  // A context limit (measured_kind fit_limit): the longest sequence that ran (0: none did), and the
  // longest preflight finds to fit the card with no headroom. Its error is in tokens, not bytes.
  bool limit = false;
  std::int64_t measured_limit = 0;
  std::int64_t predicted_limit = 0;
  bool predicted() const { return not_predicted.empty(); }
  // + when preflight accepts a longer context than ran (optimistic: the job would run out of memory).
  double limit_error() const { return static_cast<double>(predicted_limit) / static_cast<double>(measured_limit) - 1.0; }
  // - when the prediction is below the measurement (optimistic: the job would OOM), + when above.
  double error() const { return predicted_gib / *measured_gib - 1.0; }
};

struct MeasuredPeakSummary {
  int rows = 0;  // predicted rows with a measured peak
  double median_absolute = 0.0;
  double mean_signed = 0.0;
  double worst = 0.0;          // the largest absolute error, signed
  int out_of_memory_rows = 0;  // predicted rows that ran out of memory
  int oom_called_fitting = 0;  // of them, predicted to fit: the dangerous miss
  int ran_called_oom = 0;      // rows that ran, predicted not to fit
};

// Context limits: the longest sequence predicted to fit against the longest that ran.
struct ContextLimitSummary {
  int rows = 0;  // predicted limits of runs that fit at some length
  double median_absolute = 0.0;
  double mean_signed = 0.0;
  double worst = 0.0;
  int longer_than_ran = 0;     // predicted longer than the measured limit: the optimistic direction
  int out_of_memory_rows = 0;  // runs that fit at no length
  int oom_called_fitting = 0;  // of them, some length predicted to fit
};

struct MeasuredPeakValidation {
  std::filesystem::path file;
  std::vector<MeasuredPeakResult> rows;
  MeasuredPeakSummary all;
  std::map<std::string, MeasuredPeakSummary> by_source;
  std::map<std::string, MeasuredPeakSummary> by_method;
  std::map<std::string, int> not_predicted;  // reason -> rows
  ContextLimitSummary limits;
};

// published/measured_peaks.csv of this checkout (or the installed copy).
std::filesystem::path measured_peaks_file();

// Every row predicted (with the catalog's models and instances, and the configs beside the file).
// Throws InputError naming the file, line and column of a malformed row.
MeasuredPeakValidation validate_measured_peaks(const std::filesystem::path& file, const Catalog& catalog);

}  // namespace preflight::validation
