#pragma once
// Time of the GPU work of one training step, built from the kernels a transformer layer launches as
// its software stack writes them: matmuls at peak x plateau x shape efficiency, fused attention at its
// kernel's published rate, memory-bound kernels (norms, element-wise, casts, the loss, the optimizer)
// at HBM bandwidth, and no kernel shorter than the GPU's launch latency.

#include <cstdint>
#include <optional>

#include "simulator/hardware/matmul_rates.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/gpu_spec.hpp"
#include "simulator/spec/step_time.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

// The large-GEMM rate of one dtype: peak x plateau, or a profile's measurements by shape.
struct MatmulRate {
  double flops_per_second = 0.0;
  std::optional<MatmulRates> measured;  // from a calibration profile: replaces the rate above by shape
};

struct DeviceRates {
  MatmulRate matmul;       // the job's precision (fp8: the blocks' linears)
  MatmulRate half_matmul;  // 16-bit GEMMs: the same as matmul unless the job is fp8 (lm_head, adapters, unfused attention)
  double attention_peak_flops = 0.0;  // the 16-bit dense peak the attention kernels' published fractions apply to
  // A training step's FlashAttention or cuDNN attention against the kernel's published benchmark (the
  // step model's fit); the Triton kernel's rate is derived from FlashAttention-2's and keeps it.
  double flash_attention_fit = 1.0;
  GpuArchitecture architecture = GpuArchitecture::ampere;
  double memory_bytes_per_second = 0.0;
  double kernel_floor_seconds = 0.0;
  double sm_count = 0.0;  // 0: unknown, no wave quantization
};

// Peak matmul FLOP/s of the GPU for the job's precision; throws InvalidConfig("instance", ...) when
// the catalog has no published figure.
double peak_flops(const GpuSpec& gpu, Precision precision);

// The named defaults: peak x the architecture's GEMM plateau (kernel_efficiency.hpp) and datasheet
// bandwidth x kMemoryBandwidthFraction (a Machine puts a profile's measurements in their place).
// Throws InvalidConfig("instance", ...) when the catalog has no peak for the precision.
DeviceRates default_device_rates(const GpuSpec& gpu, Precision precision);

enum class KernelClass { gemm, attention, memory_bound };

struct Kernel {
  double flops = 0.0;
  double bytes = 0.0;
  // A matmul's shape (per batch for batched GEMMs); zero for memory-bound kernels.
  double m = 0.0;
  double n = 0.0;
  double k = 0.0;
  // A fused kernel with a published rate of its own (attention): FLOP/s, replacing the GEMM model.
  double published_flops_per_second = 0.0;
  bool half_precision = false;  // a 16-bit GEMM of an fp8 job
  // A memory-bound kernel's bandwidth against a plain copy's (eager norms and element-wise ops reach
  // less of it; kernel_defaults.hpp).
  double bandwidth_share = 1.0;
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
  KernelClassSeconds classes;  // the seconds above by kernel class
  // Of classes.gemm, the routed experts' grouped GEMMs: whole experts (etp = 1 beside tp > 1) take no
  // part in the tensor-parallel collectives, so --tp-comm-overlap cannot hide those behind them.
  double routed_gemm = 0.0;

  void add(const Kernel& k, const DeviceRates& rates, KernelClass kind);
  // `other` in the share `weight` of the layers (a mean over an expert model's kinds of layer).
  void add_share(const PassCost& other, double weight);
};

struct LayerCost {
  PassCost forward;
  PassCost backward;
  PassCost attention_core_forward;  // what selective recompute re-runs

  void add_share(const LayerCost& other, double weight);
};

struct LayerCostInputs {
  std::int64_t seq_len = 0;
  std::int64_t micro_batch = 1;
  Precision precision = Precision::bf16;
  StackHabits stack;                // the attention kernel, fused or eager element-wise work, the loss, fp8 linears
  bool frozen_weights = false;      // LoRA/QLoRA: no weight gradients for the base
  bool quantized_weights = false;   // QLoRA: every matmul first dequantizes its 4-bit weight to 16 bits
  const LoraSpec* lora = nullptr;
  // Megatron tensor parallelism: QKV and the MLP's first linear split their outputs, the attention
  // heads split, o_proj and the MLP's second linear split their inputs; norms, residuals and dropout
  // run on the whole activation on every rank unless sequence parallelism splits them.
  int tp = 1;
  bool sequence_parallel = false;
  // Expert parallelism: the routed experts' work waits for the busiest EP rank.
  int ep = 1;
  // The ranks each routed expert is split over (0: tp). With etp = 1 beside tp > 1 (sequence parallel)
  // a rank runs its own tp-th of the tokens through whole experts instead of all tokens through a
  // tp-th of each expert: the same FLOPs in wider GEMMs, and a tp-th of the permutation traffic.
  int etp = 0;
  // Context parallelism: seq_len is this rank's share of each sequence; attention runs in cp ring
  // steps against the other ranks' keys and values.
  int cp = 1;
};

// One layer; for an expert model with dense layers, the mean over its layers (what a stage of the
// model's layers costs, layer for layer, in the sum).
LayerCost layer_cost(const Workload& workload, const LayerCostInputs& in, const DeviceRates& rates);
// Embedding lookup, final norm, lm_head and the cross-entropy loss.
LayerCost head_cost(const ModelSpec& model, const LayerCostInputs& in, const DeviceRates& rates);
// A fused Adam/SGD step over `params` parameters held on this GPU.
double optimizer_step_seconds(double params, const StateBytes& bytes, const DeviceRates& rates);

}  // namespace preflight
