#pragma once
// The remedy ladder practitioners climb when a job does not fit, in their order:
//   1. a smaller micro-batch with more gradient accumulation (same global batch);
//   2. activation checkpointing, selective then full;
//   3. the next sharding stage (ZeRO-1 -> 2 -> 3, FSDP SHARD_GRAD_OP -> FULL_SHARD);
//   4. CPU offload of the optimizer states, then of the parameters;
//   5. NVMe offload (ZeRO-Infinity) where the machine has local NVMe.
// Each rung keeps the previous rungs' changes and uses the largest micro-batch (up to the given one)
// that fits. The climb stops at the first rung that fits.

#include <optional>
#include <string>
#include <vector>

#include "planner/scenario/scenario.hpp"
#include "simulator/evaluate.hpp"

namespace preflight {

struct LadderRung {
  int rung = 0;        // 1..5 as above
  std::string action;  // what changed, in words
  Evaluation result;
  bool fits = false;
};

struct RemedyLadder {
  std::vector<LadderRung> rungs;
  std::optional<StrategyConfig> remedy;  // the first config that fits
  std::vector<std::string> skipped;      // rungs that could not change anything, and why
  std::string beyond;                    // when nothing fits: what would (more GPUs, a bigger GPU)
};

RemedyLadder climb_remedy_ladder(const Scenario& scenario, const Machine& machine, const Evaluation& given);

}  // namespace preflight
