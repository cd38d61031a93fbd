#pragma once
// How many bytes a number takes in each format training uses: activations, GEMM inputs, quantized
// weights and quantized optimizer states.

#include "simulator/spec/training_job.hpp"

namespace preflight {

// Activations and 16-bit weights: 2 bytes under mixed precision (bf16, fp16 and fp8 recipes keep
// activations in 16 bits), 4 in fp32.
constexpr double activation_bytes(Precision p) { return p == Precision::fp32 ? 4.0 : 2.0; }

// Transformer Engine keeps the fp8 cast of each GEMM input for backward instead of the 16-bit one.
constexpr double gemm_input_bytes(Precision p) { return p == Precision::fp8 ? 1.0 : activation_bytes(p); }

// bitsandbytes NF4 with double quantization (QLoRA paper, section 3): 4 bits per weight, an 8-bit
// absmax per block of 64, and an fp32 second-level constant per 256 blocks.
constexpr double kNf4BytesPerWeight = 0.5 + 1.0 / 64.0 + 4.0 / (64.0 * 256.0);

// bitsandbytes 8-bit optimizers: one byte per state, block-wise quantization with an fp32 absmax
// per block of 256 (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization").
constexpr double kAdam8bitBytesPerParam = 2.0 * (1.0 + 4.0 / 256.0);

}  // namespace preflight
