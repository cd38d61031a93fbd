#pragma once
// What is trained and how: token budget, shapes, numerics, optimizer and fine-tuning method.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/spec/enum_names.hpp"
#include "simulator/spec/rl_spec.hpp"
#include "simulator/spec/software_stack.hpp"

namespace preflight {

enum class Precision { fp32, bf16, fp16, fp8 };
// adamw: torch's AdamW (fused or not); adamw8bit: bitsandbytes' 8-bit AdamW; paged_*: bitsandbytes'
// paged AdamW, its states in CUDA unified memory that the driver evicts to the host under pressure;
// adafactor: transformers' Adafactor as the Trainer builds it (no first moment, factored second moment);
// sgd: torch's SGD with a momentum buffer.
enum class OptimizerKind { adamw, adamw8bit, paged_adamw8bit, paged_adamw32bit, adafactor, sgd_momentum };
enum class Method { full, lora, qlora };
// What the step optimises. sft: the next-token loss of supervised fine-tuning and pre-training. The
// rest are post-training objectives (TRL's trainers): dpo (DPOTrainer: chosen and rejected sequences
// through the policy in one concatenated forward, beside a frozen reference's forward on both),
// simpo and orpo (CPOTrainer's SimPO loss, ORPOTrainer: pairs without a reference), kto
// (KTOTrainer: unpaired examples, the reference on each and on a mismatched completion, and the
// policy's forward without gradients on that completion for the KL term), reward (RewardTrainer:
// a scalar head in place of the lm_head, chosen and rejected through the model); rl: RL with
// rollouts (TrainingJob::rl says what a step generates and trains on).
enum class TrainingObjective { sft, dpo, simpo, orpo, kto, reward, rl };
// Where a preference objective's reference log-probabilities come from: a frozen model run every step
// (a second copy of the weights, or the LoRA base with its adapters off), a pass over the data before
// training (TRL's precompute_ref_log_probs: no reference weights while training), or none.
enum class ReferenceSource { model, precomputed, none };
// What a stack casts to fp32 around a 4-bit base before LoRA training. all: PEFT's
// prepare_model_for_kbit_training casts every 16-bit parameter but the 4-bit ones (embeddings, lm_head,
// norms) to fp32 (peft/utils/other.py; the QLoRA paper's qlora.py, TRL's SFTTrainer and axolotl call
// it). norms: TRL then casts the embeddings and head back to bf16 under bf16 training and keeps the
// norms in fp32 (peft_module_casting_to_bf16; LLaMA-Factory's upcast_layernorm alike). none: the 16-bit
// weights stay 16-bit (LLaMA-Factory, axolotl, which casts them back for every adapter, torchtune,
// litgpt, Unsloth). With fp32 norm weights the norms' outputs
// are fp32, bitsandbytes' Linear4bit returns its input's dtype, so the MLP's output and the residual
// stream after it are fp32 (transformers' flash-attention path warns "The input hidden states seems to
// be silently casted in float32" and casts q, k, v back).
enum class KbitUpcast { all, norms, none };

inline constexpr EnumNames<Precision, 4> kPrecisionNames{
    {{Precision::fp32, "fp32"}, {Precision::bf16, "bf16"}, {Precision::fp16, "fp16"}, {Precision::fp8, "fp8"}}};
// "adam8bit" is the name earlier scenarios used for adamw8bit: read, never printed.
inline constexpr EnumNames<OptimizerKind, 7> kOptimizerNames{{{OptimizerKind::adamw, "adamw"},
                                                              {OptimizerKind::adamw8bit, "adamw8bit"},
                                                              {OptimizerKind::paged_adamw8bit, "paged_adamw8bit"},
                                                              {OptimizerKind::paged_adamw32bit, "paged_adamw32bit"},
                                                              {OptimizerKind::adafactor, "adafactor"},
                                                              {OptimizerKind::sgd_momentum, "sgd"},
                                                              {OptimizerKind::adamw8bit, "adam8bit"}}};

// Whether the optimizer's states live in unified memory the driver may page out to the host.
constexpr bool paged(OptimizerKind o) { return o == OptimizerKind::paged_adamw8bit || o == OptimizerKind::paged_adamw32bit; }
inline constexpr EnumNames<Method, 3> kMethodNames{{{Method::full, "full"}, {Method::lora, "lora"}, {Method::qlora, "qlora"}}};
inline constexpr EnumNames<TrainingObjective, 7> kTrainingObjectiveNames{{{TrainingObjective::sft, "sft"},
                                                          {TrainingObjective::dpo, "dpo"},
                                                          {TrainingObjective::simpo, "simpo"},
                                                          {TrainingObjective::orpo, "orpo"},
                                                          {TrainingObjective::kto, "kto"},
                                                          {TrainingObjective::reward, "reward"},
                                                          {TrainingObjective::rl, "rl"}}};
inline constexpr EnumNames<KbitUpcast, 3> kKbitUpcastNames{
    {{KbitUpcast::all, "all"}, {KbitUpcast::norms, "norms"}, {KbitUpcast::none, "none"}}};
inline constexpr EnumNames<ReferenceSource, 3> kReferenceSourceNames{
    {{ReferenceSource::model, "model"}, {ReferenceSource::precomputed, "precomputed"}, {ReferenceSource::none, "none"}}};

// Whether an objective trains on pairs (chosen and rejected) or on single sequences.
constexpr bool paired(TrainingObjective o) { return o == TrainingObjective::dpo || o == TrainingObjective::simpo || o == TrainingObjective::orpo || o == TrainingObjective::reward; }
// Whether an objective compares the policy with a reference: only DPO and KTO (SimPO and ORPO are
// reference-free by construction; a reward model has none).
constexpr bool takes_reference(TrainingObjective o) { return o == TrainingObjective::dpo || o == TrainingObjective::kto; }

struct LoraSpec {
  std::int64_t rank = 16;
  double dropout = 0.0;  // PEFT's default lora_dropout
  std::vector<std::string> targets;  // Hugging Face module names, after alias expansion
  // PEFT's modules_to_save: modules trained in full beside the adapters, "embed_tokens" and "lm_head"
  // (after alias expansion), each a trainable copy in the base's dtype beside the frozen original.
  std::vector<std::string> modules_to_save;
  // training.lora.upcast (QLoRA only); unset: the stack's own (kbit_upcast in stack_habits.hpp).
  std::optional<KbitUpcast> upcast;
  bool trains(std::string_view module) const {
    for (const std::string& m : modules_to_save) {
      if (m == module) return true;
    }
    return false;
  }
};

struct TrainingJob {
  // Every token the policy trains on: under a paired objective, both sequences of each pair.
  double tokens = 0.0;
  std::int64_t seq_len = 0;  // one sequence (under a preference objective: its prompt and completion)
  // Examples per optimizer step: sequences, or under a paired objective pairs (TRL's batch sizes count
  // pairs; each runs as two sequences). The config's micro_batch counts examples too.
  std::int64_t global_batch_sequences = 0;
  Precision precision = Precision::bf16;
  OptimizerKind optimizer = OptimizerKind::adamw;
  // training.master_weights: mixed precision keeps fp32 master weights (and fp32 gradients where the
  // stack accumulates in fp32) beside the 16-bit ones; false is pure 16-bit training, the optimizer's
  // states in the weights' dtype (torchtune's full fine-tunes with dtype bf16).
  bool master_weights = true;
  // training.optimizer_in_backward: each parameter is stepped as its gradient is ready and the gradient
  // freed (torchtune's optimizer_in_bwd, PyTorch's _apply_optimizer_in_backward), so no full set of
  // gradients is ever held; it rules out gradient accumulation.
  bool optimizer_in_backward = false;
  Method method = Method::full;
  LoraSpec lora;
  bool torch_compile = false;                            // training.torch_compile
  // training.compile_loss: whether the loss is compiled with the model; unset, it is when torch_compile
  // is (the Trainer's model computes its loss; torchtitan's compile.components has "loss" by default
  // since 2025, where its 2024 releases compiled the blocks alone).
  std::optional<bool> compile_loss;
  AttentionKernel attention = AttentionKernel::automatic;  // training.attention: the stack's choice unless set
  TrainingObjective objective = TrainingObjective::sft;
  ReferenceSource reference = ReferenceSource::none;
  // Passes over the data (dataset_tokens with epochs; 1 when the length is given otherwise): a
  // precomputed reference runs once over the data, not once an epoch.
  double epochs = 1.0;
  // RL with rollouts (objective rl): the step's generation and the forwards it adds. Under it seq_len
  // is a response's prompt and mean completion (micro-batches balanced by tokens, as verl's
  // use_dynamic_bsz and NeMo-RL's sequence packing make them), global_batch_sequences the responses
  // one optimizer step trains on (verl's ppo_mini_batch_size x n, NeMo-RL's train_global_batch_size),
  // and a step is the RL step: every response trained on epochs_per_batch times.
  std::optional<RlSpec> rl;

