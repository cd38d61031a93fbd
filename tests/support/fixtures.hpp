#pragma once
// Hand-written models and machines for the simulator's tests, so that no simulator test loads the
// catalog (the planner's job). Each is the catalog's entry written out field by field, with its
// source: models from the Hugging Face config.json values that catalogs/models/<id>.json gives,
// GPUs from catalogs/gpus.json, machines (with every price quote) from catalogs/instances/*.json.
// tests/planner/fixtures_match_catalog_test.cpp checks each against the catalog, so they cannot drift.

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/spec/gpu_spec.hpp"
#include "simulator/spec/model_spec.hpp"
#include "simulator/spec/node_spec.hpp"

namespace preflight::test::fixtures {

// A GPT-2-style architecture (GPT-2, GPT-3, Megatron-LM's GPT): learned positions, LayerNorm, a GELU
// MLP of 4 x hidden, biases everywhere, tied embeddings, dropout 0.1.
ModelSpec gpt2_style(const std::string& id, std::int64_t n_embd, std::int64_t n_layer, std::int64_t n_head,
                     std::int64_t vocab_size, std::int64_t n_positions);

// Models (catalogs/models/<id>.json).
ModelSpec gpt2();
ModelSpec gpt3_175b();
ModelSpec llama_2_7b();
ModelSpec llama_2_13b();
ModelSpec llama_2_70b();
ModelSpec llama_3_1_8b();
ModelSpec llama_3_1_70b();
ModelSpec llama_3_1_405b();
ModelSpec mistral_7b();
ModelSpec mixtral_8x7b();
ModelSpec qwen2_5_7b();
ModelSpec qwen2_5_14b();
ModelSpec qwen2_5_72b();
// Every catalog model, in id order (the catalog's model_ids()).
std::vector<ModelSpec> models();

// GPUs (catalogs/gpus.json).
GpuSpec a100_40gb();
GpuSpec a100_80gb();
GpuSpec h100_80gb();
GpuSpec h200();
std::vector<GpuSpec> gpus();

// Machines (catalogs/instances/*.json). `warnings` stays empty: those are the catalog loader's
// messages about the prices, not figures of the machine.
NodeSpec aws_p4d_24xlarge();      // 8 x A100 40GB, NVSwitch, 400 Gb/s
NodeSpec aws_p4de_24xlarge();     // 8 x A100 80GB, NVSwitch, 400 Gb/s
NodeSpec aws_p5_48xlarge();       // 8 x H100 80GB, NVSwitch, 3200 Gb/s
NodeSpec aws_p5e_48xlarge();      // 8 x H200, no on-demand price
NodeSpec onprem_dgx_a100_80gb();  // Selene's node: 8 x A100 80GB, 8 x 200 Gb/s HDR InfiniBand
NodeSpec onprem_dgx_h100();       // owned: no prices
std::vector<NodeSpec> nodes();

}  // namespace preflight::test::fixtures
