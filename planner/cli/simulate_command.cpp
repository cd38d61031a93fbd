#include <ostream>
#include <sstream>

#include <optional>

#include "planner/check/evaluation.hpp"
#include "planner/check/profile_coverage.hpp"
#include "planner/io/calibration_profile_io.hpp"
#include "planner/io/output_file.hpp"
#include "planner/cli/commands.hpp"
#include "planner/search/candidate_text.hpp"
#include "planner/report/result_json.hpp"
#include "planner/report/text_table.hpp"
#include "planner/run/run_estimate.hpp"
#include "planner/scenario/strategy_config_reader.hpp"

namespace preflight::cli {

namespace {

std::string hours_text(const Distribution& d) {
  return fixed(d.mean, 1) + " h (p50 " + fixed(d.p50, 1) + ", p90 " + fixed(d.p90, 1) + ")";
}

std::string usd_text(const Distribution& d) {
  return "$" + fixed(d.mean, 2) + " (p50 $" + fixed(d.p50, 2) + ", p90 $" + fixed(d.p90, 2) + ")";
}

std::string simulate_text(const Scenario& s, const NodeSpec& node, const Evaluation& e, const RunEstimate& r) {
  std::ostringstream out;
  const StrategyConfig& c = e.config;
  out << "preflight simulate: " << s.name << "\n";
  out << "  machine  " << c.nodes << " x " << node.id << ", " << to_string(c.pricing) << " $"
      << fixed(r.usd_per_hour, 2) << "/h (" << r.price.basis << (r.price.region.empty() ? "" : ", " + r.price.region)
      << (r.price.zone.empty() ? "" : "/" + r.price.zone) << ")\n";
  out << "  config   " << to_string(c.sharding) << ", checkpointing " << to_string(c.recompute) << ", micro-batch "
      << c.micro_batch << " x accum " << c.grad_accum;
  if (const std::string layout = layout_text(c.parallelism); !layout.empty()) out << ", " << layout;
  out << "\n";
  out << "  memory   peak " << gib(e.memory.peak_bytes) << " of " << gib(e.memory.capacity_bytes)
      << (e.memory.fits() ? " (fits)" : " (DOES NOT FIT: see `preflight check`)") << "\n";
  const StepTime& st = *e.step;
  out << "  step     " << fixed(st.seconds(), 3) << " s simulated (compute " << fixed(st.compute_seconds, 3)
      << ", recompute " << fixed(st.recompute_seconds, 3) << ", exposed communication " << fixed(st.comm_exposed_seconds, 3)
      << ", offload " << fixed(st.offload_exposed_seconds, 3) << ", optimizer " << fixed(st.optimizer_seconds, 3);
  if (st.pipeline_bubble_seconds > 0.0) out << ", pipeline bubble " << fixed(st.pipeline_bubble_seconds, 3);
  if (st.host_exposed_seconds > 0.0) out << ", waiting on the host " << fixed(st.host_exposed_seconds, 3);
  out << "), " << r.steps << " steps\n";
  const CheckpointPlan& k = r.checkpoint;
  if (k.interval_steps > 0) {
    out << "  ckpt     " << fixed(k.bytes / 1e9, 1) << " GB every " << fixed(k.interval_seconds / 60.0, 1) << " min ("
        << k.interval_steps << " steps), write " << fixed(k.write_seconds, 1) << " s, stall "
        << fixed(k.stall_seconds, 1) << " s, overhead " << fixed(k.overhead_fraction * 100.0, 2) << "%, disk "
        << fixed(k.disk_bytes / 1e9, 1) << " GB" << (r.fits_local_disk ? "" : " (MORE THAN THE LOCAL NVMe)") << "\n";
  } else {
    out << "  ckpt     none (an interruption restarts the run)\n";
  }
  out << "  interruptions " << r.interruption_model << ", " << fixed(r.job_interruptions_per_hour, 4)
      << " per hour for the job, " << fixed(r.outcome.interruptions_expected, 2) << " expected\n";
  out << "  hours    " << hours_text(r.outcome.hours) << ", failure-free " << fixed(r.outcome.failure_free_hours, 1) << " h\n";
  out << "  cost     " << usd_text(r.outcome.usd) << "\n";
  if (s.constraints.deadline_hours) {
    out << "  deadline " << fixed(*s.constraints.deadline_hours, 1) << " h met with probability "
        << fixed(r.outcome.p_meets_deadline, 3) << "\n";
  }
  return out.str();
}

}  // namespace

int run_simulate_command(const SimulateOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  const Scenario scenario = load_scenario(options.scenario, catalog);
  const ConfigSource source = config_source(options.config, scenario);
  const StrategyConfig config = read_strategy_config(source, scenario, catalog);
  const NodeSpec& node = *find_node(scenario, catalog, config.instance);
  std::optional<CalibrationProfile> profile;
  if (!options.profile.empty()) profile = io::read_calibration_profile(options.profile);
  if (profile) {
    for (const std::string& w : profile_warnings(*profile, scenario, node, config.micro_batch)) err << "warning: " << w << "\n";
  }
  const Evaluation e = evaluate(scenario, node, config, profile ? &*profile : nullptr, !options.trace.empty());
  if (!e.step) rethrow_at(source, InvalidConfig("instance", e.step_unavailable));
  RunEstimate run;
  try {
    run = estimate_run(scenario, node, config, e.step->seconds(), {options.seed, options.trials, profile ? &*profile : nullptr});
  } catch (const InvalidConfig& error) {
    rethrow_at(source, error);
  }
  if (!options.trace.empty()) io::write_file_atomically(options.trace, e.trace.dump() + "\n");
  if (options.format == "json") {
    nlohmann::ordered_json j;
    j["scenario"] = scenario.name;
    j.update(result_json(e, run, node, scenario.training));
    j["seed"] = options.seed;
    j["trials"] = options.trials;
    out << j.dump(2) << "\n";
  } else {
    out << simulate_text(scenario, node, e, run);
  }
  return e.memory.fits() ? 0 : 1;
}

}  // namespace preflight::cli
