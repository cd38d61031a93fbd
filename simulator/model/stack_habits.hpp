#pragma once
// What a software stack really runs for one training job on one GPU generation: its attention kernel,
// whether its norms, activations and residual adds are fused, how its loss treats the logits (bytes
// kept from forward to backward, bytes moved each way), whether fp8 recipes run the block's linears
// in fp8, and which layouts it offers. The figures follow each project's own code (cited per entry
// in stack_habits.cpp); the kernels' speeds are the hardware floor's.

#include <string>

#include "simulator/spec/gpu_spec.hpp"
#include "simulator/spec/software_stack.hpp"
#include "simulator/spec/strategy_config.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

struct LossHabits {
  double kept_bytes_per_logit = 0.0;      // held from the loss forward to its backward, beside the lm_head output
  double forward_bytes_per_logit = 0.0;   // HBM traffic of the loss forward (upcast, softmax, gather)
  double backward_bytes_per_logit = 0.0;  // and of its backward, down to the lm_head output's gradient
  // false: the head and the loss run fused over blocks of the vocabulary (Cut Cross-Entropy): no
  // logits in HBM, the head's matmul run again in backward.
  bool logits_materialized = true;
};

// What the stack's selective activation checkpointing keeps. Megatron's (Korthikanti et al. 2022, its
// --recompute-granularity selective) drops the attention core alone, which a fused attention kernel
// never stored. torchtitan's selective "op" policy (torchtitan/models/llama3/parallelize_llama.py,
// _save_list and _custom_policy) saves the outputs of every other matmul of a block (q, v, w1 and w2 of
// Llama's wq, wk, wv, wo, w1, w3, w2), the attention kernel's output and log-sum-exp, and recomputes the
// rest from the block's input: the norms, rotary, the activation and the other matmuls.
enum class SelectiveRecompute { attention_core, every_other_matmul };

struct StackHabits {
  Framework framework = Framework::transformers;
  AttentionKernel attention = AttentionKernel::flash2;  // resolved: never `automatic`
  std::string attention_reason;                         // why this kernel (the stack's default, the GPU, the user)
  // Norms with the residual add before them, bias + activation, and casts fused into one pass each
  // (torch.compile's Inductor, Transformer Engine's fused modules) instead of one kernel per op.
  bool fused_elementwise = false;
  LossHabits loss;
  bool fp8_linears = false;  // an fp8 job: the blocks' linears in fp8 (Transformer Engine, torchao float8)
  bool fp32_gradient_reduce = false;  // gradients cast to fp32 for their reduction (torchtitan's default)
  // An expert-parallel dispatch across nodes sends a token's hidden state over the network once per
  // node holding its experts and fans it out over NVLink there, the combine the reverse (DeepEP's
  // and HybridEP's kernels behind Megatron-Core's flex dispatcher), instead of once per expert.
  bool dispatch_once_per_node = false;
  SelectiveRecompute selective = SelectiveRecompute::attention_core;
  // Where a preference objective's reference runs: inside the loss, after the policy's forward and
  // beside its activations and logits, its weights on the GPUs (TRL's trainers); or ahead of the
  // policy's work, its weights swapped in from the host (NeMo-Aligner's cpu_weight_swap).
  bool reference_in_loss = true;
};

// The stack's selective checkpointing policy (see SelectiveRecompute).
constexpr SelectiveRecompute selective_recompute(Framework framework) {
  return framework == Framework::torchtitan ? SelectiveRecompute::every_other_matmul : SelectiveRecompute::attention_core;
}

// The stack's habits for a job on a GPU generation. `flash_attention` false forces unfused attention.
StackHabits stack_habits(Framework framework, const TrainingJob& job, bool flash_attention, GpuArchitecture arch);

// What the stack casts to fp32 around a QLoRA's 4-bit base (KbitUpcast in training_job.hpp). Under
// FSDP or ZeRO-3 none, whatever the job says: every stack skips the preparation for a sharded 4-bit
// base (TRL's is_sharded_qlora, axolotl's qlora_fsdp). Otherwise the job's training.lora.upcast, else
// under transformers PEFT's prepare_model_for_kbit_training ("all", as PEFT's docs and the QLoRA
// paper's script run a supervised fine-tune), or TRL's cast back ("norms") for a preference or RL
// objective in bf16; the other stacks quantize their own way: "none".
KbitUpcast kbit_upcast(const TrainingJob& job, const StrategyConfig& config);

// Bytes per element of the residual stream and the norms' inputs and outputs: fp32 once a k-bit
// preparation has made the norms fp32, the activations' width otherwise.
double residual_bytes(KbitUpcast upcast, Precision precision);

// Transformer Engine (Megatron-Core's userbuffer overlap of the tensor-parallel collectives, its fused
// attention and fp8) needs compute capability 8.0 or newer (its installation requirements): Ampere on.
constexpr bool has_transformer_engine(GpuArchitecture arch) { return arch >= GpuArchitecture::ampere; }

// Why the stack cannot run this layout, and which of the config's keys it cannot run ("sharding",
// "parallelism" or "offload"); empty when it can. Follows what each project ships (stack_habits.cpp).
struct LayoutRefusal {
  std::string field;
  std::string reason;
  bool empty() const { return reason.empty(); }
};
LayoutRefusal layout_refusal(Framework framework, const StrategyConfig& config);

}  // namespace preflight
