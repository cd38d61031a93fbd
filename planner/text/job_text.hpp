#pragma once
// A training job's method and batch in words: the weights trained, a post-training objective and
// where its reference comes from, and examples counted as the job counts them (sequences or pairs).

#include <cstdint>
#include <string>

#include "simulator/spec/training_job.hpp"

namespace preflight {

// "lora"; "dpo on full weights, a reference model's forward every step (a second copy of the weights)".
std::string method_text(const TrainingJob& job);

// "64 sequences"; "64 pairs" under a paired objective (each runs as two sequences).
std::string examples_text(const TrainingJob& job, std::int64_t examples);

}  // namespace preflight
