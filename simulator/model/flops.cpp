#include "simulator/model/flops.hpp"

#include "simulator/model/parameter_count.hpp"

namespace preflight {

FlopsPerToken flops_per_token(const ModelSpec& model, const ParameterCount& c, std::int64_t seq_len) {
  // The embedding lookup is not a matmul; the lm_head is (tied or not).
  const double matmul_params = static_cast<double>(c.active_per_token() - c.embedding - c.position_embedding +
                                                   (model.tied_embeddings ? c.embedding : 0));
  FlopsPerToken f;
  f.forward_matmul = 2.0 * matmul_params;
  // The score product over the query/key width, the value product over the value width (narrower under MLA).
  f.forward_attention = 2.0 * static_cast<double>(model.layers * seq_len * model.heads * (model.head_dim + model.v_head_dim()));
  return f;
}

double backward_to_forward_ratio(Method method) { return method == Method::full ? 2.0 : 1.0; }

}  // namespace preflight
