#pragma once
// `sweep --shard auto`: the slice a task plans, from what its job array or CI matrix tells each task
// in the environment, so every task of an array or matrix runs one and the same command line.

#include <functional>
#include <optional>
#include <string>

#include "planner/sweep/sweep.hpp"

namespace preflight {

// An environment variable's value, or nullopt where it is not set. Taken as a function so tests give
// a map instead of changing the process's environment.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;

struct EnvironmentShard {
  Shard shard;
  // Where it came from, with the variables read: "Slurm array task 3 of 4 (SLURM_ARRAY_TASK_ID=2, ...)".
  std::string source;
};

// The first of these that is set (an empty value counts as unset), each with its own numbering:
//   PREFLIGHT_SHARD=K/N                                       an explicit override, 1-based
//   SLURM_ARRAY_TASK_ID, _MIN, _COUNT (_MAX, _STEP if set)    a Slurm job array from any offset, step 1
//   JOB_COMPLETION_INDEX with PREFLIGHT_SHARD_COUNT           a Kubernetes Indexed Job, 0-based
//   CI_NODE_INDEX, CI_NODE_TOTAL                              GitLab CI `parallel: N`, 1-based
//   CIRCLE_NODE_INDEX, CIRCLE_NODE_TOTAL                      CircleCI parallelism, 0-based
//   BUILDKITE_PARALLEL_JOB, BUILDKITE_PARALLEL_JOB_COUNT      Buildkite parallelism, 0-based
// Throws InputError naming --shard "auto" and the variables it read when none is set or the one set
// is not one whole split (a missing count, a non-integer, an index outside 1..N, a gapped array).
EnvironmentShard shard_from_environment(const EnvironmentLookup& lookup);

// The process's own environment (std::getenv) as an EnvironmentLookup.
std::optional<std::string> process_environment(const std::string& name);

}  // namespace preflight
