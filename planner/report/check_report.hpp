#pragma once
// What `preflight check` prints: the verdict for the given config, its memory breakdown against
// capacity, and the remedy ladder when it does not fit. Text for people, JSON for tools.

#include <string>

#include <nlohmann/json.hpp>

#include "planner/check/check_outcome.hpp"

namespace preflight {

std::string check_text(const CheckOutcome& outcome);
nlohmann::ordered_json check_json(const CheckOutcome& outcome);

}  // namespace preflight
