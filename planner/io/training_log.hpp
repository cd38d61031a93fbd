#pragma once
// What a short trial run measured, read from the logs people already have: Megatron-LM's iteration
// log ("elapsed time per iteration (ms): ..." and its "[Rank 0] (after N iterations) memory (MB)"
// report), torchtitan's metrics log ("step: 10  loss: ...  memory: 35.22GiB(37.08%)  tps: 7,012"),
// and Hugging Face Trainer's trainer_state.json (its final "train_steps_per_second") or the same
// summary as the Trainer prints it ({'train_runtime': ..., 'train_steps_per_second': ...}). Any of
// them may also carry a line a user printed with torch.cuda.max_memory_allocated()
// ("max_memory_allocated: 23.4 GiB"; bytes when no unit). The first timed iteration (compilation,
// warm-up) is dropped when more follow; the rest give their median.

#include <filesystem>
#include <optional>
#include <string>

namespace preflight::io {

enum class TrainingLogFormat { megatron, torchtitan, hf_trainer };
std::string to_string(TrainingLogFormat f);

struct TrainingLog {
  TrainingLogFormat format = TrainingLogFormat::megatron;
  int timed = 0;  // timings the figure below is the median of (0 for Trainer's whole-run summary)
  // Seconds per optimizer step (Megatron, Trainer), or tokens per second per GPU (torchtitan's tps,
  // which the trial's batch turns into a step time).
  std::optional<double> step_seconds;
  std::optional<double> tokens_per_second_per_gpu;
  std::optional<double> peak_memory_bytes;  // the largest the log reports
  std::string memory_kind;                  // "max allocated", "max reserved"
};

// Throws InputError naming the file (and line) for what is not one of these logs, for a number that
// is not a finite positive value, or for a log without any step timing.
TrainingLog read_training_log(const std::filesystem::path& file);

}  // namespace preflight::io
