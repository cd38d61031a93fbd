#pragma once
// What a calibration profile given with --profile leaves to the named defaults, said on stderr: every
// command that takes --profile warns the same way.

#include <iosfwd>

#include "planner/catalog/catalog.hpp"
#include "planner/scenario/scenario.hpp"
#include "simulator/spec/calibration_profile.hpp"

namespace preflight::cli {

// The profile describes no machine the plan searches (it would change nothing).
void warn_unused_profile(const CalibrationProfile* profile, const Scenario& scenario, const Catalog& catalog, std::ostream& err);

// For one config on one machine: another GPU, shapes outside its grid, a precision it did not measure.
void warn_about_profile(const CalibrationProfile* profile, const Scenario& scenario, const NodeSpec& node,
                        const StrategyConfig& config, std::ostream& err);

}  // namespace preflight::cli
