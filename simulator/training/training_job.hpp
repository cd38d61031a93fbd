#pragma once
// What is trained and how: token budget, shapes, numerics, optimizer and fine-tuning method.

#include <cstdint>
#include <string>
#include <vector>

namespace preflight {

enum class Precision { fp32, bf16, fp16, fp8 };
enum class OptimizerKind { adamw, adam8bit, sgd_momentum };
enum class Method { full, lora, qlora };

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

  double global_batch_tokens() const { return static_cast<double>(global_batch_sequences * seq_len); }
};

std::string to_string(Precision p);
std::string to_string(OptimizerKind o);
std::string to_string(Method m);

}  // namespace preflight
