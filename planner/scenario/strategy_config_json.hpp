#pragma once
// A config as the contract's JSON object, every key written out: what `strategy_config_reader` reads
// back to the same config (plans, sweeps and exports print it; sweep baselines and shards store it);
// and the reading of the fields that need no machine or scenario, which both readers share.

#include <nlohmann/json.hpp>

#include "planner/io/json_reader.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

nlohmann::ordered_json config_json(const StrategyConfig& config);

// The layout keys (framework, parallelism, sharding, offload, activation_checkpointing,
// flash_attention, zero_init), each optional with its default (framework: as `config` came in).
void read_layout_fields(io::ObjectReader& r, StrategyConfig& config);
// The rollout key of an RL job (placement, tp, gpus, memory_share), each optional; gpus alone means
// placement separate.
void read_rollout_fields(io::ObjectReader& r, StrategyConfig& config);
// The run keys (pricing, region, zone, checkpoint_interval_minutes), each optional with its default.
void read_run_fields(io::ObjectReader& r, StrategyConfig& config);

// A config as config_json writes it (a sweep row's), checked key by key and type by type without a
// machine: what `merge` and a baseline read back. Throws InputError naming file and path.
StrategyConfig read_config_json(const nlohmann::json& json, const std::string& file, const std::string& path);

}  // namespace preflight
