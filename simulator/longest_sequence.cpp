#include "simulator/longest_sequence.hpp"

#include "simulator/evaluate.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

std::optional<LongestSequence> longest_fitting_sequence(const Workload& workload, const Machine& machine,
                                                        const StrategyConfig& config, double vram_headroom) {
  if (workload.job().rl) return std::nullopt;
  LongestSequence out;
  // Context parallelism splits a sequence into 2 x cp chunks; sequence parallelism splits it by tp.
  out.granule = static_cast<std::int64_t>(config.parallelism.tp) * (config.parallelism.cp > 1 ? 2 * config.parallelism.cp : 1);
  const std::int64_t longest = workload.model().max_seq_len / out.granule;  // in granules
  if (longest < 1) return std::nullopt;
  // A length the memory model cannot represent (a layout's rule that one length breaks) counts as one
  // that does not fit: the answer stays a length that was simulated and fits.
  const auto fits = [&](std::int64_t granules) {
    TrainingJob job = workload.job();
    job.seq_len = granules * out.granule;
    try {
      return evaluate(Workload(workload.model(), job), machine, config, vram_headroom).memory.fits();
    } catch (const InvalidConfig&) {
      return false;
    }
  };
  if (fits(longest)) {
    out.tokens = longest * out.granule;
    out.model_limit = true;
    return out;
  }
  if (!fits(1)) return out;
  // Memory grows with the sequence (activations, logits, the attention's work: nothing shrinks as it
  // grows): bisect between a length that fits and one that does not.
  std::int64_t low = 1;
  std::int64_t high = longest;
  while (high - low > 1) {
    const std::int64_t mid = low + (high - low) / 2;
    (fits(mid) ? low : high) = mid;
  }
  out.tokens = low * out.granule;
  return out;
}

}  // namespace preflight
