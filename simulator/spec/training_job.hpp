#pragma once
// What is trained and how: token budget, shapes, numerics, optimizer and fine-tuning method.

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/spec/enum_names.hpp"
#include "simulator/spec/software_stack.hpp"

namespace preflight {

enum class Precision { fp32, bf16, fp16, fp8 };
enum class OptimizerKind { adamw, adam8bit, sgd_momentum };
enum class Method { full, lora, qlora };

inline constexpr EnumNames<Precision, 4> kPrecisionNames{
    {{Precision::fp32, "fp32"}, {Precision::bf16, "bf16"}, {Precision::fp16, "fp16"}, {Precision::fp8, "fp8"}}};
inline constexpr EnumNames<OptimizerKind, 3> kOptimizerNames{
    {{OptimizerKind::adamw, "adamw"}, {OptimizerKind::adam8bit, "adam8bit"}, {OptimizerKind::sgd_momentum, "sgd"}}};
inline constexpr EnumNames<Method, 3> kMethodNames{{{Method::full, "full"}, {Method::lora, "lora"}, {Method::qlora, "qlora"}}};

struct LoraSpec {
  std::int64_t rank = 16;
  double dropout = 0.0;  // PEFT's default lora_dropout
  std::vector<std::string> targets;  // Hugging Face module names, after alias expansion
};

struct TrainingJob {
  double tokens = 0.0;
  std::int64_t seq_len = 0;
  std::int64_t global_batch_sequences = 0;
  Precision precision = Precision::bf16;
  OptimizerKind optimizer = OptimizerKind::adamw;
  Method method = Method::full;
  LoraSpec lora;
  bool torch_compile = false;                            // training.torch_compile
  AttentionKernel attention = AttentionKernel::automatic;  // training.attention: the stack's choice unless set

  double global_batch_tokens() const { return static_cast<double>(global_batch_sequences * seq_len); }
};

inline std::string to_string(Precision p) { return std::string(name_of(kPrecisionNames, p)); }
inline std::string to_string(OptimizerKind o) { return std::string(name_of(kOptimizerNames, o)); }
inline std::string to_string(Method m) { return std::string(name_of(kMethodNames, m)); }

}  // namespace preflight
