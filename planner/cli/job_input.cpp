#include "planner/cli/job_input.hpp"

#include "planner/cli/common_options.hpp"
#include "planner/import/config_import.hpp"
#include "planner/import/imported_job.hpp"
#include "planner/import/imported_report.hpp"

namespace preflight::cli {

void add_from_option(CLI::App& command, std::vector<std::string>& files) {
  command.add_option("--from", files,
                     "Your own training file to start from (repeatable): a DeepSpeed JSON, an Accelerate, axolotl, "
                     "TrainingArguments or SkyPilot YAML, a torchtitan TOML, a Megatron/torchrun/Slurm launch script")
      ->check(not_empty());
}

JobInput load_job(const std::string& scenario_file, const std::vector<std::string>& from, const Catalog& catalog, bool for_plan,
                  const std::function<void(ImportedSetup&)>& more) {
  ImportedSetup imported = from.empty() ? ImportedSetup{} : import_files(from, catalog);
  if (more) more(imported);
  if (imported.empty()) return {{}, load_scenario(scenario_file, catalog), nullptr};
  Scenario scenario = load_imported_scenario(scenario_file, catalog, imported, for_plan);
  return {std::move(imported), std::move(scenario), nullptr};
}

StrategyConfig read_job_config(ConfigSource& source, JobInput& job, const Catalog& catalog,
                               const std::function<nlohmann::ordered_json(ConfigSource&)>& machine) {
  // The machine first (check --here): the launch's world size is then checked against its GPUs.
  if (machine) job.here = machine(source);
  if (!job.imported.empty()) {
    source = imported_config_source(std::move(source), job.imported, job.scenario, catalog);
  }
  if (job.imported.empty()) return read_strategy_config(source, job.scenario, catalog);
  if (complete_global_batch(job.imported, source.json, job.scenario, catalog)) {
    // The scenario is read again with the global batch; the machine found here stays in it.
    std::vector<NodeSpec> here = job.scenario.clusters;
    job.scenario = load_imported_scenario(job.scenario.file.string(), catalog, job.imported, false);
    job.scenario.clusters = here;
  }
  return read_imported_config(source, job.imported, job.scenario, catalog);
}

std::string with_imported(const std::string& text, const JobInput& job) {
  return job.imported.empty() ? text : text + "\n" + imported_text(job.imported);
}

void add_imported(nlohmann::ordered_json& report, const JobInput& job) {
  if (!job.imported.empty()) report["imported"] = imported_json(job.imported);
}

}  // namespace preflight::cli
