#pragma once
// Activation memory kept for backward (per GPU, one micro-batch), following Korthikanti et al. 2022
// ("Reducing Activation Recomputation in Large Transformer Models", section 4.1), generalised from
// GPT to grouped-query attention, gated MLPs, MoE and models without dropout. For GPT with 16-bit
// activations, I = 4h and dropout it gives their s*b*h*(34 + 5*a*s/h) bytes per layer.

#include <cstdint>

#include "simulator/model/model_spec.hpp"
#include "simulator/strategy/strategy_config.hpp"
#include "simulator/training/training_job.hpp"

namespace preflight {

struct ActivationInputs {
  std::int64_t seq_len = 0;
  std::int64_t micro_batch = 1;
  Precision precision = Precision::bf16;
  Recompute recompute = Recompute::none;
  bool flash_attention = true;
  const LoraSpec* lora = nullptr;  // adapters add their own saved tensors
};

struct ActivationMemory {
  double per_layer_stored = 0.0;     // what one layer keeps until its backward, under the recompute policy
  double recompute_working = 0.0;    // one layer's full activations, rebuilt during its backward
  double outside_layers = 0.0;       // final norm and lm_head inputs
  double logits = 0.0;               // lm_head output and the fp32 loss buffers
  double layers_total = 0.0;         // per_layer_stored * layers + recompute_working + outside_layers

  double total() const { return layers_total + logits; }
};

// The activation inputs of a job under a config.
ActivationInputs activation_inputs(const TrainingJob& job, const StrategyConfig& config);

// Bytes one layer keeps per token without any recompute (the 34h + 5as of Korthikanti for GPT).
double layer_activation_bytes_per_token(const ModelSpec& model, const ActivationInputs& in);

ActivationMemory activation_memory(const ModelSpec& model, const ActivationInputs& in);

}  // namespace preflight
