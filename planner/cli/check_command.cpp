#include <ostream>

#include "planner/check/check_report.hpp"
#include "planner/cli/commands.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "simulator/core/errors.hpp"

namespace preflight::cli {

namespace {

// Without any config, check the job as-is on one node of the scenario's first instance.
ConfigSource default_config(const Scenario& s) {
  if (s.search.instances.empty()) {
    throw InputError(s.file.string(), "$.config", "nothing (no --config, no inline \"config\", no search.instances)",
                     "a config: --config FILE, --config '{...}', or \"config\" in the scenario");
  }
  return {nlohmann::json{{"instance", s.search.instances.front()}}, s.file.string(), "$.search.instances[0]"};
}

}  // namespace

int run_check_command(const CheckOptions& options, std::ostream& out, std::ostream&) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  const Scenario scenario = load_scenario(options.scenario, catalog);
  const ConfigSource source = (options.config.empty() && !scenario.config_json) ? default_config(scenario)
                                                                                : config_source(options.config, scenario);
  const StrategyConfig config = read_strategy_config(source, scenario, catalog);
  const NodeSpec& node = *find_node(scenario, catalog, config.instance);
  const CheckOutcome outcome = run_check(scenario, node, config);
  if (options.format == "json") {
    out << check_json(outcome).dump(2) << "\n";
  } else {
    out << check_text(outcome);
  }
  return outcome.given.memory.fits() ? 0 : 1;
}

}  // namespace preflight::cli
