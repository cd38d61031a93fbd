#pragma once
// Reads a config (contract "Config": one point of the search space) from a file, an inline JSON
// string, or the scenario's "config" object, and completes it: micro-batch and gradient
// accumulation are derived from each other so that they multiply with the DP degree to the global
// batch.

#include <string>

#include <nlohmann/json.hpp>

#include "planner/catalog/catalog.hpp"
#include "planner/scenario/scenario.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

struct ConfigSource {
  nlohmann::json json;
  std::string file;  // where it came from, for error messages
  std::string path;  // "$" for a config file, "$.config" inline in a scenario
};

// `argument`: the --config value: a path, or a JSON object given inline ("{...}"); empty: the
// scenario's "config", else (`first_instance` true) one node of its first instance as the job is.
ConfigSource config_source(const std::string& argument, const Scenario& scenario, bool first_instance = false);

StrategyConfig read_strategy_config(const ConfigSource& source, const Scenario& scenario, const Catalog& catalog);

// An InvalidConfig found later (by the memory or run model) as an InputError at the config's key.
[[noreturn]] void rethrow_at(const ConfigSource& source, const InvalidConfig& error);

// The data-parallel degree of a config on its machine.
std::int64_t dp_degree(const StrategyConfig& config, const NodeSpec& node);

}  // namespace preflight
