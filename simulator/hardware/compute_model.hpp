#pragma once
// Time of the GPU work of one training step, built from the kernels a transformer layer launches:
// matmuls at peak x efficiency, memory-bound kernels (norms, element-wise, softmax, optimizer) at
// HBM bandwidth, and no kernel faster than the host can issue it.

#include <cstdint>
#include <optional>

#include "simulator/hardware/matmul_rates.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/gpu_spec.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

struct DeviceRates {
  double matmul_flops_per_second = 0.0;
  double memory_bytes_per_second = 0.0;
  double kernel_floor_seconds = 0.0;
  double sm_count = 0.0;  // 0: unknown, no wave quantization
  std::optional<MatmulRates> measured_matmul;  // from a calibration profile: replaces the rate above by shape
};

// Peak matmul FLOP/s of the GPU for the job's precision; throws InvalidConfig("instance", ...) when
// the catalog has no published figure.
double peak_flops(const GpuSpec& gpu, Precision precision);

// The named defaults: peak x kMatmulPeakFraction and datasheet bandwidth x kMemoryBandwidthFraction
// (a Machine puts a profile's measurements in their place). Throws InvalidConfig("instance", ...) when
// the catalog has no peak for the precision.
DeviceRates default_device_rates(const GpuSpec& gpu, Precision precision);

struct Kernel {
  double flops = 0.0;
  double bytes = 0.0;
  // A matmul's shape (per batch for batched GEMMs); zero for memory-bound kernels.
  double m = 0.0;
  double n = 0.0;
  double k = 0.0;
};

// The named-default share of the matmul rate a GEMM of this shape gets: wave quantization over the
// SMs times the k-loop's pipeline fill (see compute_defaults.hpp); 1 for memory-bound kernels.
double gemm_shape_efficiency(const Kernel& kernel, double sm_count);

double kernel_seconds(const Kernel& kernel, const DeviceRates& rates);

// One pass over one layer (or the head), for one micro-batch on one GPU.
struct PassCost {
  double seconds = 0.0;
  double flops = 0.0;
  int kernels = 0;

  void add(const Kernel& k, const DeviceRates& rates);
};

struct LayerCost {
  PassCost forward;
  PassCost backward;
  PassCost attention_core_forward;  // what selective recompute re-runs
};

struct LayerCostInputs {
  std::int64_t seq_len = 0;
  std::int64_t micro_batch = 1;
  Precision precision = Precision::bf16;
  bool flash_attention = true;
  bool frozen_weights = false;      // LoRA/QLoRA: no weight gradients for the base
  bool quantized_weights = false;   // QLoRA: every matmul first dequantizes its 4-bit weight to 16 bits
  const LoraSpec* lora = nullptr;
  // Megatron tensor parallelism: QKV and the MLP's first linear split their outputs, the attention
  // heads split, o_proj and the MLP's second linear split their inputs; norms, residuals and dropout
  // run on the whole activation on every rank unless sequence parallelism splits them.
  int tp = 1;
  bool sequence_parallel = false;
};

LayerCost layer_cost(const Workload& workload, const LayerCostInputs& in, const DeviceRates& rates);
// Embedding lookup, final norm, lm_head and the cross-entropy loss.
LayerCost head_cost(const ModelSpec& model, const LayerCostInputs& in, const DeviceRates& rates);
// A fused Adam/SGD step over `params` parameters held on this GPU.
double optimizer_step_seconds(double params, const StateBytes& bytes, const DeviceRates& rates);

}  // namespace preflight
