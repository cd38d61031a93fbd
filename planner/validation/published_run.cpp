#include "planner/validation/published_run.hpp"

#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/step/step_graph.hpp"

namespace preflight::validation {

std::string model_shape(const PublishedRun& run) {
  const ModelSpec& m = run.workload->model();
  return std::to_string(m.hidden) + "x" + std::to_string(m.layers);
}

void place_on(PublishedRun& run, const NodeSpec& node, int gpus) {
  run.node = node;
  run.config.instance = node.id;
  if (gpus <= node.gpus_per_node) {
    run.node.gpus_per_node = gpus;
    run.config.nodes = 1;
  } else {
    run.config.nodes = gpus / node.gpus_per_node;
  }
}

Prediction simulate_run(const PublishedRun& run, const StepModelFit* fit) {
  const Machine machine(run.node, run.workload->job().precision, run.profile.get(), fit);
  StepInputs in;
  in.workload = run.workload.get();
  in.machine = &machine;
  in.config = run.config;
  in.memory = estimate_memory(*run.workload, run.config, run.node, 0.0);
  in.overlap_gradient_sync = run.overlap_gradient_sync;
  const StepSimulation sim = simulate_step(in);
  return {sim.time.seconds(), sim.peak_bytes <= run.node.gpu.memory_bytes};
}

}  // namespace preflight::validation
