#pragma once
// The fit as catalogs/fitted/step_model.json ships it (what read_step_model_fit reads back), values
// rounded to six decimals so a re-run writes the same bytes.

#include <string>

#include <nlohmann/json.hpp>

#include "planner/validation/step_model_fitter.hpp"

namespace preflight::validation {

// With "sustained_throughput" last when the report's fit carries one (validate --refit fits it after
// the step factors, from whole runs planned with them).
nlohmann::ordered_json step_model_fit_json(const FitReport& report, const std::string& as_of);

nlohmann::ordered_json sustained_throughput_json(const SustainedThroughput& t);

}  // namespace preflight::validation
