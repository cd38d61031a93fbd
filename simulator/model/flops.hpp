#pragma once
// Floating-point operations of a training step, counted the way MFU is (Narayanan et al. 2021,
// appendix; PaLM appendix B): 2 FLOPs per multiply-accumulate, causal attention not halved.

#include "simulator/model/parameter_count.hpp"
#include "simulator/spec/model_spec.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

struct FlopsPerToken {
  double forward_matmul = 0.0;     // weight matmuls a token passes through (active experts only)
  double forward_attention = 0.0;  // score and value products
  double forward() const { return forward_matmul + forward_attention; }
};

FlopsPerToken flops_per_token(const ModelSpec& model, const ParameterCount& count, std::int64_t seq_len);

// Backward costs twice the forward when weights are trained; with frozen base weights (LoRA/QLoRA)
// only the input gradients are computed, one forward's worth.
double backward_to_forward_ratio(Method method);

}  // namespace preflight
