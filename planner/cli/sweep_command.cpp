// `preflight sweep`: plan every scenario of files and folders, one row each; compare with a baseline
// and gate on cost.

#include <memory>
#include <ostream>

#include "planner/cli/common_options.hpp"
#include "planner/cli/progress_bar.hpp"
#include "planner/cli/sweep_output.hpp"
#include "planner/sweep/shard_environment.hpp"

namespace preflight::cli {

namespace {

struct SweepCommandOptions {
  std::vector<std::string> inputs;  // scenario files and folders
  std::string shard;                // "K/N" or "auto"
  std::string catalog;
  RunModelOptions run;              // the profile applies to machines with its GPU
  SweepOutputOptions output;
};

// `auto` takes the slice from the job array's or CI matrix's environment, and says on stderr which
// it took: a task that planned the wrong slice shows up in its log, not only as a failed merge.
Shard command_shard(const std::string& option, std::ostream& err) {
  if (option.empty()) return Shard{};
  if (option != "auto") return parse_shard(option);
  const EnvironmentShard e = shard_from_environment(process_environment);
  err << "sweep: shard " << e.shard.index << "/" << e.shard.count << " from " << e.source << "\n";
  return e.shard;
}

int run_sweep_command(const SweepCommandOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  const std::vector<std::string> all = sweep_files(options.inputs);
  const Shard shard = command_shard(options.shard, err);
  const std::vector<std::string> files = shard_files(all, shard);
  ProgressBar bar(err, "sweep");
  const std::unique_ptr<const CalibrationProfile> profile = load_profile(options.run.profile);
  SweepOptions o;
  o.run = run_options(options.run);
  o.profile = profile.get();
  if (bar.drawing()) o.progress = [&](std::size_t done, std::size_t total) { bar.update(done, total); };
  SweepDocument sweep = run_sweep(files, catalog, o);
  sweep.shard = shard;
  sweep.scenario_files = all.size();
  return write_sweep(sweep, options.output, out, err);
}

}  // namespace

Command add_sweep_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<SweepCommandOptions>();
  CLI::App* c = app.add_subcommand("sweep", "Plan every scenario of files and folders, one row each; compare with a baseline and gate on cost");
  c->add_option("inputs", o->inputs, "Scenario files and folders (searched for *.json)")->required();
  c->add_option("--shard", o->shard,
                "Plan only slice K of N (K/N), for a CI matrix; join the slices with `merge`. `auto`: K/N from "
                "the environment (PREFLIGHT_SHARD=K/N, a Slurm job array, a Kubernetes Indexed Job with "
                "PREFLIGHT_SHARD_COUNT, GitLab CI parallel:, CircleCI or Buildkite parallelism)")
      ->check(not_empty());
  add_catalog_option(*c, o->catalog);
  add_run_model_options(*c, o->run, global);
  add_sweep_output_options(*c, o->output);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_sweep_command(*o, out, err); }};
}

}  // namespace preflight::cli
