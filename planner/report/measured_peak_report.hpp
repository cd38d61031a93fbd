#pragma once
// `validate`'s section of measured peak memory: each published run's measured peak against the
// simulated one counted as its source counted it, the runs that ran out of memory against the fit
// verdict, the median absolute and mean signed errors by source, by method and overall, and the rows
// that could not be predicted by reason.

#include <string>

#include <nlohmann/json.hpp>

#include "planner/validation/measured_peaks.hpp"

namespace preflight {

std::string measured_peak_text(const validation::MeasuredPeakValidation& v);
std::string measured_peak_markdown(const validation::MeasuredPeakValidation& v);
nlohmann::ordered_json measured_peak_json(const validation::MeasuredPeakValidation& v);

}  // namespace preflight
