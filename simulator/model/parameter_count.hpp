#pragma once
// Exact parameter counts of a ModelSpec, split the way memory and FLOPs need them.

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/spec/model_spec.hpp"

namespace preflight {

// One weight matrix of a transformer layer: what LoRA attaches to and what the forward multiplies.
struct LinearShape {
  std::string name;  // Hugging Face module name: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj
  std::int64_t in = 0;
  std::int64_t out = 0;
  std::int64_t copies = 1;  // experts for MoE MLP matrices
  bool bias = false;

  std::int64_t weights() const { return in * out * copies; }
  std::int64_t params() const { return (in * out + (bias ? out : 0)) * copies; }
};

struct ParameterCount {
  std::int64_t embedding = 0;          // token embedding table
  std::int64_t position_embedding = 0; // learned absolute positions (GPT-2)
  std::int64_t attention_per_layer = 0;
  std::int64_t mlp_per_layer = 0;      // all experts
  std::int64_t router_per_layer = 0;
  std::int64_t norms_per_layer = 0;
  std::int64_t final_norm = 0;
  std::int64_t lm_head = 0;            // 0 when tied to the embedding
  std::int64_t layers = 0;
  std::int64_t mlp_active_per_layer = 0;  // the experts one token passes through
  std::int64_t block_linear_weights = 0;  // linear weights inside the blocks (what QLoRA quantizes)
  std::int64_t largest_module = 0;        // the largest module ZeRO-3 gathers at once (DeepSpeed's "largest layer")
  std::int64_t largest_block_linear = 0;  // the largest single weight matrix inside a block

  std::int64_t per_layer() const { return attention_per_layer + mlp_per_layer + router_per_layer + norms_per_layer; }
  std::int64_t total() const {
    return embedding + position_embedding + layers * per_layer() + final_norm + lm_head;
  }
  // Parameters one token touches: what FLOPs scale with for MoE.
  std::int64_t active_per_token() const {
    return total() - layers * (mlp_per_layer - mlp_active_per_layer);
  }
};

// The weight matrices of one transformer layer, in execution order.
std::vector<LinearShape> layer_linears(const ModelSpec& model);

ParameterCount count_parameters(const ModelSpec& model);

}  // namespace preflight
