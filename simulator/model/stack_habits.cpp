#include "simulator/model/stack_habits.hpp"

#include "simulator/model/numeric_formats.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

bool ampere_or_newer(GpuArchitecture arch) { return arch != GpuArchitecture::volta && arch != GpuArchitecture::turing; }

// Whether the GPU can run the kernel at all: FlashAttention-2 (and PyTorch SDPA's flash backend),
// Triton's fused attention and cuDNN's fused flash attention need sm80 (Ampere) or newer;
// FlashAttention-3 needs sm90 (Hopper).
bool runs_on(AttentionKernel kernel, GpuArchitecture arch) {
  switch (kernel) {
    case AttentionKernel::flash3: return arch == GpuArchitecture::hopper;
    case AttentionKernel::flash2:
    case AttentionKernel::cudnn:
    case AttentionKernel::triton: return ampere_or_newer(arch);
    case AttentionKernel::automatic:
    case AttentionKernel::eager: return true;
  }
  return true;
}

// The kernel each stack picks by itself.
AttentionKernel default_attention(Framework f, GpuArchitecture arch) {
  if (!ampere_or_newer(arch)) return AttentionKernel::eager;
  switch (f) {
    case Framework::megatron:
      // Transformer Engine's DotProductAttention prefers its cuDNN FusedAttention backend on Hopper
      // and newer, and flash-attn before.
      return arch == GpuArchitecture::hopper || arch == GpuArchitecture::blackwell ? AttentionKernel::cudnn
                                                                                   : AttentionKernel::flash2;
    case Framework::transformers:  // attn_implementation "sdpa" (the default) or "flash_attention_2"
    case Framework::torchtitan:    // F.scaled_dot_product_attention: its flash backend is FlashAttention-2
    case Framework::llm_foundry:   // attn_config.attn_impl "flash": flash-attn 2
    case Framework::unsloth:       // flash-attn 2 where installed, else xformers' or SDPA's fused kernels
      return AttentionKernel::flash2;
  }
  return AttentionKernel::flash2;
}

LossHabits loss_habits(Framework f, bool torch_compile, TrainingObjective objective) {
  switch (f) {
    case Framework::megatron:
      // megatron/core/tensor_parallel/cross_entropy.py: the logits cast to fp32 (read 2, write 4), their
      // max (read 4), less the max in place (8), exp in place (8), the sum (4), the division in place
      // (8); backward scales the kept fp32 softmax in place (8) and casts the gradient back (6).
      return {4.0, 38.0, 14.0};
    case Framework::llm_foundry:
      // loss_fn "fused_crossentropy" (flash-attn's Triton cross-entropy, inplace_backward): one read of
      // the 16-bit logits forward; backward reads them and writes the gradient over them.
      return {0.0, 2.0, 4.0};
    case Framework::unsloth:
      // Apple's Cut Cross-Entropy (Unsloth since December 2024, unsloth.ai/blog/llama3-3): the lm_head
      // and the loss in one kernel over blocks of the vocabulary in on-chip memory; the logits are
      // never written to HBM, and the backward computes each block again. Only for the next-token loss:
      // TRL's preference trainers call the model without labels and take log-probabilities from the
      // whole logits, as under transformers.
      if (objective == TrainingObjective::sft) return {0.0, 0.0, 0.0, false};
      return loss_habits(Framework::transformers, torch_compile, objective);
    case Framework::transformers:
    case Framework::torchtitan:
      if (torch_compile) {
        // Inductor fuses the upcast into the softmax's reductions: two reads of the 16-bit logits
        // forward, one read and one write backward, nothing kept beside them.
        return {0.0, 4.0, 4.0};
      }
      // ForCausalLMLoss / torchtitan's cross_entropy_loss: logits.float() (read 2, write 4), then
      // F.cross_entropy = log_softmax (two reads and a write of fp32: 12) and nll. The forward peaks at
      // the 16-bit logits, their fp32 copy and the log-softmax output (10 bytes); only the log-softmax
      // output is saved. The backward peaks higher: log_softmax's backward holds its saved output, nll's
      // dense fp32 gradient and the gradient it writes (12 bytes), the 16-bit logits freed by then
      // (Trainer's compute_loss has returned its outputs; torchtitan's train_step deletes pred). Kept:
      // 10 beside the 2 of the logits, so that the loss's whole stretch holds the backward's peak.
      // Traffic backward: nll's gradient (4), log_softmax's backward (reads gradient and output, a sum,
      // writes: 16), the cast back to 16 bits (6).
      return {10.0, 18.0, 26.0};
  }
  return {10.0, 18.0, 26.0};
}

}  // namespace

