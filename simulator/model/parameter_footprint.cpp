#include "simulator/model/parameter_footprint.hpp"

#include <algorithm>

#include "simulator/model/numeric_formats.hpp"
#include "simulator/model/parameter_count.hpp"

namespace preflight {

StateBytes state_bytes(Precision precision, OptimizerKind optimizer, bool fp32_adapters, bool master_weights,
                       double factored_moment_bytes) {
  StateBytes b;
  const bool full_fp32 = precision == Precision::fp32 || fp32_adapters;
  b.weights = full_fp32 ? 4.0 : 2.0;
  b.grads = b.weights;
  b.master = full_fp32 || !master_weights ? 0.0 : 4.0;
  b.fp8_cache = (precision == Precision::fp8 && !fp32_adapters) ? 1.0 : 0.0;
  // torch's optimizers create their states like the parameter they step: the fp32 master under mixed
  // precision, the 16-bit weight itself in pure 16-bit training.
  const double state_width = b.master > 0.0 ? 4.0 : b.weights;
  switch (optimizer) {
    case OptimizerKind::adamw: b.moments = 2.0 * state_width; break;
    case OptimizerKind::adamw8bit:
    case OptimizerKind::paged_adamw8bit: b.moments = kAdam8bitBytesPerParam; break;
    // bitsandbytes' 32-bit optimizers keep fp32 states whatever the parameter's dtype (Optimizer2State).
    case OptimizerKind::paged_adamw32bit: b.moments = 8.0; break;
    case OptimizerKind::adafactor: b.moments = factored_moment_bytes; break;
    case OptimizerKind::sgd_momentum: b.moments = state_width; break;
  }
  return b;
}

double factored_moment_bytes(const ModelSpec& model, const ParameterCount& count, const TrainingJob& job) {
  double matrices = 0.0;  // weight elements in matrices
  double factored = 0.0;  // their row and column vectors
  const auto add = [&](double rows, double cols, double copies) {
    matrices += rows * cols * copies;
    factored += (rows + cols) * copies;
  };
  if (job.method == Method::full) {
    for (const LayerKind& kind : layer_kinds(model)) {
      for (const LinearShape& l : kind.linears) {
        add(static_cast<double>(l.out), static_cast<double>(l.in), static_cast<double>(l.copies * kind.layers));
      }
    }
    const double vocab = static_cast<double>(model.vocab);
    const double hidden = static_cast<double>(model.hidden);
    if (count.embedding > 0) add(vocab, hidden, 1.0);
    if (count.lm_head > 0) add(static_cast<double>(model.head_outputs()), hidden, 1.0);
    const double trainable = static_cast<double>(count.total());
    // Norms, biases, routers and position tables are kept whole (routers and positions are matrices,
    // counted whole here: a few thousandths of the model).
    return 4.0 * (factored + std::max(0.0, trainable - matrices)) / trainable;
  }
  // LoRA: each adapter pair is an r x in and an out x r matrix.
  const double r = static_cast<double>(job.lora.rank);
  for (const LayerKind& kind : layer_kinds(model)) {
    for (const LinearShape& l : kind.linears) {
      if (std::find(job.lora.targets.begin(), job.lora.targets.end(), l.name) == job.lora.targets.end()) continue;
      const double copies = static_cast<double>(l.copies * kind.layers);
      add(r, static_cast<double>(l.in), copies);
      add(static_cast<double>(l.out), r, copies);
    }
  }
  return matrices > 0.0 ? 4.0 * factored / matrices : 0.0;
}

double lora_parameters(const ModelSpec& model, const LoraSpec& lora) {
  double total = 0.0;
  for (const LayerKind& kind : layer_kinds(model)) {
    for (const LinearShape& l : kind.linears) {
      if (std::find(lora.targets.begin(), lora.targets.end(), l.name) == lora.targets.end()) continue;
      total += static_cast<double>(lora.rank * (l.in + l.out) * l.copies * kind.layers);
    }
  }
  return total;
}

double saved_module_parameters(const ModelSpec& model, const LoraSpec& lora) {
  // Each copy is the whole table (vocab x hidden), also where the base ties the head to the
  // embedding: PEFT's ModulesToSaveWrapper deep-copies the module it wraps.
  return static_cast<double>(lora.modules_to_save.size()) * static_cast<double>(model.vocab) * static_cast<double>(model.hidden);
}

namespace {

// What a modules_to_save copy's states weigh against an adapter's, per parameter: the copy is in the
// base's dtype with its optimizer states like it (torch's AdamW creates them like the parameter), an
// adapter in fp32 under mixed precision (PEFT's autocast_adapter_dtype) or in the base's dtype in pure
// 16-bit training. The footprint counts the copies in adapter-parameter equivalents, so that every
// state (weights, gradients, moments) comes out at the copy's own width.
double copy_share(const TrainingJob& job) {
  const auto per_parameter = [](const StateBytes& b) { return b.weights + b.grads + b.optimizer(); };
  const StateBytes adapter = state_bytes(job.precision, job.optimizer, job.master_weights, job.master_weights);
  const StateBytes copy = state_bytes(job.precision, job.optimizer, false, false);
  return per_parameter(copy) / per_parameter(adapter);
}

}  // namespace

double kbit_upcast_bytes(const ParameterCount& count, KbitUpcast upcast, double weight_bytes) {
  const double unquantized = static_cast<double>(count.total() - count.block_linear_weights);
  const double tables = static_cast<double>(count.embedding + count.position_embedding + count.lm_head);
  switch (upcast) {
    case KbitUpcast::all: return (4.0 - weight_bytes) * unquantized;
    case KbitUpcast::norms: return (4.0 - weight_bytes) * (unquantized - tables);
    case KbitUpcast::none: return 0.0;
  }
  return 0.0;
}

ParameterFootprint parameter_footprint(const ModelSpec& model, const ParameterCount& count, const TrainingJob& job) {
  const double total = static_cast<double>(count.total());
  const double weight_bytes = job.precision == Precision::fp32 ? 4.0 : 2.0;

  ParameterFootprint f;
  f.compute_weight_bytes = weight_bytes;
  f.frozen_base = job.method != Method::full;
  f.largest_module = static_cast<double>(count.largest_module);
  f.layer_params = static_cast<double>(count.per_layer());
  f.root_params = static_cast<double>(count.embedding + count.position_embedding + count.final_norm + count.lm_head);
  switch (job.method) {
    case Method::full:
      f.trainable = total;
      // Hugging Face from_pretrained materializes fp32 weights unless a dtype is forced; this is
      // also what DeepSpeed's estimator assumes for every rank without zero.Init.
      f.load_bytes_per_rank = 4.0 * total;
      break;
    case Method::lora:
      f.trainable = lora_parameters(model, job.lora);
      f.frozen_bytes = weight_bytes * total;
      f.load_bytes_per_rank = f.frozen_bytes;
      break;
    case Method::qlora: {
      f.trainable = lora_parameters(model, job.lora);
      const double quantized = static_cast<double>(count.block_linear_weights);
      f.frozen_bytes = kNf4BytesPerWeight * quantized + weight_bytes * (total - quantized);
      // Checkpoint shards are quantized as they load: one 16-bit module at a time beside the 4-bit model.
      f.load_bytes_per_rank = f.frozen_bytes + weight_bytes * f.largest_module;
      break;
    }
  }
  if (job.method != Method::full) f.trainable += saved_module_parameters(model, job.lora) * copy_share(job);
  return f;
}

}  // namespace preflight
