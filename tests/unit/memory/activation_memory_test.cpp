// Activation memory against Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
// Transformer Models", section 4.1, equations 1-2 and section 5): with 16-bit activations, GPT with
// dropout and a 4h MLP keeps s*b*h*(34 + 5*a*s/h) bytes per layer without recompute, 34*s*b*h with
// selective recompute, and 2*s*b*h with full recompute.

#include <gtest/gtest.h>

#include "simulator/memory/activation_memory.hpp"
#include "simulator/model/stack_habits.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

// The activation model reads the architecture from a workload; the shapes come from ActivationInputs.
// GPT-3 175B as Korthikanti et al. trained it: Megatron pads the vocabulary to 51,200.
Workload gpt3_175b() { return Workload(test::fixtures::gpt2_style("gpt3-175b", 12288, 96, 96, 51200, 2048), TrainingJob{}); }

ActivationInputs inputs(Recompute r, bool flash) {
  ActivationInputs in;
  in.seq_len = 2048;
  in.micro_batch = 1;
  in.precision = Precision::bf16;
  in.recompute = r;
  in.flash_attention = flash;
  return in;
}

TEST(ActivationMemory, KorthikantiNoRecompute) {
  const Workload m = gpt3_175b();
  const ActivationMemory a = activation_memory(m, inputs(Recompute::none, false));
  const double s = 2048, b = 1, h = 12288, heads = 96;
  EXPECT_DOUBLE_EQ(a.per_layer_stored, s * b * h * (34.0 + 5.0 * heads * s / h));
}

TEST(ActivationMemory, KorthikantiSelectiveRecomputeDropsTheAttentionCore) {
  const ActivationMemory a = activation_memory(gpt3_175b(), inputs(Recompute::selective, false));
  EXPECT_DOUBLE_EQ(a.per_layer_stored, 2048.0 * 12288.0 * 34.0);
}

TEST(ActivationMemory, KorthikantiFullRecomputeKeepsLayerInputsOnly) {
  const ActivationMemory a = activation_memory(gpt3_175b(), inputs(Recompute::full, false));
  EXPECT_DOUBLE_EQ(a.per_layer_stored, 2.0 * 2048.0 * 12288.0);
  // Backward rebuilds one layer at a time: its full activations come back once.
  EXPECT_DOUBLE_EQ(a.recompute_working, 2048.0 * 12288.0 * (34.0 + 5.0 * 96.0 * 2048.0 / 12288.0));
}

// Flash attention keeps only the output and an fp32 log-sum-exp per head instead of the a*s^2 scores.
TEST(ActivationMemory, FlashAttentionKeepsNoScores) {
  const ActivationMemory flash = activation_memory(gpt3_175b(), inputs(Recompute::none, true));
  EXPECT_DOUBLE_EQ(flash.per_layer_stored, 2048.0 * (34.0 * 12288.0 + 4.0 * 96.0));
}

ModelSpec llama_2_7b_shape() {
  ModelSpec m;
  m.hidden = 4096;
  m.layers = 32;
  m.heads = m.kv_heads = 32;
  m.head_dim = 128;
  m.intermediate = 11008;
  m.vocab = 32000;
  m.max_seq_len = 4096;
  return m;
}

// Hand-worked Llama-2-7B layer (no dropout, SwiGLU, h = 4096, I = 11008), bytes per token in bf16:
// norm inputs 2*2h, QKV input 2h, Q/K/V 3*2h, o_proj input 2h, MLP input 2h,
// gate/up/act/down inputs 4*2I  =>  16h + 8I = 153,600 bytes.
TEST(ActivationMemory, Llama2LayerByHand) {
  const ModelSpec m = llama_2_7b_shape();
  EXPECT_DOUBLE_EQ(layer_activation_bytes_per_token(Workload(m, TrainingJob{}), inputs(Recompute::none, true)),
                   16.0 * 4096 + 8.0 * 11008 + 4.0 * 32);
}

// The same layer under a fused gated activation (Megatron-Core's SwiGLUFunction saves its input
// alone, megatron/core/fusions/fused_bias_swiglu.py; torch.compile recomputes point-wise ops): gate
// and up 2*2I and the down projection's input 2I, act(gate) is not kept => 16h + 6I = 131,584 bytes.
// A plain GELU MLP keeps what it kept (the GELU's input and fc2's), fused or not.
TEST(ActivationMemory, FusedGatedActivationKeepsGateAndUpOnly) {
  const ModelSpec m = llama_2_7b_shape();
  ActivationInputs fused = inputs(Recompute::none, true);
  fused.fused_activation = true;
  EXPECT_DOUBLE_EQ(layer_activation_bytes_per_token(Workload(m, TrainingJob{}), fused), 16.0 * 4096 + 6.0 * 11008 + 4.0 * 32);
  // fp8 linears: the GEMM inputs in 1 byte, and the fused attention's output O kept twice (2 bytes for
  // its own backward, 1 for the o_proj): norm inputs 2*2h, QKV input h, Q/K/V 3*2h, O 2h + h, MLP
  // input h, gate and up 2*2I, the down projection's input I => 15h + 5I.
  fused.precision = Precision::fp8;
  EXPECT_DOUBLE_EQ(layer_activation_bytes_per_token(Workload(m, TrainingJob{}), fused), 15.0 * 4096 + 5.0 * 11008 + 4.0 * 32);
  fused.precision = Precision::bf16;
  const Workload gpt = gpt3_175b();
  EXPECT_DOUBLE_EQ(layer_activation_bytes_per_token(gpt, fused), layer_activation_bytes_per_token(gpt, inputs(Recompute::none, true)));
  // What the stacks run: Megatron's Transformer Engine modules and torch.compile fuse, eager PyTorch does not.
  TrainingJob job;
  job.seq_len = 4096;
  StrategyConfig c;
  c.framework = Framework::megatron;
  EXPECT_TRUE(activation_inputs(job, c, stack_habits(c.framework, job, true, GpuArchitecture::hopper)).fused_activation);
  c.framework = Framework::transformers;
  EXPECT_FALSE(activation_inputs(job, c, stack_habits(c.framework, job, true, GpuArchitecture::hopper)).fused_activation);
  job.torch_compile = true;
  EXPECT_TRUE(activation_inputs(job, c, stack_habits(c.framework, job, true, GpuArchitecture::hopper)).fused_activation);
}

