#pragma once
// Closing the loop from a real run: a short trial on one node measured its step time (and perhaps
// its peak memory); fit this machine's and stack's open factors so the simulator reproduces it, and
// say how the prediction for the trial's own config moved. The kernel efficiency of the GPU (what the
// catalog's fit sets per generation) moves, within [0.3, 1.5]; where even its bounds cannot reach the
// measurement (a host-bound step), it keeps the catalog's figure and the stack's host time moves
// instead, within [0.25, 8]; past that too, both stop at their bounds (and the report says so).
// What `preflight-calibrate --from-log` writes into a profile's `step_model` section.

#include <optional>
#include <string>

#include "planner/io/training_log.hpp"
#include "planner/scenario/scenario.hpp"
#include "simulator/spec/calibration_profile.hpp"
#include "simulator/spec/node_spec.hpp"
#include "simulator/spec/step_model_fit.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

inline constexpr double kTrialKernelLow = 0.3, kTrialKernelHigh = 1.5;
inline constexpr double kTrialHostLow = 0.25, kTrialHostHigh = 8.0;

struct TrialFit {
  double measured_step_seconds = 0.0;
  double predicted_before = 0.0;  // with the catalog's fitted factors
  double predicted_after = 0.0;   // with the factors below
  StepTimeInterval interval_before;
  TrialStepModel step_model;      // what the profile carries
  std::string moved;              // which factors moved, in words
  double predicted_peak_bytes = 0.0;
  std::optional<double> measured_peak_bytes;
  std::string memory_kind;
};

// `fit`: the catalog's fitted factors (null: the physics alone). Throws InvalidConfig when the
// config cannot be simulated on the node, InputError (naming `log_file`) when the log's figure cannot
// be a step of this config.
TrialFit fit_trial(const Scenario& scenario, const NodeSpec& node, const StrategyConfig& config, const StepModelFit* fit,
                   const io::TrainingLog& log, const std::string& log_file);

}  // namespace preflight
