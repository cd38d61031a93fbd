#pragma once
// The generation phase of an RL step: the engines sample every response of the step, each engine a
// tensor-parallel group of GPUs holding the policy's 16-bit weights and a paged KV cache in the
// memory it is given. A prompt is prefilled once for all its rollouts (vLLM V1's prefix caching and
// SGLang's radix cache are on by default; Hugging Face generate repeats it per return sequence),
// then every decode step reads the weights (an expert model's: the experts the batch's tokens
// reach) and the running sequences' keys and values, or computes, whichever is longer, plus the
// engine's own step overhead and the tensor-parallel all-reduces. vLLM and SGLang batch
// continuously: a finished response's slot and cache go to the next waiting one, and the cache holds
// each running sequence to its end (an ideal scheduler; vLLM's preemption and recompute only when it
// overcommits). Hugging Face generate runs a fixed batch until its longest response ends. Either
// way the longest response holds its engine at the end with few sequences running: the tail.

#include <cstdint>
#include <string>

#include "simulator/hardware/machine.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/rl_spec.hpp"

namespace preflight {

struct GenerationInputs {
  const Workload* workload = nullptr;  // the policy and the job (job().rl set)
  const Machine* machine = nullptr;
  int tp = 1;    // GPUs per engine
  int gpus = 1;  // GPUs generating (engines = gpus / tp)
  // The memory one GPU gives the engine: its weights, workspace and KV cache.
  double engine_bytes_per_gpu = 0.0;
};

struct Generation {
  bool fits = false;
  std::string why_not;  // when it does not fit
  double seconds = 0.0;
  double prefill_seconds = 0.0;
  double decode_seconds = 0.0;
  // The decode time while fewer than half the engine's slots run: the longest responses' tail.
  double tail_seconds = 0.0;
  std::int64_t decode_steps = 0;
  std::int64_t sequences_per_engine = 0;
  std::int64_t most_running = 0;      // the most sequences decoded at once
  double weights_bytes_per_gpu = 0.0;
  double kv_pool_bytes_per_gpu = 0.0;  // what the engine's cache may take
  double kv_peak_bytes_per_gpu = 0.0;  // what it took at most
  double peak_bytes_per_gpu = 0.0;     // weights, workspace and the cache's peak
  double model_flops_per_gpu = 0.0;    // the slowest engine's GPUs: prefill and decode at 2 x active parameters a token, and attention
  double step_model_flops = 0.0;       // every engine's, over all of the step's responses
};

// KV-cache bytes one token takes on one GPU of a tp-way engine (16-bit keys and values; heads
// replicated where there are fewer than tp; MLA's compressed latent on every GPU).
double kv_bytes_per_token(const ModelSpec& model, int tp);

// Throws InvalidConfig when tp does not divide the attention heads or does not fit in a node, or
// Hugging Face generate is asked for tensor parallelism.
Generation simulate_generation(const GenerationInputs& in);

}  // namespace preflight