StackHabits stack_habits(Framework framework, const TrainingJob& job, bool flash_attention, GpuArchitecture arch) {
  StackHabits h;
  h.framework = framework;
  if (!flash_attention) {
    h.attention = AttentionKernel::eager;
    h.attention_reason = "flash attention off in the config";
  } else if (job.attention != AttentionKernel::automatic) {
    if (!runs_on(job.attention, arch)) {
      throw InvalidConfig("training.attention", "attention kernel \"" + to_string(job.attention) + "\" does not run on " +
                                                    to_string(arch) + " GPUs (" +
                                                    (job.attention == AttentionKernel::flash3 ? "Hopper only" : "Ampere or newer") +
                                                    "); choose another kernel or \"auto\"");
    }
    h.attention = job.attention;
    h.attention_reason = "training.attention";
  } else {
    h.attention = default_attention(framework, arch);
    h.attention_reason = ampere_or_newer(arch) ? "the " + to_string(framework) + " default on " + to_string(arch)
                                               : "fused flash attention needs Ampere or newer; " + to_string(arch) +
                                                     " runs attention unfused";
  }
  // Megatron's Transformer Engine modules fuse norm + cast and bias + activation; torch.compile fuses
  // the element-wise chain between GEMMs (Megatron does not compile).
  // Unsloth replaces the norms, rotary and gated activation with its Triton kernels.
  h.fused_elementwise = framework == Framework::megatron || framework == Framework::unsloth || job.torch_compile;
  // The loss compiled with the model unless the job says otherwise (torchtitan's 2024 releases compiled
  // each block alone: "compiling loss function causes CUDA errors, turning off for now", train.py).
  h.loss = loss_habits(framework, job.compile_loss.value_or(job.torch_compile) && framework != Framework::megatron, job.objective);
  h.fp8_linears = job.precision == Precision::fp8;
  // torchtitan's training.mixed_precision_reduce defaults to "float32" (torchtitan/config/job_config.py);
  // the others reduce the 16-bit gradients they hold (DeepSpeed's communication_data_type and FSDP's
  // reduce_dtype follow the training dtype in Trainer/Accelerate and Composer's PURE policy).
  h.fp32_gradient_reduce = framework == Framework::torchtitan;
  // Megatron-Core's MoE guide has cross-node expert parallelism run the flex token dispatcher
  // (--moe-token-dispatcher-type flex, DeepEP or HybridEP backend), as Megatron-Bridge's DeepSeek-V3
  // and Qwen3 recipes do (scripts/performance/configs: moe_flex_dispatcher_backend); its kernels send
  // each token to a node once and forward it over NVLink (DeepSeek-V3 technical report, 3.2.2).
  h.dispatch_once_per_node = framework == Framework::megatron;
  h.selective = selective_recompute(framework);
  // TRL's DPOTrainer.get_batch_loss_metrics runs concatenated_forward, then compute_ref_log_probs;
  // NeMo-Aligner's DPO computes the reference's log-probabilities before the step, swapping a full
  // fine-tune's reference weights in from the host (megatron_gpt_dpo_model.py, cpu_weight_swap).
  h.reference_in_loss = framework != Framework::megatron;
  return h;
}

KbitUpcast kbit_upcast(const TrainingJob& job, const StrategyConfig& config) {
  if (job.method != Method::qlora) return KbitUpcast::none;
  // A sharded 4-bit base is prepared by no stack: TRL skips it (is_sharded_qlora: the 4-bit weights on
  // the CPU or meta device under any FSDP), axolotl too (qlora_fsdp), and ZeRO-3 gathers what it is given.
  const ShardingScheme scheme = sharding_scheme(config.sharding);
  if (scheme.engine == Engine::fsdp || scheme.stage == 3) return KbitUpcast::none;
  if (job.lora.upcast) return *job.lora.upcast;
  if (config.framework != Framework::transformers) return KbitUpcast::none;
  // A preference or RL objective on transformers is TRL's trainer, which casts the tables back under
  // bf16; a supervised fine-tune is PEFT's recipe as its docs and the QLoRA paper's script run it.
  return job.objective != TrainingObjective::sft && job.precision == Precision::bf16 ? KbitUpcast::norms : KbitUpcast::all;
}

double residual_bytes(KbitUpcast upcast, Precision precision) {
  return upcast == KbitUpcast::none ? activation_bytes(precision) : 4.0;
}