  // The sequences one example runs through the model with gradients: a pair's two, else one.
  std::int64_t sequences_per_example() const { return paired(objective) ? 2 : 1; }
  std::int64_t sequences(std::int64_t examples) const { return examples * sequences_per_example(); }
  // The forwards without gradients a micro-batch makes each step, each of the micro-batch's own shape
  // (DPO's concatenated pair, KTO's one sequence an example): DPO's reference on the pair (1); KTO's
  // reference on the example and on a mismatched completion and the policy on that completion (3; the
  // policy's alone, 1, where the reference's log-probabilities were precomputed).
  int no_grad_calls() const {
    const bool reference_runs = reference == ReferenceSource::model;
    if (objective == TrainingObjective::dpo) return reference_runs ? 1 : 0;
    if (objective == TrainingObjective::kto) return reference_runs ? 3 : 1;
    return 0;
  }
  // A precomputed reference's pass (two sequences an example) over the data, once and not once an
  // epoch, spread over the steps: forwards of the micro-batch's shape per micro-batch.
  double precomputed_share() const {
    return reference == ReferenceSource::precomputed ? 2.0 / epochs / static_cast<double>(sequences_per_example()) : 0.0;
  }
  // Optimizer steps in one step: an RL step trains its responses in mini-batches, epochs_per_batch
  // times; every other job, one.
  std::int64_t optimizer_steps() const {
    if (!rl) return 1;
    return rl->epochs_per_batch * std::max<std::int64_t>(1, rl->sequences() / std::max<std::int64_t>(1, global_batch_sequences));
  }
  // The forwards without gradients an RL step makes over its responses, once before the update: the
  // old policy's log-probabilities where the batch is trained in more than one optimizer step (the
  // importance ratio is 1 otherwise: TRL's GRPO skips it then; verl and NeMo-RL compute it whatever
  // the steps, one pass more for a step of a single optimizer step), the reference's for the KL term,
  // and PPO's critic values. Per micro-batch of an optimizer step they are these over the epochs.
  int rl_no_grad_passes() const {
    if (!rl) return 0;
    return (optimizer_steps() > 1 ? 1 : 0) + (rl->reference ? 1 : 0) + (rl->critic ? 1 : 0);
  }
  // Forwards without gradients of the micro-batch's shape, run ahead of the micro-batch's own forward
  // and without collectives of their own: a precomputed reference's share, an RL step's passes.
  double no_grad_ahead_share() const {
    return precomputed_share() + (rl ? static_cast<double>(rl_no_grad_passes()) / static_cast<double>(rl->epochs_per_batch) : 0.0);
  }
  // Forwards without gradients of the micro-batch's shape per micro-batch, on average (calls and share).
  double no_grad_forwards() const { return no_grad_calls() + no_grad_ahead_share(); }
  // Sequences an example runs forward without gradients each step, on average.
  double no_grad_sequences_per_example() const { return no_grad_forwards() * static_cast<double>(sequences_per_example()); }
  // A frozen reference model whose weights stay on the GPUs while training: a full fine-tune's second
  // copy (a LoRA's reference is its own base with the adapters off).
  bool reference_weights() const { return reference == ReferenceSource::model && method == Method::full; }
  double global_batch_tokens() const { return static_cast<double>(sequences(global_batch_sequences) * seq_len); }
  // The tokens one step trains on (each once): an RL step's every response with its prompt, else the
  // global batch. The run's steps are tokens over these.
  double step_tokens() const { return rl ? static_cast<double>(rl->sequences() * seq_len) : global_batch_tokens(); }
};

inline std::string to_string(Precision p) { return std::string(name_of(kPrecisionNames, p)); }
inline std::string to_string(OptimizerKind o) { return std::string(name_of(kOptimizerNames, o)); }
inline std::string to_string(Method m) { return std::string(name_of(kMethodNames, m)); }
inline std::string to_string(TrainingObjective o) { return std::string(name_of(kTrainingObjectiveNames, o)); }
inline std::string to_string(ReferenceSource r) { return std::string(name_of(kReferenceSourceNames, r)); }

}  // namespace preflight
