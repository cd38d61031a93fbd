#include "calibrate/from_log.hpp"

#include "planner/catalog/catalog.hpp"
#include "planner/io/training_log.hpp"
#include "planner/scenario/scenario.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "planner/text/candidate_text.hpp"
#include "planner/text/number_text.hpp"
#include "planner/trial/trial_fit.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::calibrate {

namespace {

std::string interval_text(const StepTimeInterval& in) {
  return in.rows == 0 ? "none (no fitted factors)" : fixed(in.low, 2) + "-" + fixed(in.high, 2) + " x the prediction";
}

std::string timing_text(const io::TrainingLog& log) {
  if (log.timed == 0) return "the run's summary (steps per second over the whole run)";
  return "the median of " + std::to_string(log.timed > 2 ? log.timed - 1 : log.timed) + " logged timings" +
         (log.timed > 2 ? " after the first" : "");
}

}  // namespace

CalibrationProfile profile_from_log(const FromLogOptions& o, std::ostream& report) {
  const Catalog catalog = Catalog::load_option(o.catalog);
  const Scenario scenario = load_scenario(o.scenario, catalog);
  const StrategyConfig config = read_strategy_config(config_source(o.config, scenario), scenario, catalog);
  const NodeSpec& node = *find_node(scenario, catalog, config.instance);
  const io::TrainingLog log = io::read_training_log(o.log);
  const TrialFit t = fit_trial(scenario, node, config, catalog.step_model_fit(), log, o.log);

  CalibrationProfile p;
  p.machine.gpu = node.gpu.id;
  p.machine.gpu_count = node.gpus_per_node;
  p.measured_at = o.measured_at;
  p.source = "preflight-calibrate --from-log " + o.log + " (" + to_string(log.format) + " log) for " + candidate_text(node, config) +
             " of " + o.scenario;
  p.step_model = t.step_model;
  p.step_model->source = p.source;

  const StepModelFit* fit = catalog.step_model_fit();
  const double k_before = fit != nullptr ? fit->kernels(node.gpu.architecture) : 1.0;
  const double h_before = fit != nullptr ? fit->host(config.framework) : 1.0;
  report << "preflight-calibrate --from-log: " << to_string(log.format) << " log, " << timing_text(log) << "\n"
         << "  config    " << candidate_text(node, config) << "\n"
         << "  step      measured " << fixed(t.measured_step_seconds, 3) << " s; predicted " << fixed(t.predicted_before, 3)
         << " s before (" << percent(t.predicted_before / t.measured_step_seconds - 1.0, 1) << "), "
         << fixed(t.predicted_after, 3) << " s after (" << percent(t.predicted_after / t.measured_step_seconds - 1.0, 1) << ")\n"
         << "  moved     " << t.moved << ": kernel efficiency " << fixed(k_before, 3) << " -> "
         << fixed(t.step_model.kernel_efficiency, 3) << ", host time x" << fixed(h_before, 3) << " -> x"
         << fixed(t.step_model.host_time, 3) << "\n"
         << "  interval  " << interval_text(t.step_model.interval) << " for this machine and stack (was "
         << interval_text(t.interval_before) << ")\n";
  if (t.measured_peak_bytes) {
    report << "  memory    measured " << gib(*t.measured_peak_bytes) << " (" << t.memory_kind << "); predicted peak "
           << gib(t.predicted_peak_bytes) << " (" << percent(t.predicted_peak_bytes / *t.measured_peak_bytes - 1.0, 1)
           << "; not fitted)\n";
  }
  if (t.step_model.kernel_efficiency <= kTrialKernelLow || t.step_model.host_time >= kTrialHostHigh ||
      t.step_model.host_time <= kTrialHostLow) {
    report << "  warning   a factor is at its bound: the log and the config may not describe the same run\n";
  }
  return p;
}

}  // namespace preflight::calibrate
