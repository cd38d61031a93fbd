// Expert models whose layers are not all alike (DeepSeek-V2-Lite: multi-head latent attention, one
// dense first layer, 64 routed experts beside two shared ones). The simulator runs one layer that is
// the mean of the model's kinds of layer, so (1) the layers' GEMM FLOPs add up to what a token's
// active weights and causal attention take (flops.hpp, counted independently from the parameter
// count), (2) the mean layer is exactly the layer-weighted mean of the model built of each kind
// alone, in time and in activation memory.

#include <gtest/gtest.h>

#include "simulator/hardware/compute_model.hpp"
#include "simulator/memory/activation_memory.hpp"
#include "simulator/model/workload.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

// deepseek-ai/DeepSeek-V2-Lite's config.json, written as a ModelSpec by hand.
ModelSpec deepseek_v2_lite() {
  ModelSpec m;
  m.id = "deepseek-v2-lite";
  m.hidden = 2048;
  m.layers = 27;
  m.heads = 16;
  m.kv_heads = 16;
  m.mla = {.q_rank = 0, .kv_rank = 512, .rope_dim = 64, .nope_dim = 128, .v_dim = 128};
  m.head_dim = 192;
  m.intermediate = 1408;
  m.experts = 64;
  m.experts_per_token = 6;
  m.shared_intermediate = 2 * 1408;
  m.dense_layers = 1;
  m.dense_intermediate = 10944;
  m.vocab = 102400;
  m.max_seq_len = 163840;
  return m;
}

// DeepSeek-V3's attention (a low-rank query) on the same small body.
ModelSpec with_query_rank() {
  ModelSpec m = deepseek_v2_lite();
  m.mla.q_rank = 1536;
  return m;
}

Workload workload(const ModelSpec& m) {
  TrainingJob job;
  job.seq_len = 4096;
  return Workload(m, job);
}

LayerCostInputs inputs() {
  LayerCostInputs in;
  in.seq_len = 4096;
  in.micro_batch = 1;
  in.precision = Precision::bf16;
  return in;
}

DeviceRates h100() { return default_device_rates(test::fixtures::h100_80gb(), Precision::bf16); }

TEST(MixedLayers, TheLayersGemmFlopsAddUpToTheActiveWeightsAndCausalAttention) {
  for (const ModelSpec& m : {deepseek_v2_lite(), with_query_rank(), test::fixtures::mixtral_8x7b(), test::fixtures::llama_3_1_8b()}) {
    const Workload w = workload(m);
    const LayerCost c = layer_cost(w, inputs(), h100());
    const double tokens = 4096.0;
    // flops_per_token counts the lm_head (head_cost's) and full attention; the layers run it causal.
    const FlopsPerToken& f = w.flops();
    const double expected = f.forward_matmul - 2.0 * static_cast<double>(m.vocab * m.hidden) + 0.5 * f.forward_attention;
    // Norm weights are parameters without GEMM work: well under 0.01% of these models.
    EXPECT_NEAR(static_cast<double>(m.layers) * c.forward.flops / tokens, expected, 1e-4 * expected) << m.id;
  }
}

// The model built of one kind of DeepSeek-V2-Lite's layers alone.
ModelSpec all_expert_layers() {
  ModelSpec m = deepseek_v2_lite();
  m.dense_layers = 0;
  return m;
}
ModelSpec all_dense_layers() {
  ModelSpec m = deepseek_v2_lite();
  m.experts = 1;
  m.experts_per_token = 1;
  m.intermediate = 10944;
  m.shared_intermediate = 0;
  m.dense_layers = 0;
  return m;
}

TEST(MixedLayers, TheSimulatedLayerIsTheLayerWeightedMeanOfItsKinds) {
  for (const bool lora : {false, true}) {
    TrainingJob job;
    job.seq_len = 4096;
    if (lora) {
      job.method = Method::lora;
      job.lora.rank = 16;
      job.lora.targets = {"q_proj", "kv_b_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
    }
    LayerCostInputs in = inputs();
    in.lora = lora ? &job.lora : nullptr;
    in.frozen_weights = lora;
    const auto seconds = [&](const ModelSpec& m) { return layer_cost(Workload(m, job), in, h100()).forward.seconds; };
    const double mixed = seconds(deepseek_v2_lite());
    const double expected = (26.0 * seconds(all_expert_layers()) + 1.0 * seconds(all_dense_layers())) / 27.0;
    EXPECT_NEAR(mixed, expected, 1e-9 * expected) << (lora ? "lora" : "full");
  }
  ActivationInputs a;
  a.seq_len = 4096;
  a.precision = Precision::bf16;
  a.flash_attention = true;
  const auto stored = [&](const ModelSpec& m) { return activation_memory(workload(m), a).per_layer_stored; };
  EXPECT_NEAR(stored(deepseek_v2_lite()), (26.0 * stored(all_expert_layers()) + stored(all_dense_layers())) / 27.0,
              1e-9 * stored(deepseek_v2_lite()));
}

TEST(MixedLayers, LatentAttentionKeepsItsLatentsAndFullRecomputeStillDropsThem) {
  ActivationInputs a;
  a.seq_len = 4096;
  a.precision = Precision::bf16;
  a.flash_attention = true;
  const Workload w = workload(with_query_rank());
  const double none = activation_memory(w, a).per_layer_stored;
  ModelSpec plain = with_query_rank();
  plain.mla.q_rank = 0;
  // The query latent (1536 wide) is kept twice over: the down projection's output and its normed copy.
  EXPECT_NEAR(none - activation_memory(workload(plain), a).per_layer_stored, 4096.0 * 1536.0 * (2.0 + 2.0), 1.0);
  a.recompute = Recompute::full;
  EXPECT_LT(activation_memory(w, a).per_layer_stored, none);
}

}  // namespace
}  // namespace preflight
