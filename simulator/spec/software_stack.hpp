#pragma once
// The software that runs a training job: its framework decides the kernels (which attention, fused or
// eager norms and activations, which loss), the memory habits (what the loss keeps per logit) and the
// layouts it offers; torch.compile fuses what eager PyTorch runs op by op. Names as the contract
// fixes them (training.framework, training.torch_compile, search.frameworks).

#include <string>

#include "simulator/spec/enum_names.hpp"

namespace preflight {

enum class Framework {
  transformers,  // Hugging Face modeling code under Trainer / Accelerate / TRL / axolotl, DeepSpeed or PyTorch FSDP
  megatron,      // Megatron-LM / Megatron-Core / NeMo with Transformer Engine
  torchtitan,    // PyTorch FSDP2 (and TP/PP), torch.compile
  llm_foundry,   // MosaicML Composer + FSDP
  unsloth        // Unsloth: Hugging Face models patched with its Triton kernels, on one GPU or DDP
};
inline constexpr EnumNames<Framework, 5> kFrameworkNames{{{Framework::transformers, "transformers"},
                                                          {Framework::megatron, "megatron"},
                                                          {Framework::torchtitan, "torchtitan"},
                                                          {Framework::llm_foundry, "llm-foundry"},
                                                          {Framework::unsloth, "unsloth"}}};
inline std::string to_string(Framework f) { return std::string(name_of(kFrameworkNames, f)); }

// The attention kernel a step runs. `automatic`: the stack's own choice for the GPU (stack_habits).
enum class AttentionKernel {
  automatic,
  flash2,  // FlashAttention-2 (Dao 2023; also PyTorch SDPA's flash backend)
  flash3,  // FlashAttention-3 (Shah et al. 2024; Hopper only)
  cudnn,   // cuDNN fused attention (Transformer Engine's backend)
  triton,  // a Triton fused-attention kernel (llm-foundry's published MPT benchmarks)
  eager    // unfused: score and value GEMMs with the softmax between (Hugging Face "eager", SDPA math)
};
inline constexpr EnumNames<AttentionKernel, 6> kAttentionKernelNames{{{AttentionKernel::automatic, "auto"},
                                                                      {AttentionKernel::flash2, "flash2"},
                                                                      {AttentionKernel::flash3, "flash3"},
                                                                      {AttentionKernel::cudnn, "cudnn"},
                                                                      {AttentionKernel::triton, "triton"},
                                                                      {AttentionKernel::eager, "eager"}}};
inline std::string to_string(AttentionKernel k) { return std::string(name_of(kAttentionKernelNames, k)); }

}  // namespace preflight
