#include "simulator/step/step_context.hpp"

#include <algorithm>

#include "simulator/model/numeric_formats.hpp"

namespace preflight {

namespace {

LayerCostInputs layer_cost_inputs(const Workload& w, const StrategyConfig& c, const StageLayout& stages) {
  LayerCostInputs lc;
  lc.seq_len = w.job().seq_len;
  lc.micro_batch = c.micro_batch;
  lc.precision = w.job().precision;
  lc.flash_attention = c.flash_attention;
  lc.frozen_weights = w.job().method != Method::full;
  lc.quantized_weights = w.job().method == Method::qlora;
  lc.lora = w.lora();
  lc.tp = stages.tp;
  lc.sequence_parallel = c.parallelism.sequence_parallel;
  return lc;
}

}  // namespace

StepContext::StepContext(const StepInputs& inputs)
    : in(inputs),
      workload(*inputs.workload),
      model(workload.model()),
      job(workload.job()),
      config(inputs.config),
      machine(*inputs.machine),
      collectives(machine.collectives()),
      scheme(sharding_scheme(config.sharding)),
      stages(stage_layout(workload, config.parallelism)),
      footprint(stage_footprint(workload.footprint(), stages)),
      bytes(workload.state_bytes()),
      layer(layer_cost(workload, layer_cost_inputs(workload, config, stages), machine.rates())),
      head(head_cost(model, layer_cost_inputs(workload, config, stages), machine.rates())),
      activations(activation_memory(workload, activation_inputs(job, config))) {
  const double dp = in.memory.dp_degree;
  const int gpus_per_node = machine.node().gpus_per_node;
  // Megatron places tensor-parallel ranks innermost, so a node holds gpus_per_node / tp ranks of each
  // data-parallel group.
  world = {static_cast<int>(dp), std::min(static_cast<int>(dp), std::max(1, gpus_per_node / stages.tp))};
  shard = {static_cast<int>(in.memory.shard_degree), std::min(static_cast<int>(in.memory.shard_degree), gpus_per_node)};
}

double StepContext::boundary_activation_bytes() const {
  return activation_bytes(job.precision) * static_cast<double>(config.micro_batch * job.seq_len) *
         static_cast<double>(model.hidden);
}

double StepContext::recompute_seconds() const {
  if (config.recompute == Recompute::full) return layer.forward.seconds;
  return config.recompute == Recompute::selective && !config.flash_attention ? layer.attention_core_forward.seconds : 0.0;
}

}  // namespace preflight
