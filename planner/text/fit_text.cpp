#include "planner/text/fit_text.hpp"

#include "planner/text/number_text.hpp"

namespace preflight {

std::string longest_text(std::int64_t tokens, bool model_limit, std::int64_t granule, std::int64_t job_seq_len) {
  const std::string job = " (the job's " + grouped_digits(job_seq_len) + ")";
  if (tokens == 0) {
    return "no sequence length fits this config" + std::string(granule > 1 ? " (tried multiples of " + grouped_digits(granule) + ")" : "");
  }
  const std::string multiple = granule > 1 ? ", a multiple of " + grouped_digits(granule) : "";
  if (model_limit) {
    return "longest sequence this config fits: the model's whole context, " + grouped_digits(tokens) + " tokens" + multiple + job;
  }
  return "longest sequence this config fits: " + grouped_digits(tokens) + " tokens" + multiple + job;
}

std::string upcast_text(KbitUpcast upcast) {
  switch (upcast) {
    case KbitUpcast::all:
      return "k-bit preparation (PEFT): embeddings, head and norms in fp32, the residual stream fp32";
    case KbitUpcast::norms:
      return "k-bit preparation: norms in fp32 (TRL's cast back of the tables, LLaMA-Factory's upcast_layernorm), the residual stream fp32";
    case KbitUpcast::none: return "";
  }
  return "";
}

}  // namespace preflight
