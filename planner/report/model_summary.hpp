#pragma once
// The model a scenario trains, as every report names it: where it was read from, its architecture,
// its parameter count (and a mixture of experts' share one token passes through), and what the
// reader could not take as written.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/scenario/scenario.hpp"

namespace preflight {

// "catalog llama-2-7b (llama): 6,738,415,616 parameters", then each note of the reader.
std::vector<std::string> model_lines(const Scenario& scenario);

// {"name", "source", "parameters", "active_parameters", "architecture", "notes"}.
nlohmann::ordered_json model_json(const Scenario& scenario);

}  // namespace preflight
