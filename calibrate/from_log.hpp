#pragma once
// `preflight-calibrate --from-log LOG --scenario SCENARIO.json [--config CONFIG.json]`: a profile from
// a trial run's own log instead of microbenchmarks (planner/trial/trial_fit.hpp fits it). The
// profile's `step_model` section then replaces the catalog's fitted factors for this GPU and stack,
// and its predictions carry the narrower interval of a calibrated machine.

#include <optional>
#include <ostream>
#include <string>

#include "simulator/spec/calibration_profile.hpp"

namespace preflight::calibrate {

struct FromLogOptions {
  std::string log;
  std::string scenario;
  std::string config;   // empty: the scenario's inline config
  std::string catalog;  // empty: the bundled catalog
  std::string measured_at;
};

// The profile, with before / after / measured said on `report`. Throws InputError and InvalidConfig.
CalibrationProfile profile_from_log(const FromLogOptions& options, std::ostream& report);

}  // namespace preflight::calibrate