LayoutRefusal layout_refusal(Framework framework, const StrategyConfig& c) {
  const bool model_parallel_layout = model_parallel(c.parallelism);
  const bool offload = c.offload.optimizer != OffloadTarget::none || c.offload.params != OffloadTarget::none;
  const ShardingScheme scheme = sharding_scheme(c.sharding);
  if (c.parallelism.ep > 1 && framework != Framework::megatron) {
    return {"parallelism.ep", "expert parallelism runs on megatron (Megatron-Core's MoE layers) here; " + to_string(framework) +
                                  " trains an expert model with ep = 1"};
  }
  if (c.parallelism.expert_tp() != c.parallelism.tp && framework != Framework::megatron) {
    return {"parallelism.etp", "expert tensor parallelism is Megatron-Core's (--expert-tensor-parallel-size); " + to_string(framework) +
                                   " splits experts as it splits the rest"};
  }
  if (c.parallelism.ep_comm_overlap) {
    if (framework != Framework::megatron) {
      return {"parallelism.ep_comm_overlap", "overlapping the expert all-to-alls is Megatron-Core's "
                                             "(--overlap-moe-expert-parallel-comm); " + to_string(framework) + " runs them in line"};
    }
    // Megatron-Core's TransformerConfig refuses it beside full recompute (a recomputed layer would
    // dispatch again inside the other micro-batch's pass).
    if (c.recompute == Recompute::full) {
      return {"parallelism.ep_comm_overlap", "Megatron-Core overlaps the expert all-to-alls only without full recompute "
                                             "(selective or none)"};
    }
  }
  if (c.parallelism.tp_comm_overlap && framework != Framework::megatron) {
    return {"parallelism.tp_comm_overlap", "overlapping the tensor-parallel collectives with the GEMMs is Megatron-Core's "
                                           "(--tp-comm-overlap, Transformer Engine's userbuffers); " + to_string(framework) +
                                               " runs them in line here" +
                                               (framework == Framework::torchtitan
                                                    ? " (torchtitan's async tensor parallelism, enable_async_tensor_parallel, "
                                                      "is not modelled)"
                                                    : "")};
  }
  if (c.parallelism.cp > 1 && framework != Framework::megatron && framework != Framework::torchtitan) {
    return {"parallelism.cp", "context parallelism runs on megatron (context_parallel_size) and torchtitan "
                              "(context_parallel_degree) here; " + to_string(framework) + " trains with cp = 1"};
  }
  switch (framework) {
    case Framework::transformers:
      // Trainer / Accelerate run DDP, DeepSpeed ZeRO 1-3 (with offload) and PyTorch FSDP, not
      // Megatron-style tensor or pipeline parallelism for training.
      if (model_parallel_layout) {
        return {"parallelism", "transformers trains without tensor or pipeline parallelism (megatron and torchtitan have them)"};
      }
      return {};
    case Framework::megatron:
      // Megatron-LM's data parallelism is DDP, its distributed optimizer (ZeRO-1), or Megatron-FSDP
      // sharding weights, gradients and optimizer states (optim_grads_params), beside TP/SP, CP and EP.
      if (scheme.stage > 1 && c.sharding != Sharding::fsdp_full) {
        return {"sharding", "megatron shards with ddp, zero1 (its distributed optimizer) or fsdp_full (Megatron-FSDP: "
                            "--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params); its optim_grads "
                            "strategy and hybrid sharding are not modelled here"};
      }
      if (c.sharding == Sharding::fsdp_full && c.parallelism.ep_comm_overlap) {
        return {"sharding", "Megatron-FSDP beside the overlapped all-to-alls is not modelled here (their compute would hide "
                            "the block gathers and the other micro-batch's all-to-alls at once): use zero1 with "
                            "ep_comm_overlap, or fsdp_full without it"};
      }
      if (c.sharding == Sharding::fsdp_full && c.parallelism.pp > 1) {
        return {"sharding", "Megatron-FSDP beside pipeline parallelism is not modelled here: use pp = 1 with fsdp_full, or "
                            "zero1 (the distributed optimizer) with pipelining"};
      }
      if (offload) return {"offload", "megatron's layouts keep every state on the GPU"};
      return {};
    case Framework::torchtitan:
      // torchtitan: FSDP2 (fully_shard, reshard after forward or not), HSDP, or replicate (DDP).
      if (scheme.engine == Engine::deepspeed) {
        return {"sharding", "torchtitan shards with FSDP2 (fsdp_full, fsdp_grad_op, fsdp_hybrid) or ddp"};
      }
      if (model_parallel_layout && offload) return {"offload", "torchtitan offloads only without tensor or pipeline parallelism"};
      // torchtitan turns FSDP on whenever context parallelism is (parallel_dims.py: fsdp_enabled is
      // dp_shard or cp enabled): its cp ranks always shard the states.
      if (c.parallelism.cp > 1 && scheme.engine != Engine::fsdp) {
        return {"sharding", "torchtitan shards the states over its context-parallel ranks with FSDP2: use fsdp_full, "
                            "fsdp_grad_op or fsdp_hybrid with cp > 1"};
      }
      return {};
    case Framework::llm_foundry:
      // Composer's parallelism for llm-foundry: PyTorch FSDP (or DDP); no tensor or pipeline parallelism.
      if (scheme.engine == Engine::deepspeed) return {"sharding", "llm-foundry shards with PyTorch FSDP or ddp"};
      if (model_parallel_layout) return {"parallelism", "llm-foundry trains without tensor or pipeline parallelism"};
      if (offload) return {"offload", "llm-foundry's setups keep every state on the GPU"};
      return {};
    case Framework::unsloth:
      // Unsloth trains on one GPU, or replicated with DDP (accelerate or torchrun); it patches the model,
      // not DeepSpeed's or FSDP's sharding, and offloads only its checkpoints (offload.activations).
      if (c.sharding != Sharding::ddp) return {"sharding", "unsloth trains on one GPU or with ddp"};
      if (model_parallel_layout) return {"parallelism", "unsloth trains without tensor or pipeline parallelism"};
      if (offload) return {"offload", "unsloth keeps the weights and optimizer states on the GPU (its offload is the checkpoints': "
                                      "offload.activations)"};
      return {};
  }
  return {};
}

}  // namespace preflight
