#pragma once
// Activation memory kept for backward (per GPU, one micro-batch), following Korthikanti et al. 2022
// ("Reducing Activation Recomputation in Large Transformer Models", section 4.1), generalised from
// GPT to grouped-query attention, gated MLPs, MoE and models without dropout. For GPT with 16-bit
// activations, I = 4h and dropout it gives their s*b*h*(34 + 5*a*s/h) bytes per layer.

#include <cstdint>

#include "simulator/model/stack_habits.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

struct ActivationInputs {
  std::int64_t seq_len = 0;  // the tokens of a sequence this rank holds (seq_len / cp)
  std::int64_t micro_batch = 1;
  Precision precision = Precision::bf16;
  Recompute recompute = Recompute::none;
  SelectiveRecompute selective = SelectiveRecompute::attention_core;  // what `selective` keeps on this stack
  bool flash_attention = true;       // a fused attention kernel: no score matrix kept
  // A fused gated activation (Megatron-Core's bias_swiglu_impl, torch.compile's Inductor): it keeps
  // gate and up for its backward and recomputes act(gate), where eager PyTorch keeps that too.
  bool fused_activation = false;
  // Norms run op by op (no fused kernel, no torch.compile): an RMSNorm then keeps an fp32 copy of its
  // input for its backward, and its 16-bit normalized output where its weight trains.
  bool eager_norms = false;
  bool norms_train = false;  // a full fine-tune: the norms' weights have gradients
  // What the stack casts to fp32 around a 4-bit base (kbit_upcast in stack_habits.hpp): the residual
  // stream, the norms and what the 4-bit linears return after them in fp32, and under "all" the fp32
  // head's 16-bit copy autocast makes for its matmul, saved for the head's backward.
  KbitUpcast upcast = KbitUpcast::none;
  // The head and loss fused over vocabulary blocks (Cut Cross-Entropy): no logits held.
  bool logits_materialized = true;
  // What the stack's loss keeps per logit beside the lm_head output (stack_habits.hpp).
  double loss_kept_bytes_per_logit = 8.0;
  const LoraSpec* lora = nullptr;  // adapters add their own saved tensors
  // Tensor parallelism splits what lies between the column- and row-parallel linears by tp; the norm
  // and dropout tensors outside them stay whole on every rank unless sequence parallelism splits them
  // too (Korthikanti: s*b*h*(10 + 24/t + 5as/(ht)), and with sequence parallelism s*b*h/t*(34 + 5as/h)).
  int tp = 1;
  bool sequence_parallel = false;
  // Layers of this GPU's pipeline stage, and the micro-batches whose activations it keeps at once
  // (1F1B: the first stage holds pp of them). 0 layers: the whole model (no pipeline).
  std::int64_t stage_layers = 0;
  double in_flight_micro_batches = 1.0;
};

struct ActivationMemory {
  double per_layer_stored = 0.0;     // what one layer keeps until its backward, under the recompute policy
  double recompute_working = 0.0;    // what one layer rebuilds at once during its backward (full or op-level recompute)
  // The gradients a layer's backward holds at once beside what it consumes: its MLP's, the widest
  // (backward_transient_bytes_per_token).
  double backward_working = 0.0;
  double outside_layers = 0.0;       // final norm and lm_head inputs
  double logits = 0.0;               // lm_head output and the fp32 loss buffers
  // The lm_head output of a forward without gradients (a preference objective's reference): the
  // logits in the activations' dtype, no loss buffers kept for a backward (TRL reads their
  // log-probabilities a row at a time).
  double no_grad_logits = 0.0;
  double layers_total = 0.0;         // per_layer_stored * layers in flight + recompute_working + backward_working + outside_layers

  double total() const { return layers_total + logits; }
};

// The activation inputs of a job under a config, run by a stack with these habits.
ActivationInputs activation_inputs(const TrainingJob& job, const StrategyConfig& config, const StackHabits& stack);

// Bytes one layer keeps per token without any recompute (the 34h + 5as of Korthikanti for GPT).
double layer_activation_bytes_per_token(const Workload& workload, const ActivationInputs& in);

// torchtitan's selective "op" checkpointing (_save_list: every other aten.mm, the attention kernel):
// what a layer keeps per token (the block's input, the outputs of Llama's wq, wv, w1 and w2, the
// attention's output and log-sum-exp; an expert layer's router logits, its experts' grouped matmuls
// run again) and the share of the layer's forward matmul work its backward runs again (wk, wo, w3
// and the experts'). One rule for both, so memory and time agree.
struct EveryOtherMatmul {
  double kept_bytes_per_token = 0.0;
  double matmul_share_again = 0.0;
};
EveryOtherMatmul every_other_matmul(const Workload& workload, const ActivationInputs& in);

// What a layer's backward holds at once beside the activations it consumes, per token: the gradients
// of its MLP's intermediates (the widest of the layer's), which no count of saved tensors includes.
// Korthikanti et al. count what forward saves; the backward's own working set is what fills the memory
// left once a checkpointed model's saved tensors are small. Sized from the kernels' backward (3 or 2
// gradients of width I); Unsloth's published context limits, about 2 x I x 2 bytes a token beside the
// rebuilt layer, agree, and so are no independent check of it.
double backward_transient_bytes_per_token(const Workload& workload, const ActivationInputs& in);

ActivationMemory activation_memory(const Workload& workload, const ActivationInputs& in);

}  // namespace preflight
