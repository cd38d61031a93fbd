#include "simulator/longest_sequence.hpp"

#include <algorithm>

#include "simulator/evaluate.hpp"
#include "simulator/memory/memory_estimate.hpp"
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
  const auto job_of = [&](std::int64_t granules) {
    TrainingJob job = workload.job();
    job.seq_len = granules * out.granule;
    return Workload(workload.model(), job);
  };
  // The sum of the components bounds the simulated peak from above and the peak floor from below
  // (timeline_peak_exceeds_capacity): both cheap, they bracket the boundary, and the simulated step
  // only settles it between them.
  const auto estimate = [&](std::int64_t granules) -> std::optional<MemoryEstimate> {
    try {
      return estimate_memory(job_of(granules), config, machine.node(), vram_headroom);
    } catch (const InvalidConfig&) {
      return std::nullopt;
    }
  };
  const auto fits = [&](std::int64_t granules) {
    try {
      return evaluate(job_of(granules), machine, config, vram_headroom).memory.fits();
    } catch (const InvalidConfig&) {
      return false;
    }
  };
  // The largest count of granules in [low, high] for which `ok` holds, given it holds at low (memory
  // grows with the sequence: activations, logits, the attention's work; nothing shrinks as it grows).
  const auto last_true = [](std::int64_t low, std::int64_t high, const auto& ok) {
    while (high - low > 1) {
      const std::int64_t mid = low + (high - low) / 2;
      (ok(mid) ? low : high) = mid;
    }
    return ok(high) ? high : low;
  };
  if (fits(longest)) {
    out.tokens = longest * out.granule;
    out.model_limit = true;
    return out;
  }
  if (!fits(1)) return out;
  const auto sum_fits = [&](std::int64_t g) {
    const std::optional<MemoryEstimate> e = estimate(g);
    return e && e->fits();
  };
  const auto floor_fits = [&](std::int64_t g) {
    const std::optional<MemoryEstimate> e = estimate(g);
    return e && !timeline_peak_exceeds_capacity(*e) && e->fits_host() && e->fits_nvme();
  };
  // Below `low` the sum fits, so the step does; from `high` on the floor is over, so the step is.
  std::int64_t low = sum_fits(1) ? last_true(1, longest, sum_fits) : 1;
  std::int64_t high = floor_fits(low) ? last_true(low, longest, floor_fits) + 1 : low + 1;
  if (!fits(low)) {
    low = 1;  // the bounds did not hold: settle it on the simulated step alone
    high = longest;
  }
  high = std::min(high, longest);
  // The simulated step settles it to a thousandth of the length (a step simulation each halving):
  // the answer is a length that fits, at most 0.1% short of the longest.
  while (high - low > std::max<std::int64_t>(1, low / 1000)) {
    const std::int64_t mid = low + (high - low) / 2;
    (fits(mid) ? low : high) = mid;
  }
  out.tokens = low * out.granule;
  return out;
}

}  // namespace preflight
