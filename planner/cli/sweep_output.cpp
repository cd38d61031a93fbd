#include "planner/cli/sweep_output.hpp"

#include <ostream>

#include "planner/io/output_file.hpp"
#include "planner/report/sweep_report.hpp"

namespace preflight::cli {

void add_sweep_output_options(CLI::App& command, SweepOutputOptions& o) {
  add_output_options(command, o.output, {"markdown", "csv", "json"});
  command.add_option("--baseline", o.baseline, "An earlier sweep's JSON: print the changes per scenario")->check(not_empty());
  command.add_option("--max-cost-increase", o.max_cost_increase_pct,
                     "With --baseline: fail (exit 1) when a scenario's expected cost rises by more than this percentage")
      ->check(finite_range(0.0, 1e6))
      ->needs("--baseline");  // without a baseline the gate would pass silently
}

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
  io::write_output(options.output.out, sweep_report(options.output.format, report), out);
  for (const GateFailure& g : report.gates) err << "gate failed: " << g.name << ": " << g.why << "\n";
  return report.gates.empty() ? 0 : 1;
}

}  // namespace preflight::cli
