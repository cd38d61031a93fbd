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
  lc.micro_batch = w.job().sequences(c.micro_batch);  // a pair's two sequences in one concatenated forward
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

// What torchtitan's op policy runs again of a layer's forward: its share of the matmuls, every norm,
// rotary and element-wise kernel, and not a fused attention kernel (its outputs are kept); an unfused
// attention's products and softmax are not aten.mm or the SDPA kernel, so they run again too.
PassCost op_policy_recompute(const LayerCost& layer, double matmul_share_again, bool fused_attention) {
  const PassCost& f = layer.forward;
  const PassCost kept_attention = fused_attention ? layer.attention_core_forward : PassCost{};
  PassCost p;
  p.classes.gemm = f.classes.gemm * matmul_share_again;
  p.classes.attention = f.classes.attention - kept_attention.classes.attention;
  p.classes.memory_bound = std::max(0.0, f.classes.memory_bound - kept_attention.classes.memory_bound);
  p.seconds = p.classes.total();
  p.flops = std::max(0.0, f.flops - kept_attention.flops) * matmul_share_again;
  p.kernels = std::max(0, f.kernels - kept_attention.kernels);
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
      // Worked out only where the policy runs: every simulated step builds a context.
      every_other_matmul_recompute(
          config.recompute == Recompute::selective && stack.selective == SelectiveRecompute::every_other_matmul
              ? op_policy_recompute(layer, every_other_matmul(workload, activation_inputs(job, config, stack)).matmul_share_again,
                                    stack.attention != AttentionKernel::eager)
              : PassCost{}) {
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
  return activation_bytes(job.precision) * static_cast<double>(job.sequences(config.micro_batch) * (job.seq_len / config.parallelism.cp)) *
         static_cast<double>(model.hidden);
}

const PassCost* StepContext::recompute_pass() const {
  if (config.recompute == Recompute::full) return &layer.forward;
  // Megatron's selective recompute re-runs the attention core where it is unfused; beside a fused kernel
  // it has nothing to drop. torchtitan's op policy re-runs its share of the layer.
  if (config.recompute == Recompute::selective && stack.selective == SelectiveRecompute::every_other_matmul) {
    return &every_other_matmul_recompute;
  }
  if (config.recompute == Recompute::selective && stack.attention == AttentionKernel::eager) return &layer.attention_core_forward;
  return nullptr;
}

}  // namespace preflight
