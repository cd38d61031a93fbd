#include "simulator/evaluate.hpp"

#include <cmath>

#include "simulator/rl_evaluation.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/step/step_graph.hpp"

namespace preflight {

Evaluation evaluate(const Workload& workload, const Machine& machine, const StrategyConfig& config,
                    double vram_headroom, bool with_trace) {
  if (workload.job().rl) return evaluate_rl(workload, machine, config, vram_headroom, with_trace);
  return evaluate_training(workload, machine, config, vram_headroom, with_trace);
}

Evaluation evaluate_training(const Workload& workload, const Machine& machine, const StrategyConfig& config,
                             double vram_headroom, bool with_trace) {
  Evaluation e;
  e.config = config;
  e.memory = estimate_memory(workload, config, machine.node(), vram_headroom);
  e.stack = stack_habits(config.framework, workload.job(), config.flash_attention, machine.node().gpu.architecture);
  e.step_interval = machine.step_time_interval(config.framework);
  StepInputs in;
  in.workload = &workload;
  in.machine = &machine;
  in.config = config;
  in.memory = e.memory;
  try {
    StepSimulation sim = simulate_step(in, with_trace);
    // Inputs are bounded to plausible ranges; a step that still comes out infinite or NaN is refused
    // rather than printed.
    if (!std::isfinite(sim.time.seconds()) || !std::isfinite(sim.peak_bytes)) {
      throw InvalidConfig("instance", "the simulated step is not a finite time: an input at the edge of its range");
    }
    e.trace = std::move(sim.trace);
    e.step = sim.time;
    e.memory.peak_bytes = sim.peak_bytes;
    e.peak_from_timeline = true;
    e.peak_seconds = sim.peak_seconds;
  } catch (const InvalidConfig& error) {
    e.step_unavailable = error.what();
  }
  return e;
}

}  // namespace preflight
