#include "planner/trial/trial_fit.hpp"

#include <cmath>
#include <functional>

#include "planner/text/number_text.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

struct Prediction {
  double seconds = 0.0;
  double peak_bytes = 0.0;
};

Prediction predict(const Scenario& s, const NodeSpec& node, const StrategyConfig& c, const StepModelFit& fit) {
  const Machine machine(node, s.training().precision, nullptr, &fit);
  const Evaluation e = evaluate(s.workload, machine, c, s.constraints.vram_headroom);
  if (!e.step) throw InvalidConfig("instance", e.step_unavailable);
  return {e.step->seconds(), e.memory.peak_bytes};
}

// The x in [low, high] where seconds(x) = target, for seconds monotone in x (bisection in log x).
double solve(const std::function<double(double)>& seconds, double low, double high, double target) {
  double lo = std::log(low), hi = std::log(high);
  const bool rising = seconds(high) > seconds(low);
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    const bool above = seconds(std::exp(mid)) > target;
    if (above == rising) hi = mid; else lo = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

}  // namespace

TrialFit fit_trial(const Scenario& s, const NodeSpec& node, const StrategyConfig& c, const StepModelFit* given,
                   const io::TrainingLog& log, const std::string& log_file) {
  TrialFit t;
  const int gpus = c.nodes * node.gpus_per_node;
  t.measured_step_seconds = log.step_seconds ? *log.step_seconds
                                             : s.training().step_tokens() / (gpus * *log.tokens_per_second_per_gpu);
  if (!(t.measured_step_seconds > 0.0) || !std::isfinite(t.measured_step_seconds)) {
    throw InputError(log_file, "", fixed(t.measured_step_seconds, 3) + " s per step", "a positive step time");
  }
  const StepModelFit base = given != nullptr ? *given : StepModelFit{};
  const std::size_t arch = static_cast<std::size_t>(node.gpu.architecture);
  const std::size_t stack = static_cast<std::size_t>(c.framework);
  const Prediction before = predict(s, node, c, base);
  t.predicted_before = before.seconds;
  t.predicted_peak_bytes = before.peak_bytes;
  t.measured_peak_bytes = log.peak_memory_bytes;
  t.memory_kind = log.memory_kind;
  t.interval_before = base.interval(c.framework, node.gpu.architecture);

  StepModelFit fit = base;
  const auto with_kernels = [&](double k) {
    fit.kernel_efficiency[arch] = k;
    return predict(s, node, c, fit).seconds;
  };
  const auto with_host = [&](double h) {
    fit.host_time[stack] = h;
    return predict(s, node, c, fit).seconds;
  };
  const double fastest = with_kernels(kTrialKernelHigh), slowest = with_kernels(kTrialKernelLow);
  if (t.measured_step_seconds >= fastest && t.measured_step_seconds <= slowest) {
    fit.kernel_efficiency[arch] = solve(with_kernels, kTrialKernelLow, kTrialKernelHigh, t.measured_step_seconds);
    t.moved = "the kernel efficiency of " + node.gpu.id;
  } else {
    // Past what the kernels can explain: they keep the catalog's figure and the host time moves (a
    // host-bound trial); past that too, both stop at the bound nearest.
    fit.kernel_efficiency[arch] = base.kernel_efficiency[arch];
    const double host_fastest = with_host(kTrialHostLow), host_slowest = with_host(kTrialHostHigh);
    if (t.measured_step_seconds >= host_fastest && t.measured_step_seconds <= host_slowest) {
      fit.host_time[stack] = solve(with_host, kTrialHostLow, kTrialHostHigh, t.measured_step_seconds);
      t.moved = "the host time of " + to_string(c.framework);
    } else {
      const bool slower = t.measured_step_seconds > slowest;
      fit.kernel_efficiency[arch] = slower ? kTrialKernelLow : kTrialKernelHigh;
      fit.host_time[stack] = slower ? kTrialHostHigh : kTrialHostLow;
      t.moved = "the kernel efficiency of " + node.gpu.id + " and the host time of " + to_string(c.framework) +
                ", both at their bounds";
    }
  }
  t.predicted_after = predict(s, node, c, fit).seconds;
  t.step_model.framework = c.framework;
  t.step_model.kernel_efficiency = fit.kernel_efficiency[arch];
  t.step_model.host_time = fit.host_time[stack];
  t.step_model.interval = base.calibrated_interval;
  return t;
}

}  // namespace preflight
