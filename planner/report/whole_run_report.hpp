#pragma once
// `validate`'s whole-run section: each published pre-training run's GPU-hours against the plan's, the
// plan's layout and MFU, and the median absolute and mean signed errors per family and overall with
// the bounds they are held to.

#include <string>

#include <nlohmann/json.hpp>

#include "planner/whole_run/whole_run_validation.hpp"

namespace preflight {

std::string whole_run_text(const whole_run::WholeRunValidation& v);
std::string whole_run_markdown(const whole_run::WholeRunValidation& v);
nlohmann::ordered_json whole_run_json(const whole_run::WholeRunValidation& v);

}  // namespace preflight
