#pragma once
// The job a command runs when `--from` files are given: the scenario with what the files say about
// the training on top (their values win: they are the run as the user launches it; what they do not
// say comes from the scenario), and the config they describe, completed from the scenario's (or
// --config's) and the machine's size. A value preflight refuses is reported at the file and key it
// came from.

#include <string>

#include "planner/catalog/catalog.hpp"
#include "planner/import/imported_setup.hpp"
#include "planner/scenario/scenario.hpp"
#include "planner/scenario/strategy_config_reader.hpp"

namespace preflight {

// `for_plan`: the files' config keys become search.fixed (the search keeps them) instead of a config.
// For plan, a micro-batch and accumulation without a global batch (the Trainer's rule makes it their
// product times the ranks, which the search varies) fix the micro-batch only: the scenario's global
// batch stands and the accumulation follows from it on each machine and node count (said in a note).
Scenario load_imported_scenario(const std::string& scenario_file, const Catalog& catalog, ImportedSetup& setup, bool for_plan);

// `base`: the config from --config, the scenario's "config", or its first instance. The files' keys
// replace its keys; a node count follows from the GPUs the files launch and the machine's GPUs per
// node (recorded in `setup` as the launch's, for messages).
ConfigSource imported_config_source(ConfigSource base, ImportedSetup& setup, const Scenario& scenario, const Catalog& catalog);

// The global batch a batch per rank without accumulation implies on the config's machine and node
// count, recorded in `setup`; false when there is nothing to add (the scenario is then reloaded by
// the caller when true).
bool complete_global_batch(ImportedSetup& setup, const nlohmann::json& config, const Scenario& scenario, const Catalog& catalog);

// read_strategy_config, with errors moved to the files' keys.
StrategyConfig read_imported_config(const ConfigSource& source, const ImportedSetup& setup, const Scenario& scenario, const Catalog& catalog);

}  // namespace preflight
