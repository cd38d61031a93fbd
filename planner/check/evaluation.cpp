#include "planner/check/evaluation.hpp"

#include "simulator/core/errors.hpp"
#include "simulator/hardware/collective_model.hpp"
#include "simulator/strategy/step_graph.hpp"

namespace preflight {

double resident_bytes(const MemoryEstimate& m) {
  const MemoryBreakdown& g = m.gpu;
  // Fragmentation is a share of the activations' churn, so it goes with them.
  return g.total() - g.activations - g.logits - g.gathered_params - g.fragmentation;
}

bool resident_exceeds_capacity(const MemoryEstimate& m) { return resident_bytes(m) > m.usable_bytes; }

Evaluation evaluate(const Scenario& scenario, const NodeSpec& node, const StrategyConfig& config,
                    const CalibrationProfile* profile, bool with_trace) {
  Evaluation e;
  e.config = config;
  e.memory = estimate_memory(scenario.model, scenario.training, config, node, scenario.constraints.vram_headroom);
  const AnalyticalCollectives analytical(
      {node.intra_node_bytes_per_second_per_gpu, node.inter_node_bits_per_second / 8.0,
       node.intra_node_link != IntraNodeLink::pcie});
  // A profile describes one machine type: its measurements apply to machines with its GPU.
  const CalibrationProfile* mine = profile != nullptr && profile->applies_to(node.gpu.id) ? profile : nullptr;
  static const std::vector<CollectiveTable> kNoTables;
  const MeasuredCollectives measured(mine != nullptr ? mine->collectives : kNoTables, &analytical);
  StepInputs in;
  in.model = &scenario.model;
  in.job = &scenario.training;
  in.config = config;
  in.node = &node;
  in.collectives = &measured;
  in.memory = e.memory;
  in.profile = mine;
  try {
    StepSimulation sim = simulate_step(in, with_trace);
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
