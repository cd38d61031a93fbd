#include <ostream>

#include "planner/cli/commands.hpp"
#include "planner/cli/progress_bar.hpp"
#include "planner/io/calibration_profile_io.hpp"
#include "planner/io/output_file.hpp"
#include "planner/report/sweep_report.hpp"

namespace preflight::cli {

namespace {

// The output of a sweep, or of merged shards: the same rows give the same text, gates included.
int write_sweep(const SweepDocument& sweep, const SweepOutputOptions& options, std::ostream& out, std::ostream& err) {
  std::optional<SweepDocument> baseline;
  std::vector<ScenarioChange> changes;
  if (!options.baseline.empty()) {
    baseline = read_sweep_json(options.baseline);
    changes = compare_with_baseline(sweep, *baseline, options.baseline);
  }
  SweepReport report;
  report.sweep = &sweep;
  report.changes = baseline ? &changes : nullptr;
  report.gates = gate_failures(sweep, report.changes, options.max_cost_increase_pct);
  std::string text;
  if (options.format == "json") {
    text = sweep_report_json(report);
  } else if (options.format == "csv") {
    text = sweep_csv(report);
  } else {
    text = sweep_markdown(report);
  }
  io::write_output(options.out, text, out);
  for (const GateFailure& g : report.gates) err << "gate failed: " << g.name << ": " << g.why << "\n";
  return report.gates.empty() ? 0 : 1;
}

}  // namespace

int run_sweep_command(const SweepCommandOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  std::vector<std::string> files = sweep_files(options.inputs);
  if (!options.shard.empty()) files = shard_files(files, parse_shard(options.shard));
  ProgressBar bar(err, "sweep");
  std::optional<CalibrationProfile> profile;
  if (!options.profile.empty()) profile = io::read_calibration_profile(options.profile);
  SweepOptions o;
  o.run = {options.seed, options.trials, profile ? &*profile : nullptr};
  if (bar.drawing()) o.progress = [&](std::size_t done, std::size_t total) { bar.update(done, total); };
  const SweepDocument sweep = run_sweep(files, catalog, o);
  return write_sweep(sweep, options.output, out, err);
}

int run_merge_command(const MergeOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<SweepDocument> shards;
  for (const std::string& f : options.shards) shards.push_back(read_sweep_json(f));
  return write_sweep(merge_sweeps(shards, options.shards), options.output, out, err);
}

}  // namespace preflight::cli
