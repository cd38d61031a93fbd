#pragma once
// Named defaults of the rollout model: the generation engines' settings as they ship, and the rates
// the published decode measurements give. Each names its source.

#include "simulator/spec/software_stack.hpp"

namespace preflight::rollout_defaults {

// vLLM's step time at batch 1 beside its weights' read: 6.44 ms per token for Llama-3.1-8B on one
// H100 (vLLM v0.19.1, FlashAttention-3, CUDA graphs; vLLM blog "fp8-kvcache", 2026-04-22, fitted
// ITL intercept), of which the weights a step reads (all but the embedding table's unread rows,
// 15.01 GB) at 3.35 TB/s x kMemoryBandwidthFraction 0.85 take 5.27 ms: the scheduler, sampling and
// the step's host work take the rest, 1.2 ms. The same fit's slope (4.37e-5 ms per context token)
// is the KV cache's read at 0.89 of the datasheet bandwidth (the model reads it at 0.85: 5% slower).
// SGLang's decode loop is taken to cost the same (no clean batch-1 H100 measurement was found).
constexpr double kEngineStepSeconds = 1.2e-3;

// Hugging Face generate runs each layer's kernels eagerly from Python every token: 24.8 ms a token
// for Qwen2.5-7B at batch 1 on an A100-80GB (transformers 4.46, FlashAttention 2; Qwen2.5 docs,
// speed_benchmark.rst, 40.38 tokens/s). Beyond the weights' read (14.14 GB without the embedding
// table, at 2.04 TB/s x 0.85: 8.2 ms) that is 16.6 ms, 0.59 ms for each of its 28 layers.
constexpr double kEagerLayerStepSeconds = 0.59e-3;

// vLLM's default share of the GPU's memory an engine takes (gpu_memory_utilization 0.9 in EngineArgs
// through v0.11; 0.92 in vllm/config/cache.py since): a generator with GPUs of its own runs at it.
constexpr double kEngineMemoryShare = 0.9;

// The sequences one engine decodes at once: verl's rollout max_num_seqs, 256
// (verl/trainer/config/rollout/rollout.yaml @b178a3cd), which the RL recipes keep (vLLM's own
// default on an H100 for the LLM class is 1,024: vllm/engine/arg_utils.py _set_default_args).
constexpr int kEngineMaxSequences = 256;

// What an engine holds beside its weights and KV cache: the profiled activations of a
// max_num_batched_tokens forward and the CUDA graphs' pool. An estimate, not a measurement: the
// profile run's activations of 8,192 tokens of an 8B model are about 1 GiB by hand (the MLP's
// 8,192 x 14,336 x 2 x 2 bytes is 0.47 GB, the sampled rows' logits 256 x 128K x 4 bytes 0.13 GB) and
// the graphs' pool is taken as as much again.
constexpr double kEngineWorkspaceBytes = 2.0 * 1024.0 * 1024.0 * 1024.0;

// The latency of one tensor-parallel all-reduce of a decode step's activations (a few KiB to a few
// hundred KiB) inside an NVLink node: vLLM's custom one-shot all-reduce, 7 us at TP2 and 13 us at TP6
// for 0.5 MB of bf16 on H100 (vLLM PR #24111's benchmark); 10 us between them.
constexpr double kDecodeAllReduceSeconds = 10e-6;

// Weight sync: the fixed cost of each tensor passed from the trainer to the generator (gathering it,
// the NCCL call, loading it into the engine's layout). verl's per-tensor NCCL sync takes 0.12 s for
// Qwen2.5-Math-7B (~340 tensors) and 15.76 s for Qwen3-30B-A3B (~18,900 tensors) on H20
// (docs/advance/fully_async.md, checkpoint-engine ablation): 0.35 and 0.83 ms a tensor.
constexpr double kSyncSecondsPerTensor = 0.6e-3;

// The share of the simulated trainer's throughput an RL framework's trainer sustains in its log-prob
// and update passes (verl's and NeMo-RL's actors: Ray dispatch and gathers around every pass,
// micro-batches rebalanced by tokens each step, the policy's states offloaded and brought back around
// generation, the logits' log-softmax and entropy in fp32, reshards between the trainer's and the
// engine's layouts), where the step model was fitted to pre-training stacks. Fitted by
// scripts/fit_rl_trainer_share.py to published/rl_runs.csv (its report: published/rl_fit_report.md,
// with each source's rows predicted from a share fitted to the other sources').
constexpr double kTransformersTrainerShare = 0.32;  // verl's FSDP actor, TRL, OpenRLHF
constexpr double kMegatronTrainerShare = 0.52;      // NeMo-RL's and verl's Megatron actors
// The 80% interval of an RL step (the real step over the predicted one): the 10th and 90th
// percentiles of the same script's held-out step rows (15 rows of published/rl_runs.csv), wider than
// any pre-training stack's: RL's response lengths are the users' estimate and the frameworks move fast.
constexpr double kRlStepIntervalLow = 0.68;
constexpr double kRlStepIntervalHigh = 1.46;
constexpr int kRlStepIntervalRows = 15;

}  // namespace preflight::rollout_defaults

namespace preflight {

// The trainer share of an RL job on `stack` (the stacks without an RL framework of their own take
// the transformers stacks').
constexpr double rl_trainer_share(Framework stack) {
  return stack == Framework::megatron ? rollout_defaults::kMegatronTrainerShare : rollout_defaults::kTransformersTrainerShare;
}

}  // namespace preflight
