// The `preflight` command line. The only place that turns errors into exit codes:
// 0 done (for `check`: it fits), 1 a valid "no", 2 bad input or usage.

#include <iostream>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <tbb/global_control.h>

#include "planner/cli/commands.hpp"
#include "simulator/core/errors.hpp"

namespace {

constexpr int kBadInput = 2;

void add_sweep_output_options(CLI::App& command, preflight::cli::SweepOutputOptions& o) {
  command.add_option("--format", o.format, "Output format")->check(CLI::IsMember({"csv", "json", "markdown"}));
  command.add_option("--out", o.out, "Write the output to this file instead of stdout");
  command.add_option("--baseline", o.baseline, "An earlier sweep's JSON: print the changes per scenario");
  command.add_option("--max-cost-increase", o.max_cost_increase_pct,
                     "With --baseline: fail (exit 1) when a scenario's expected cost rises by more than this percentage")
      ->check(CLI::Range(0.0, 1e6))
      ->needs("--baseline");  // without a baseline the gate would pass silently
}

// What every command that prices a run takes: a calibration profile and the Monte Carlo's settings.
void add_run_model_options(CLI::App& command, std::string& profile, std::uint64_t& seed, int& trials, int& threads) {
  command.add_option("--profile", profile,
                     "Calibration profile (preflight-calibrate): its measurements replace the defaults on machines with its GPU");
  command.add_option("--seed", seed, "Monte Carlo seed (same seed, same numbers)");
  command.add_option("--trials", trials, "Monte Carlo trials (per configuration)")->check(CLI::Range(1, 10'000'000));
  command.add_option("--threads", threads, "Worker threads (default: all cores); results do not depend on it")
      ->check(CLI::Range(1, 1024));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"preflight: plan the cheapest way to train or fine-tune an LLM before renting a GPU"};
  app.require_subcommand(1);
  app.set_version_flag("--version", PREFLIGHT_VERSION);

  preflight::cli::CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand("check", "Does this job fit in memory? If not, what is the cheapest change that makes it fit?");
  check_cmd->add_option("scenario", check.scenario, "Scenario JSON file")->required();
  check_cmd->add_option("--config", check.config, "Config JSON file, or an inline JSON object");
  check_cmd->add_option("--format", check.format, "Output format")->check(CLI::IsMember({"table", "json"}));
  check_cmd->add_option("--catalog", check.catalog, "Catalog folder (default: the bundled catalogs/)");

  preflight::cli::SimulateOptions simulate;
  int threads = 0;
  CLI::App* simulate_cmd = app.add_subcommand("simulate", "Memory, step time, and the whole run (checkpoints, interruptions, cost) of one config");
  simulate_cmd->add_option("scenario", simulate.scenario, "Scenario JSON file")->required();
  simulate_cmd->add_option("--config", simulate.config, "Config JSON file, or an inline JSON object");
  simulate_cmd->add_option("--format", simulate.format, "Output format")->check(CLI::IsMember({"table", "json"}));
  simulate_cmd->add_option("--catalog", simulate.catalog, "Catalog folder (default: the bundled catalogs/)");
  simulate_cmd->add_option("--trace", simulate.trace, "Write the simulated step as a Chrome/Perfetto trace (JSON)");
  add_run_model_options(*simulate_cmd, simulate.profile, simulate.seed, simulate.trials, threads);

  preflight::cli::PlanCommandOptions plan;
  CLI::App* plan_cmd = app.add_subcommand("plan", "The cheapest configuration that fits, meets the deadline with the required probability and stays within budget, with its reasons");
  plan_cmd->add_option("scenario", plan.scenario, "Scenario JSON file")->required();
  plan_cmd->add_option("--format", plan.format, "Output format")->check(CLI::IsMember({"table", "json", "csv", "markdown", "html"}));
  plan_cmd->add_option("--top", plan.top, "Alternatives to list besides the winner")->check(CLI::Range(0, 100));
  plan_cmd->add_option("--out", plan.out, "Write the output to this file instead of stdout");
  plan_cmd->add_option("--catalog", plan.catalog, "Catalog folder (default: the bundled catalogs/)");
  add_run_model_options(*plan_cmd, plan.profile, plan.seed, plan.trials, threads);