// Logits in bf16 plus the fp32 upcast and the fp32 log-softmax: 10 bytes per vocabulary entry per token.
TEST(ActivationMemory, LogitsAndLossBuffers) {
  const ActivationMemory a = activation_memory(gpt3_175b(), inputs(Recompute::full, true));
  EXPECT_DOUBLE_EQ(a.logits, 2048.0 * 51200.0 * 10.0);
}


// Korthikanti Table 2 with tensor parallelism t: s*b*h*(10 + 24/t + 5as/(ht)) without sequence
// parallelism; s*b*h/t*(34 + 5as/h) with it; 34*s*b*h/t with selective recompute and sequence
// parallelism; the full-recompute input 2*s*b*h/t once sequence parallelism splits it.
TEST(ActivationMemory, KorthikantiTensorAndSequenceParallel) {
  const Workload m = gpt3_175b();
  const double s = 2048, h = 12288, heads = 96, t = 8;
  ActivationInputs in = inputs(Recompute::none, false);
  in.tp = 8;
  EXPECT_DOUBLE_EQ(activation_memory(m, in).per_layer_stored, s * h * (10.0 + 24.0 / t + 5.0 * heads * s / (h * t)));
  in.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(activation_memory(m, in).per_layer_stored, s * h / t * (34.0 + 5.0 * heads * s / h));
  in.recompute = Recompute::selective;
  EXPECT_DOUBLE_EQ(activation_memory(m, in).per_layer_stored, s * h / t * 34.0);
  in.recompute = Recompute::full;
  EXPECT_DOUBLE_EQ(activation_memory(m, in).per_layer_stored, 2.0 * s * h / t);
  EXPECT_DOUBLE_EQ(activation_memory(m, in).logits, s * 51200.0 * 10.0 / t);  // vocabulary-parallel
}

// Korthikanti section 4.2.3: under 1F1B the first stage keeps pp micro-batches of its L/pp layers,
// so the total is L layers' worth whatever pp is; interleaving adds (1 + (pp - 1)/(pp * v)).
TEST(ActivationMemory, PipelineFirstStageHoldsPpMicroBatches) {
  const Workload m = gpt3_175b();
  ActivationInputs in = inputs(Recompute::selective, false);
  in.tp = 8;
  in.sequence_parallel = true;
  const double per_layer = 2048.0 * 12288.0 / 8.0 * 34.0;
  const ActivationMemory whole = activation_memory(m, in);
  in.stage_layers = 96 / 8;
  in.in_flight_micro_batches = 8.0;
  const ActivationMemory first_stage = activation_memory(m, in);
  EXPECT_DOUBLE_EQ(first_stage.layers_total - first_stage.outside_layers - first_stage.backward_working, 96.0 * per_layer);
  EXPECT_DOUBLE_EQ(whole.layers_total - whole.outside_layers - whole.backward_working, 96.0 * per_layer);
  in.in_flight_micro_batches = 8.0 * (1.0 + 7.0 / (8.0 * 3.0));  // interleaved, 3 chunks
  const ActivationMemory interleaved = activation_memory(m, in);
  EXPECT_DOUBLE_EQ(interleaved.layers_total - interleaved.outside_layers - interleaved.backward_working, 96.0 * per_layer * (1.0 + 7.0 / 24.0));
}

// An eager RMSNorm (LlamaRMSNorm: hidden_states.to(float32), pow, mean, rsqrt, multiply, cast back,
// times the weight) keeps its fp32 input for pow's and the multiply's backward, and its 16-bit
// normalized output for the weight's gradient where the weight trains; its 16-bit input is saved by
// nothing. Llama 2 7B's two norms a layer: 2 x (4 - 2) x 4,096 = 16,384 bytes a token more than a
// fused norm's 16-bit input with frozen norms (LoRA), 2 x (4 + 2 - 2) x 4,096 = 32,768 in a full
// fine-tune. GPT's LayerNorm (one fused kernel saving its input and statistics) keeps its input either way.
TEST(ActivationMemory, EagerRmsNormKeepsItsFp32Input) {
  const Workload llama(test::fixtures::llama_2_7b(), TrainingJob{});
  ActivationInputs in = inputs(Recompute::none, true);
  const double fused = layer_activation_bytes_per_token(llama, in);
  in.eager_norms = true;
  EXPECT_DOUBLE_EQ(layer_activation_bytes_per_token(llama, in) - fused, 2.0 * (4.0 - 2.0) * 4096.0);
  in.norms_train = true;
  EXPECT_DOUBLE_EQ(layer_activation_bytes_per_token(llama, in) - fused, 2.0 * (4.0 + 2.0 - 2.0) * 4096.0);
  ActivationInputs gpt = inputs(Recompute::none, true);
  const double layer_norm = layer_activation_bytes_per_token(gpt3_175b(), gpt);
  gpt.eager_norms = true;
  gpt.norms_train = true;
  EXPECT_DOUBLE_EQ(layer_activation_bytes_per_token(gpt3_175b(), gpt), layer_norm);
}

}  // namespace
}  // namespace preflight
