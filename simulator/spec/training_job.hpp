#pragma once
// What is trained and how: token budget, shapes, numerics, optimizer and fine-tuning method.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/spec/enum_names.hpp"
#include "simulator/spec/software_stack.hpp"

namespace preflight {

enum class Precision { fp32, bf16, fp16, fp8 };
// adamw: torch's AdamW (fused or not); adamw8bit: bitsandbytes' 8-bit AdamW; paged_*: bitsandbytes'
// paged AdamW, its states in CUDA unified memory that the driver evicts to the host under pressure;
// adafactor: transformers' Adafactor as the Trainer builds it (no first moment, factored second moment);
// sgd: torch's SGD with a momentum buffer.
enum class OptimizerKind { adamw, adamw8bit, paged_adamw8bit, paged_adamw32bit, adafactor, sgd_momentum };
enum class Method { full, lora, qlora };

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

struct LoraSpec {
  std::int64_t rank = 16;
  double dropout = 0.0;  // PEFT's default lora_dropout
  std::vector<std::string> targets;  // Hugging Face module names, after alias expansion
  // PEFT's modules_to_save: modules trained in full beside the adapters, "embed_tokens" and "lm_head"
  // (after alias expansion), each a trainable copy in the base's dtype beside the frozen original.
  std::vector<std::string> modules_to_save;
  bool trains(std::string_view module) const {
    for (const std::string& m : modules_to_save) {
      if (m == module) return true;
    }
    return false;
  }
};

struct TrainingJob {
  double tokens = 0.0;
  std::int64_t seq_len = 0;
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

  double global_batch_tokens() const { return static_cast<double>(global_batch_sequences * seq_len); }
};

inline std::string to_string(Precision p) { return std::string(name_of(kPrecisionNames, p)); }
inline std::string to_string(OptimizerKind o) { return std::string(name_of(kOptimizerNames, o)); }
inline std::string to_string(Method m) { return std::string(name_of(kMethodNames, m)); }

}  // namespace preflight