  preflight::cli::ExportOptions exporter;
  CLI::App* export_cmd = app.add_subcommand("export", "Ready-to-use DeepSpeed JSON, Accelerate YAML, torchrun or Megatron-LM command for a config (default: the plan's winner)");
  export_cmd->add_option("target", exporter.target, "deepspeed, accelerate, torchrun or megatron (the one for tensor/pipeline parallelism)")
      ->required()
      ->check(CLI::IsMember({"deepspeed", "accelerate", "torchrun", "megatron"}));
  export_cmd->add_option("scenario", exporter.scenario, "Scenario JSON file")->required();
  export_cmd->add_option("--config", exporter.config, "Config JSON file, or an inline JSON object");
  export_cmd->add_option("--out", exporter.out, "Write the file here instead of stdout");
  export_cmd->add_option("--catalog", exporter.catalog, "Catalog folder (default: the bundled catalogs/)");

  preflight::cli::SweepCommandOptions sweep;
  CLI::App* sweep_cmd = app.add_subcommand("sweep", "Plan every scenario of files and folders, one row each; compare with a baseline and gate on cost");
  sweep_cmd->add_option("inputs", sweep.inputs, "Scenario files and folders (searched for *.json)")->required();
  sweep_cmd->add_option("--shard", sweep.shard, "Plan only slice K of N (K/N), for a CI matrix; join the slices with `merge`");
  sweep_cmd->add_option("--catalog", sweep.catalog, "Catalog folder (default: the bundled catalogs/)");
  add_run_model_options(*sweep_cmd, sweep.profile, sweep.seed, sweep.trials, threads);
  add_sweep_output_options(*sweep_cmd, sweep.output);

  preflight::cli::MergeOptions merge;
  CLI::App* merge_cmd = app.add_subcommand("merge", "Join the JSON of sweep shards into the output of one sweep");
  merge_cmd->add_option("shards", merge.shards, "Sweep JSON files (from `sweep --shard K/N --format json`)")->required();
  add_sweep_output_options(*merge_cmd, merge.output);

  preflight::cli::CatalogOptions catalog;
  CLI::App* catalog_cmd = app.add_subcommand("catalog", "List the GPUs, instances or models in the catalog");
  catalog_cmd->add_option("what", catalog.what, "gpus, instances or models")
      ->required()
      ->check(CLI::IsMember({"gpus", "instances", "models"}));
  catalog_cmd->add_option("--format", catalog.format, "Output format")->check(CLI::IsMember({"table", "json"}));
  catalog_cmd->add_option("--catalog", catalog.catalog, "Catalog folder (default: the bundled catalogs/)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kBadInput;
  }

  // Output is buffered and written only on success, so a failure never leaves a partial result.
  std::ostringstream out;
  try {
    int code = 0;
    if (*check_cmd) code = preflight::cli::run_check_command(check, out, std::cerr);
    std::optional<tbb::global_control> limit;
    if (threads > 0) limit.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    if (*simulate_cmd) code = preflight::cli::run_simulate_command(simulate, out, std::cerr);
    if (*plan_cmd) code = preflight::cli::run_plan_command(plan, out, std::cerr);
    if (*export_cmd) code = preflight::cli::run_export_command(exporter, out, std::cerr);
    if (*sweep_cmd) code = preflight::cli::run_sweep_command(sweep, out, std::cerr);
    if (*merge_cmd) code = preflight::cli::run_merge_command(merge, out, std::cerr);
    if (*catalog_cmd) code = preflight::cli::run_catalog_command(catalog, out, std::cerr);
    std::cout << out.str();
    return code;
  } catch (const preflight::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (const preflight::InvalidConfig& e) {
    std::cerr << "error: invalid config: " << e.field() << ": " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return kBadInput;
}
