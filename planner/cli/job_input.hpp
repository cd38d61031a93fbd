#pragma once
// The scenario and config a command runs, with the user's own training files (`--from`) on top:
// declared once so check, simulate and plan read them the same way.

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "planner/catalog/catalog.hpp"
#include "planner/import/imported_setup.hpp"
#include "planner/scenario/scenario.hpp"
#include "planner/scenario/strategy_config_reader.hpp"

namespace preflight::cli {

// --from FILE (repeatable).
void add_from_option(CLI::App& command, std::vector<std::string>& files);

struct JobInput {
  ImportedSetup imported;  // empty without --from
  Scenario scenario;
  nlohmann::ordered_json here;  // check --here: what was found on this machine; null otherwise
};

// `for_plan`: the files' config keys fix the search (search.fixed) instead of making a config.
// `more`: other sources of the job beside the files (check's --model), added before the scenario is read.
JobInput load_job(const std::string& scenario_file, const std::vector<std::string>& from, const Catalog& catalog, bool for_plan,
                  const std::function<void(ImportedSetup&)>& more = {});

// The config of `source` with the files' keys on top (source.json completed in place), read.
// `machine`: called with the completed source before it is read (check --here moves it onto this
// machine); what it returns is kept as job.here.
StrategyConfig read_job_config(ConfigSource& source, JobInput& job, const Catalog& catalog,
                               const std::function<nlohmann::ordered_json(ConfigSource&)>& machine = {});

// A report with what was read from the files: in the JSON object as "imported", after a text report.
std::string with_imported(const std::string& text, const JobInput& job);
void add_imported(nlohmann::ordered_json& report, const JobInput& job);

}  // namespace preflight::cli
