#pragma once
// A config as the contract's JSON object, every key written out: what `strategy_config_reader` reads
// back to the same config (plans, sweeps and exports print it; sweep baselines store it).

#include <nlohmann/json.hpp>

#include "simulator/spec/strategy_config.hpp"

namespace preflight {

nlohmann::ordered_json config_json(const StrategyConfig& config);

}  // namespace preflight
