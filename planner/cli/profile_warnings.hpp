#pragma once
// What a calibration profile given with --profile leaves to the named defaults, and what a GPU borrows
// from another generation's published figures, said on stderr: every command warns the same way.

#include <iosfwd>

#include "planner/catalog/catalog.hpp"
#include "planner/scenario/scenario.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/spec/calibration_profile.hpp"

namespace preflight::cli {

// The profile describes no machine the plan searches (it would change nothing).
void warn_unused_profile(const CalibrationProfile* profile, const Scenario& scenario, const Catalog& catalog, std::ostream& err);

// For one config on one machine: another GPU, shapes outside its grid, a precision it did not measure.
void warn_about_profile(const CalibrationProfile* profile, const Scenario& scenario, const NodeSpec& node,
                        const StrategyConfig& config, std::ostream& err);

// Kernel figures the machine's GPU takes from the nearest generation (no published measurement of its own).
void warn_about_borrowed_figures(const Machine& machine, std::ostream& err);

}  // namespace preflight::cli
