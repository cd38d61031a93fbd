#pragma once
// Expert models whose layers are not all alike, each read as its transformers config class reads
// its config.json: DeepSeek-V2 and V3 (multi-head latent attention, shared experts, dense first
// layers) and the Qwen MoE families' dense layers among the expert layers and shared expert.

#include <cstdint>
#include <string>
#include <vector>

#include "planner/io/json_reader.hpp"
#include "simulator/spec/model_spec.hpp"

namespace preflight::hf {

ModelSpec deepseek_v2(io::ObjectReader& r, std::vector<std::string>& notes);
ModelSpec deepseek_v3(io::ObjectReader& r, std::vector<std::string>& notes);

// Qwen2-MoE and Qwen3-MoE (Qwen2MoeDecoderLayer, Qwen3MoeDecoderLayer): layer i is an expert layer
// unless it is in mlp_only_layers or (i + 1) is not a multiple of decoder_sparse_step; the others
// have a dense MLP of intermediate_size (`dense_default` when absent).
void qwen_moe_layers(io::ObjectReader& r, ModelSpec& m, std::int64_t dense_default);

}  // namespace preflight::hf
