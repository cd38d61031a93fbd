#include "simulator/step/step_context.hpp"

#include <algorithm>

#include "simulator/model/numeric_formats.hpp"

namespace preflight {

namespace {

LayerCostInputs layer_cost_inputs(const Workload& w, const StrategyConfig& c, const StageLayout& stages,
                                  const StackHabits& stack) {
  LayerCostInputs lc;
  lc.seq_len = w.job().seq_len / c.parallelism.cp;  // this rank's share of each sequence
  lc.cp = c.parallelism.cp;
  lc.micro_batch = c.micro_batch;
  lc.precision = w.job().precision;
  lc.stack = stack;
  lc.frozen_weights = w.job().method != Method::full;
  lc.quantized_weights = w.job().method == Method::qlora;
  lc.lora = w.lora();
  lc.tp = stages.tp;
  lc.sequence_parallel = c.parallelism.sequence_parallel;
  lc.ep = c.parallelism.ep;
  lc.etp = c.parallelism.expert_tp();
  return lc;
}

// The share of a block's forward matmul work torchtitan's selective "op" policy re-runs: of
// attention's wq, wk, wv, wo the second and fourth, of a gated MLP's w1, w3, w2 the middle one (of a
// GELU MLP's fc1, fc2 the second), and every routed expert's (grouped matmuls are not aten.mm, which the
// policy saves). MLA's projections are counted as Q, K and V ones.
double every_other_matmul_share(const ModelSpec& m) {
  const double inter = static_cast<double>(m.intermediate);
  const bool gated = m.mlp == MlpKind::gated;
  double saved = static_cast<double>(m.q_dim() + m.v_dim());
  double again = static_cast<double>(m.kv_dim() + m.attention_out_dim());
  const double mlp_saved = gated ? 2.0 : 1.0;
  if (m.is_moe()) {
    again += static_cast<double>(m.routed_per_token()) * (gated ? 3.0 : 2.0) * inter;
    saved += mlp_saved * static_cast<double>(m.shared_intermediate);
    again += static_cast<double>(m.shared_intermediate);
  } else {
    saved += mlp_saved * inter;
    again += inter;
  }
  return again / (saved + again);
}

// A layer's forward less the attention kernels (kept) and the saved matmuls' share; every norm,
// rotary and element-wise kernel runs again.
PassCost op_policy_recompute(const LayerCost& layer, const ModelSpec& m) {
  const PassCost& f = layer.forward;
  const PassCost& attention = layer.attention_core_forward;
  const double share = every_other_matmul_share(m);
  PassCost p;
  p.classes.gemm = f.classes.gemm * share;
  p.classes.memory_bound = std::max(0.0, f.classes.memory_bound - attention.classes.memory_bound);
  p.seconds = p.classes.total();
  p.flops = std::max(0.0, f.flops - attention.flops) * share;
  p.kernels = std::max(0, f.kernels - attention.kernels);
  p.routed_gemm = std::min(f.routed_gemm, p.classes.gemm);
  return p;
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
      stack(stack_habits(config.framework, job, config.flash_attention, machine.node().gpu.architecture)),
      scheme(sharding_scheme(config.sharding)),
      stages(stage_layout(workload, config.parallelism)),
      footprint(stage_footprint(workload.footprint(), stages)),
      bytes(workload.state_bytes()),
      layer(layer_cost(workload, layer_cost_inputs(workload, config, stages, stack), machine.rates())),
      head(head_cost(model, layer_cost_inputs(workload, config, stages, stack), machine.rates())),
      activations(activation_memory(workload, activation_inputs(job, config, stack))),
      every_other_matmul_recompute(op_policy_recompute(layer, model)) {
  const double dp = in.memory.gradient_group;  // data- and context-parallel ranks reduce gradients together
  const int gpus_per_node = machine.node().gpus_per_node;
  // Megatron places tensor-parallel ranks innermost, so a node holds gpus_per_node / tp ranks of each
  // data-parallel group.
  world = {static_cast<int>(dp), std::min(static_cast<int>(dp), std::max(1, gpus_per_node / stages.tp))};
  shard = {static_cast<int>(in.memory.shard_degree),
           std::min(static_cast<int>(in.memory.shard_degree), std::max(1, gpus_per_node / stages.tp))};

  const double backward = layer.backward.seconds + recompute_seconds();
  if (scheme.stage == 3) {
    // Each layer's parameters are gathered while the layer before runs, forward and backward, and its
    // gradients reduce-scattered while the next one's backward runs.
    const double gather = collectives.seconds(CollectiveOp::all_gather, layer_weight_bytes(), shard);
    const double scatter = collectives.seconds(CollectiveOp::reduce_scatter, layer_grad_bytes(), shard);
    forward_slowdown = overlap_slowdown(gather, layer.forward.seconds);
    backward_slowdown = synced_backward_slowdown = overlap_slowdown(gather + scatter, backward);
  } else if (in.overlap_gradient_sync && world.ranks > 1) {
    // Replicated gradients are reduced in buckets during the last micro-batch's backward.
    const CollectiveOp op = scheme.stage == 2 ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
    const double layers = static_cast<double>(stages.layers_per_stage);
    synced_backward_slowdown =
        overlap_slowdown(collectives.seconds(op, layer_grad_bytes() * layers, world), backward * layers);
  }
}

double StepContext::overlap_slowdown(double comm, double compute) const {
  return compute > 0.0 ? 1.0 + machine.overlapped_compute_slowdown() * std::min(1.0, comm / compute) : 1.0;
}

double StepContext::boundary_activation_bytes() const {
  return activation_bytes(job.precision) * static_cast<double>(config.micro_batch * (job.seq_len / config.parallelism.cp)) *
         static_cast<double>(model.hidden);
}

const PassCost* StepContext::recompute_pass() const {
  if (config.recompute == Recompute::full) return &layer.forward;
  // Selective recompute re-runs the attention core where it is unfused; a fused kernel keeps nothing to drop.
  if (config.recompute == Recompute::selective && stack.selective == SelectiveRecompute::every_other_matmul) {
    return &every_other_matmul_recompute;
  }
  if (config.recompute == Recompute::selective && stack.attention == AttentionKernel::eager) return &layer.attention_core_forward;
  return nullptr;
}

}  // namespace preflight
