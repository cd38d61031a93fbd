#include "simulator/model/parameter_footprint.hpp"

#include <algorithm>

#include "simulator/model/numeric_formats.hpp"
#include "simulator/model/parameter_count.hpp"

namespace preflight {

StateBytes state_bytes(Precision precision, OptimizerKind optimizer, bool fp32_adapters) {
  StateBytes b;
  const bool full_fp32 = precision == Precision::fp32 || fp32_adapters;
  b.weights = full_fp32 ? 4.0 : 2.0;
  b.grads = b.weights;
  b.master = full_fp32 ? 0.0 : 4.0;
  b.fp8_cache = (precision == Precision::fp8 && !fp32_adapters) ? 1.0 : 0.0;
  switch (optimizer) {
    case OptimizerKind::adamw: b.moments = 8.0; break;
    case OptimizerKind::adam8bit: b.moments = kAdam8bitBytesPerParam; break;
    case OptimizerKind::sgd_momentum: b.moments = 4.0; break;
  }
  return b;
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
  return f;
}

}  // namespace preflight
