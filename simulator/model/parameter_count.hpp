#pragma once
// Exact parameter counts of a ModelSpec, split the way memory and FLOPs need them.

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/spec/model_spec.hpp"

namespace preflight {

// One weight matrix of a transformer layer: what LoRA attaches to and what the forward multiplies.
struct LinearShape {
  std::string name;  // Hugging Face module name: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, ...
  std::int64_t in = 0;
  std::int64_t out = 0;
  std::int64_t copies = 1;  // routed experts for MoE MLP matrices (a shared expert is one copy)
  bool bias = false;

  std::int64_t weights() const { return in * out * copies; }
  std::int64_t params() const { return (in * out + (bias ? out : 0)) * copies; }
};

// Layers that share one set of weight shapes, and how many of the model's layers they are.
struct LayerKind {
  std::int64_t layers = 0;
  std::vector<LinearShape> linears;  // in execution order
};

struct ParameterCount {
  std::int64_t embedding = 0;          // token embedding table
  std::int64_t position_embedding = 0; // learned absolute positions (GPT-2)
  std::int64_t attention_per_layer = 0;  // with MLA's latent norms and attention sinks
  std::int64_t mlp_per_layer = 0;      // an expert layer's: every routed expert and the shared one
  std::int64_t router_per_layer = 0;   // of an expert layer (with Qwen2-MoE's shared-expert gate)
  std::int64_t norms_per_layer = 0;
  std::int64_t final_norm = 0;
  std::int64_t lm_head = 0;            // 0 when tied to the embedding
  std::int64_t layers = 0;
  std::int64_t mlp_active_per_layer = 0;  // the experts one token passes through (routed top-k and shared)
  std::int64_t routed_mlp_per_layer = 0;  // an expert layer's routed experts (what expert parallelism splits)
  std::int64_t dense_layers = 0;          // layers with a dense MLP among an expert model's layers
  std::int64_t dense_mlp_per_layer = 0;   // that dense MLP
  std::int64_t block_linear_weights = 0;  // linear weights inside the blocks (what QLoRA quantizes)
  std::int64_t largest_module = 0;        // the largest module ZeRO-3 gathers at once (DeepSpeed's "largest layer")
  std::int64_t largest_block_linear = 0;  // the largest single weight matrix inside a block

  // The largest layer (an expert layer of an expert model): what a pipeline stage is sized by.
  std::int64_t per_layer() const { return attention_per_layer + mlp_per_layer + router_per_layer + norms_per_layer; }
  std::int64_t total() const {
    const std::int64_t dense_savings = dense_layers * (mlp_per_layer + router_per_layer - dense_mlp_per_layer);
    return embedding + position_embedding + layers * per_layer() - dense_savings + final_norm + lm_head;
  }
  // Parameters one token touches: what FLOPs scale with for MoE.
  std::int64_t active_per_token() const {
    return total() - (layers - dense_layers) * (mlp_per_layer - mlp_active_per_layer);
  }
};

// The weight matrices of the model's largest layer (an expert layer of an expert model), in
// execution order.
std::vector<LinearShape> layer_linears(const ModelSpec& model);

// Every kind of layer: the largest first, then an expert model's dense layers (when it has any).
std::vector<LayerKind> layer_kinds(const ModelSpec& model);

ParameterCount count_parameters(const ModelSpec& model);

}  // namespace preflight
