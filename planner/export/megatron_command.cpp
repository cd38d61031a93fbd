#include <algorithm>
#include <string>

#include "planner/export/export_plan.hpp"
#include "planner/scenario/megatron_pipeline_layout.hpp"
#include "planner/text/number_text.hpp"
#include "simulator/model/stage_layout.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

std::string arg(const std::string& name, std::int64_t value) { return " --" + name + " " + std::to_string(value); }

// The attention kernel the step was simulated with, as Megatron-Core's --attention-backend names it
// (Transformer Engine's fused attention is cuDNN's).
std::string attention_backend(AttentionKernel kernel, bool flash) {
  switch (kernel) {
    case AttentionKernel::flash2:
    case AttentionKernel::flash3: return " --attention-backend flash";
    case AttentionKernel::cudnn: return " --attention-backend fused";
    case AttentionKernel::eager: return " --attention-backend unfused";
    case AttentionKernel::triton:
    case AttentionKernel::automatic: break;
  }
  return flash ? " --use-flash-attn" : "";
}

// The model's architecture in Megatron-LM's arguments (megatron/training/arguments.py).
std::string model_arguments(const ModelSpec& m, std::int64_t seq_len) {
  const bool dense_layers = m.is_moe() && m.dense_layers > 0;
  std::string s = arg("num-layers", m.layers) + arg("hidden-size", m.hidden) +
                  arg("ffn-hidden-size", dense_layers ? m.dense_intermediate : m.intermediate) +
                  arg("num-attention-heads", m.heads) + arg("vocab-size", m.vocab);
  if (m.is_mla()) {
    // Megatron-Core's MLA: qk-head-dim is the part without rotary embedding.
    s += " --multi-latent-attention" + (m.mla.q_rank > 0 ? arg("q-lora-rank", m.mla.q_rank) : std::string()) +
         arg("kv-lora-rank", m.mla.kv_rank) + arg("qk-head-dim", m.mla.nope_dim) + arg("qk-pos-emb-head-dim", m.mla.rope_dim) +
         arg("v-head-dim", m.mla.v_dim);
  } else {
    if (m.head_dim * m.heads != m.hidden) s += arg("kv-channels", m.head_dim);
    if (m.kv_heads != m.heads) s += " --group-query-attention" + arg("num-query-groups", m.kv_heads);
  }
  s += " \\\n ";
  s += arg("seq-length", seq_len) + arg("max-position-embeddings", m.max_seq_len);
  s += m.learned_positions ? " --position-embedding-type learned_absolute" : " --position-embedding-type rope";
  s += m.norm == NormKind::rms ? " --normalization RMSNorm" : " --normalization LayerNorm";
  if (m.mlp == MlpKind::gated) s += " --swiglu";
  if (!m.o_bias && !m.mlp_bias) s += " --disable-bias-linear";
  if (m.qkv_bias && !m.o_bias) s += " --add-qkv-bias";
  if (!m.tied_embeddings) s += " --untie-embeddings-and-output-weights";
  if (m.is_moe()) s += arg("num-experts", m.experts) + arg("moe-router-topk", m.experts_per_token);
  // Group-limited routing (DeepSeek's n_group / topk_group), which the dispatch was priced with.
  if (m.is_moe() && m.routing_groups > 1) {
    s += arg("moe-router-num-groups", m.routing_groups) + arg("moe-router-group-topk", m.groups_per_token);
  }
  if (dense_layers) {
    // Megatron places the dense layers by a pattern; preflight counts them, as DeepSeek puts them first.
    s += arg("moe-ffn-hidden-size", m.intermediate) + " --moe-layer-freq '([0]*" + std::to_string(m.dense_layers) + "+[1]*" +
         std::to_string(m.expert_layers()) + ")'";
  }
  if (m.is_moe() && m.shared_intermediate > 0) s += arg("moe-shared-expert-intermediate-size", m.shared_intermediate);
  s += " --attention-dropout " + fixed(m.attention_dropout, 2) + " --hidden-dropout " + fixed(m.hidden_dropout, 2);
  return s;
}

}  // namespace

