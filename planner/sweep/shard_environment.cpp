#include "planner/sweep/shard_environment.hpp"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

// An index and a count, the way an Indexed Job and the CI systems' parallelism give them.
struct ParallelJobs {
  const char* system;  // in words, for the note on stderr
  const char* index;
  int first_index;  // the first task's index: 0 or 1
  const char* count;
  const char* count_source;  // who sets the count: said when it is missing
};

// Names and numbering from each system's documentation: Kubernetes' "Indexed Job for Parallel
// Processing with Static Work Assignment", GitLab's `parallel` keyword, CircleCI's built-in
// environment variables, Buildkite's parallel builds.
constexpr ParallelJobs kParallelJobs[] = {
    {"Kubernetes Indexed Job pod", "JOB_COMPLETION_INDEX", 0, "PREFLIGHT_SHARD_COUNT",
     "the Job's pod template, equal to spec.completions (Kubernetes does not export the count)"},
    {"GitLab CI parallel job", "CI_NODE_INDEX", 1, "CI_NODE_TOTAL", "GitLab for a job with parallel: N"},
    {"CircleCI parallel run", "CIRCLE_NODE_INDEX", 0, "CIRCLE_NODE_TOTAL", "CircleCI for a job with parallelism: N"},
    {"Buildkite parallel job", "BUILDKITE_PARALLEL_JOB", 0, "BUILDKITE_PARALLEL_JOB_COUNT",
     "Buildkite for a step with parallelism: N"},
};

constexpr const char* kOverride = "PREFLIGHT_SHARD";
constexpr const char* kSlurmTask = "SLURM_ARRAY_TASK_ID";

// Reads variables and keeps what it read, so that an error and the note on stderr both show the
// values the shard was taken from.
class EnvironmentReader {
 public:
  explicit EnvironmentReader(const EnvironmentLookup& lookup) : lookup_(lookup) {}

  // An empty value counts as unset: `export VAR=` and a template that left a field blank mean "none".
  std::optional<std::string> text(const std::string& name) {
    std::optional<std::string> value = lookup_(name);
    if (value && value->empty()) value.reset();
    if (value) read_.push_back(name + "=" + *value);
    return value;
  }

  // Whole numbers only: "3 " or "+3" is a template gone wrong, not shard 3.
  std::optional<std::int64_t> number(const std::string& name) {
    const std::optional<std::string> value = text(name);
    if (!value) return std::nullopt;
    std::int64_t n = 0;
    const char* end = value->data() + value->size();
    const auto [stop, error] = std::from_chars(value->data(), end, n);
    if (error != std::errc() || stop != end || n < 0 || n > kLargest) {
      fail(name + " a whole number from 0 to " + std::to_string(kLargest));
    }
    return n;
  }

  // `missing`: a variable the source needs that is not set.
  [[noreturn]] void fail(const std::string& allowed, const std::string& missing = "") const {
    throw InputError("--shard", "", "\"auto\" with " + read() + (missing.empty() ? "" : " and " + missing + " unset"),
                     allowed);
  }

  EnvironmentShard found(const std::string& system, std::int64_t index, std::int64_t count) const {
    const Shard shard{static_cast<int>(index), static_cast<int>(count)};
    return {shard, printable(system + " " + std::to_string(shard.index) + " of " + std::to_string(shard.count) + " (" +
                             read() + ")")};
  }

 private:
  // Beyond any array or matrix a scheduler allows, and far from overflowing the arithmetic below.
  static constexpr std::int64_t kLargest = 1'000'000'000;

  std::string read() const {
    std::string text;
    for (const std::string& r : read_) text += (text.empty() ? "" : ", ") + r;
    return text;
  }

  const EnvironmentLookup& lookup_;
  std::vector<std::string> read_;
};

std::optional<EnvironmentShard> override_shard(EnvironmentReader& env) {
  const std::optional<std::string> text = env.text(kOverride);
  if (!text) return std::nullopt;
  try {
    const Shard s = parse_shard(*text);
    return env.found("explicit shard", s.index, s.count);
  } catch (const InputError&) {
    env.fail(std::string(kOverride) + "=K/N with integers 1 <= K <= N, for example 2/4");
  }
}

