#pragma once
// What the memory model needs to know about a job's parameters, and how many bytes each kind of
// model state takes per parameter. Separate from ModelSpec so that published tables that give only a
// parameter count (the ZeRO paper, DeepSpeed's estimator) go through the same model.

#include "simulator/model/parameter_count.hpp"
#include "simulator/spec/model_spec.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

struct ParameterFootprint {
  double trainable = 0.0;       // parameters with gradients and optimizer state
  double expert_trainable = 0.0;  // the routed experts' share of them (split by expert parallelism)
  double frozen_bytes = 0.0;    // frozen weights (LoRA base; 4-bit for QLoRA), already in bytes
  double largest_module = 0.0;  // the largest module ZeRO-3 gathers at once
  double layer_params = 0.0;    // one transformer block: FSDP's auto-wrap unit
  double root_params = 0.0;     // FSDP root unit: embeddings, final norm, lm_head
  double load_bytes_per_rank = 0.0;  // host bytes one rank materializes when it loads the weights
  double compute_weight_bytes = 2.0;  // bytes per parameter of a weight gathered for compute (16-bit, or fp32)
  bool frozen_base = false;           // LoRA/QLoRA: gathered base modules have no gradients
};

// Bytes per trainable parameter of each model state.
struct StateBytes {
  double weights = 0.0;  // working copy used by forward/backward
  double grads = 0.0;    // gradients in the working precision
  double master = 0.0;   // fp32 master copy kept by the optimizer under mixed precision
  double moments = 0.0;  // optimizer moments (Adam: m and v)
  double fp8_cache = 0.0;  // fp8 copies of the weights kept for the GEMMs (Transformer Engine)

  double optimizer() const { return master + moments; }
};

// `fp32_adapters`: LoRA adapters are created in fp32 (PEFT's autocast_adapter_dtype), so they need
// no master copy and their gradients are fp32 (not in pure 16-bit training, where torchtune keeps them
// in the model's dtype: the caller passes false). `master_weights` false: pure 16-bit training, no fp32
// copy and the optimizer's states in the weights' dtype (bitsandbytes' states keep their own width).
// `factored_moment_bytes`: Adafactor's factored second moment per trainable parameter (see below).
StateBytes state_bytes(Precision precision, OptimizerKind optimizer, bool fp32_adapters, bool master_weights = true,
                       double factored_moment_bytes = 0.0);

// Adafactor's second moment per trainable parameter: a row and a column vector per weight matrix (a
// full one per vector parameter), in fp32 (transformers' Adafactor keeps them in the gradients'
// dtype: fp32 under mixed precision, the conservative width otherwise). For Llama 2 7B about 0.0017
// bytes a parameter, against Adam's 8.
double factored_moment_bytes(const ModelSpec& model, const ParameterCount& count, const TrainingJob& job);

// The footprint of a full model under a training job (full training, LoRA or QLoRA).
ParameterFootprint parameter_footprint(const ModelSpec& model, const ParameterCount& count, const TrainingJob& job);

// What a k-bit upcast (KbitUpcast) adds to a QLoRA's frozen weights: the 16-bit parameters it casts to
// fp32 (all: every one outside the blocks' 4-bit linears; norms: the norms alone), 2 more bytes each.
double kbit_upcast_bytes(const ParameterCount& count, KbitUpcast upcast, double weight_bytes);

// Parameters LoRA adds for the job's rank and target modules.
double lora_parameters(const ModelSpec& model, const LoraSpec& lora);

// Parameters of the trainable copies of the modules LoRA also trains in full (modules_to_save).
double saved_module_parameters(const ModelSpec& model, const LoraSpec& lora);

}  // namespace preflight
