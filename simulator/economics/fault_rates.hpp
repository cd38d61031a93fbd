#pragma once
// Hardware and software faults of a training job, on any pricing (on demand, reserved, owned, spot):
// a synchronous job stops when any of its GPUs, hosts, links or processes does, so its rate is the
// per-GPU-hour rate times its GPUs. Published whole-run figures, per GPU-hour:
//   - Llama 3 405B pre-training: 419 unexpected interruptions in a 54-day snapshot on 16,384 H100s with
//     "higher than 90% effective training time" (Dubey et al. 2024, "The Llama 3 Herd of Models",
//     section 3.3.4 and table 5; 47 planned ones beside them). Faults strike while the job runs (a
//     restart's minutes are not exposed here), so per GPU-hour of training: 419 / (54 x 24 x 0.9 x
//     16,384) = 2.19e-5, the rate taken (the largest fleet, on the GPUs rented now).
//   - OPT-175B: hardware failures "contributed to at least 35 manual restarts and the cycling of over
//     100 hosts over the course of 2 months" on 992 A100s (Zhang et al. 2022, "OPT: Open Pre-trained
//     Transformer Language Models", section 2.5): 100 / (992 x 60 x 24) = 7.0e-5, the pessimistic end.
//   - BLOOM-176B: "1-2 GPU failures" a week on 384 A100s (BigScience, "BLOOM: A 176B-Parameter
//     Open-Access Multilingual Language Model", 2022, section 3.5.3): 1.5e-5 to 3.1e-5, held out
//     (tests/unit/economics/fault_rate_test.cpp predicts it).

namespace preflight::fault_rates {

inline constexpr double kLlama3PerGpuHour = 419.0 / (54.0 * 24.0 * 0.9 * 16384.0);
inline constexpr double kOpt175bPerGpuHour = 100.0 / (992.0 * 60.0 * 24.0);

inline constexpr double kPerGpuHour = kLlama3PerGpuHour;
inline constexpr double kLowPerGpuHour = kLlama3PerGpuHour;
inline constexpr double kHighPerGpuHour = kOpt175bPerGpuHour;
inline constexpr const char* kBasis = "Llama 3 405B's 419 in 54 days on 16,384 H100s; OPT-175B's 7.0e-5 at the pessimistic end";

// What a fault costs besides the work since the last checkpoint and its reload:
// detection: a crashed rank is seen at once, a hung collective only when PyTorch's NCCL watchdog
// times out (torch.distributed's default process-group timeout, 10 minutes): the hang taken;
inline constexpr double kDetectionSeconds = 600.0;
// replacing the failed node (a spare or a reprovisioned one: run_defaults::kReprovisionSeconds) and
// the warm-up (run_defaults::kWarmupSeconds) follow, as after a reclaim.

}  // namespace preflight::fault_rates