// A job array numbers its tasks from --array's first index (0, 1 or any offset); only a contiguous
// range with step 1 maps them onto shards 1..N: a step or a list leaves shards no task plans.
std::optional<EnvironmentShard> slurm_array(EnvironmentReader& env) {
  const std::optional<std::int64_t> id = env.number(kSlurmTask);
  if (!id) return std::nullopt;
  const std::optional<std::int64_t> min = env.number("SLURM_ARRAY_TASK_MIN");
  const std::optional<std::int64_t> count = env.number("SLURM_ARRAY_TASK_COUNT");
  const std::optional<std::int64_t> max = env.number("SLURM_ARRAY_TASK_MAX");
  const std::optional<std::int64_t> step = env.number("SLURM_ARRAY_TASK_STEP");
  const std::string sbatch =
      "SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT >= 1 beside SLURM_ARRAY_TASK_ID, as sbatch --array sets them";
  if (!min) env.fail(sbatch, "SLURM_ARRAY_TASK_MIN");
  if (!count) env.fail(sbatch, "SLURM_ARRAY_TASK_COUNT");
  if (*count < 1) env.fail(sbatch);
  const std::string contiguous = "a contiguous job array with step 1 (sbatch --array=0-" + std::to_string(*count - 1) +
                                 " or 1-" + std::to_string(*count) + "), whose tasks are the shards 1.." +
                                 std::to_string(*count);
  if (step && *step != 1) env.fail(contiguous + "; a step leaves shards that no task plans");
  if (max && *max - *min + 1 != *count) {
    env.fail(contiguous + ": SLURM_ARRAY_TASK_MAX - SLURM_ARRAY_TASK_MIN + 1 = SLURM_ARRAY_TASK_COUNT");
  }
  const std::int64_t index = *id - *min + 1;
  if (index < 1 || index > *count) {
    env.fail("SLURM_ARRAY_TASK_ID from SLURM_ARRAY_TASK_MIN to SLURM_ARRAY_TASK_MIN + SLURM_ARRAY_TASK_COUNT - 1 (" +
             std::to_string(*min) + " to " + std::to_string(*min + *count - 1) + ")");
  }
  return env.found("Slurm array task", index, *count);
}

std::optional<EnvironmentShard> parallel_job(EnvironmentReader& env, const ParallelJobs& source) {
  const std::optional<std::int64_t> index = env.number(source.index);
  if (!index) return std::nullopt;
  const std::optional<std::int64_t> count = env.number(source.count);
  const std::string counted =
      std::string(source.count) + " >= 1 beside " + source.index + ", set by " + source.count_source;
  if (!count) env.fail(counted, source.count);
  if (*count < 1) env.fail(counted);
  const std::int64_t shard = *index - source.first_index + 1;
  if (shard < 1 || shard > *count) {
    const std::string last = source.first_index == 0 ? std::string(source.count) + " - 1" : std::string(source.count);
    env.fail(std::string(source.index) + " from " + std::to_string(source.first_index) + " to " + last + " (" +
             std::to_string(source.first_index) + " to " + std::to_string(*count + source.first_index - 1) + ")");
  }
  return env.found(source.system, shard, *count);
}

std::string looked_for() {
  std::string names = std::string(kOverride) + ", " + kSlurmTask;
  for (const ParallelJobs& source : kParallelJobs) names += std::string(", ") + source.index;
  return names;
}

}  // namespace

EnvironmentShard shard_from_environment(const EnvironmentLookup& lookup) {
  EnvironmentReader env(lookup);
  if (std::optional<EnvironmentShard> s = override_shard(env)) return *s;
  if (std::optional<EnvironmentShard> s = slurm_array(env)) return *s;
  for (const ParallelJobs& source : kParallelJobs) {
    if (std::optional<EnvironmentShard> s = parallel_job(env, source)) return *s;
  }
  throw InputError(
      "--shard", "", "\"auto\" with none of " + looked_for() + " set",
      "auto inside a Slurm job array, a Kubernetes Indexed Job (with PREFLIGHT_SHARD_COUNT), GitLab CI parallel:, "
      "CircleCI or Buildkite parallelism, or with PREFLIGHT_SHARD=K/N; elsewhere --shard K/N");
}

std::optional<std::string> process_environment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace preflight