// A Megatron-LM pretrain_gpt.py launch with the layout preflight simulated: tensor (and sequence),
// pipeline (and interleaved) parallelism, the distributed optimizer for zero1, Megatron-FSDP for
// fsdp_full, recompute, batch
// sizes, steps and checkpoint interval. Data and tokenizer stay the user's ($DATA_PATH, $TOKENIZER).
std::string megatron_arguments(const ExportPlan& p) {
  const StrategyConfig& c = p.config;
  const TrainingJob& t = p.scenario->training();
  const Parallelism& par = c.parallelism;
  if (t.method != Method::full) {
    throw InvalidConfig("method", "Megatron-LM trains full weights; export LoRA/QLoRA configs with deepspeed, accelerate or torchrun");
  }
  if (t.objective != TrainingObjective::sft) {
    throw InvalidConfig("method", "Megatron-LM's pretrain_gpt.py trains the next-token loss; a \"" + to_string(t.objective) + "\" plan on megatron runs under NeMo-Aligner, whose config preflight does not write: export it with deepspeed, accelerate or torchrun (TRL)");
  }
  const int stage = sharding_scheme(c.sharding).stage;
  const bool megatron_fsdp = c.sharding == Sharding::fsdp_full;
  if ((stage > 1 && !megatron_fsdp) || c.offload.optimizer != OffloadTarget::none || c.offload.params != OffloadTarget::none) {
    throw InvalidConfig("sharding", "Megatron-LM shards the optimizer (--use-distributed-optimizer, zero1) or everything "
                                    "(Megatron-FSDP, fsdp_full), without offload: export " + to_string(c.sharding) +
                                        " with deepspeed or accelerate");
  }
  const int gpus = c.nodes * p.node->gpus_per_node;
  const std::int64_t dp = data_parallel_degree(par, gpus);
  std::string s = "  pretrain_gpt.py \\\n ";
  s += arg("tensor-model-parallel-size", par.tp) + arg("pipeline-model-parallel-size", par.pp);
  const std::int64_t layers = p.scenario->model().layers;
  if (par.pp > 1 && layers % (par.pp * par.interleave) != 0) {
    s += " --pipeline-model-parallel-layout \"" + write_pipeline_layout(layers, par.pp, par.interleave) + "\"";
  } else if (par.interleave > 1) {
    s += arg("num-layers-per-virtual-pipeline-stage", layers / (par.pp * par.interleave));
  }
  if (par.interleave > 1) {
    const std::int64_t group = microbatch_group_size(Framework::megatron, par.pp, c.grad_accum);
    if (group != par.pp) s += arg("microbatch-group-size-per-virtual-pipeline-stage", group);
  }
  if (par.sequence_parallel) s += " --sequence-parallel";
  if (par.tp_comm_overlap) s += " --tp-comm-overlap";  // Transformer Engine's userbuffers, as simulated
  if (par.ep > 1) {
    // Inside a node the all-to-all dispatcher; across nodes the flex dispatcher with DeepEP's
    // kernels, which send a token to a node once, as the step was simulated (stack_habits.cpp).
    const int ep_per_node = std::max(1, p.node->gpus_per_node / par.expert_tp());
    s += arg("expert-model-parallel-size", par.ep) +
         (par.ep > ep_per_node ? " --moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep"
                               : " --moe-token-dispatcher-type alltoall");
  }
  if (par.expert_tp() != par.tp) s += arg("expert-tensor-parallel-size", par.expert_tp());
  if (par.ep_comm_overlap) s += " --overlap-moe-expert-parallel-comm";
  if (par.cp > 1) s += arg("context-parallel-size", par.cp) + " --cp-comm-type p2p";
  // The gradient reduction in buckets during backward, as the step was simulated (Megatron-LM's
  // default reduces after backward).
  if (dp > 1) s += " --overlap-grad-reduce";
  if (stage == 1) s += " --use-distributed-optimizer";
  if (megatron_fsdp) {
    // Megatron-FSDP as its examples launch it: it gathers and reduce-scatters every block's weights and
    // gradients (overlapped, as simulated), computes without gradient-accumulation fusion and checkpoints
    // as DTensors.
    s += " --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params --use-distributed-optimizer"
         " --overlap-param-gather --no-gradient-accumulation-fusion --ckpt-format fsdp_dtensor";
  }
  s += " \\\n ";
  s += model_arguments(p.scenario->model(), t.seq_len) + " \\\n ";
  s += arg("micro-batch-size", c.micro_batch) + arg("global-batch-size", c.micro_batch * c.grad_accum * dp);
  switch (t.precision) {
    case Precision::bf16: s += " --bf16"; break;
    case Precision::fp16: s += " --fp16"; break;
    case Precision::fp8: s += " --bf16 --fp8-format hybrid"; break;
    case Precision::fp32: break;
  }
  s += attention_backend(p.attention, c.flash_attention);
  if (c.recompute == Recompute::full) s += " --recompute-granularity full --recompute-method uniform --recompute-num-layers 1";
  if (c.recompute == Recompute::selective) s += " --recompute-granularity selective";
  s += " \\\n ";
  s += arg("train-iters", p.steps) + " --data-path \"$DATA_PATH\" --tokenizer-type HuggingFaceTokenizer --tokenizer-model \"$TOKENIZER\"";
  s += " \\\n ";
  s += " --save \"$CHECKPOINT_DIR\" --load \"$CHECKPOINT_DIR\"";
  // No checkpoint: Megatron saves only when asked; an interval beyond the run never fires.
  s += arg("save-interval", p.checkpoint_interval_steps > 0 ? p.checkpoint_interval_steps : p.steps + 1) + "\n";
  return s;
}

std::string megatron_command(const ExportPlan& p) {
  const std::string arguments = megatron_arguments(p);  // first: it refuses what Megatron-LM cannot run
  const StrategyConfig& c = p.config;
  const Parallelism& par = c.parallelism;
  const int gpus = c.nodes * p.node->gpus_per_node;
  const std::int64_t dp = data_parallel_degree(par, gpus);
  std::string s = "#!/bin/sh\n";
  s += "# Megatron-LM launch for " + p.scenario->name + ": " + std::to_string(c.nodes) + " x " + c.instance + " (" +
       std::to_string(gpus) + " GPUs) = tensor " + std::to_string(par.tp) + " x pipeline " + std::to_string(par.pp) +
       (par.cp > 1 ? " x context " + std::to_string(par.cp) : std::string()) + " x data " + std::to_string(dp) + ".\n";
  s += "# Set DATA_PATH (a Megatron .bin/.idx prefix), TOKENIZER (a Hugging Face tokenizer id or path) and CHECKPOINT_DIR";
  s += c.nodes > 1 ? "; run on every node with NODE_RANK=0.." + std::to_string(c.nodes - 1) + " and MASTER_ADDR set to node 0.\n" : ".\n";
  s += "set -eu\n";
  s += torchrun_launcher(c.nodes, p.node->gpus_per_node);
  return s + arguments;
}

}  // namespace preflight
