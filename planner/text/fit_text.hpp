#pragma once
// Sentences about what fits: the longest sequence a config holds, and what a stack casts to fp32
// around a 4-bit base.

#include <cstdint>
#include <string>

#include "simulator/spec/training_job.hpp"

namespace preflight {

// "longest sequence this config fits: 32,768 tokens (the job's 28,454)".
// `tokens` 0: not even the shortest fits; `model_limit`: it fits the model's whole context; the lengths
// tried were multiples of `granule`.
std::string longest_text(std::int64_t tokens, bool model_limit, std::int64_t granule, std::int64_t job_seq_len);

// What a k-bit upcast makes fp32, or empty for none.
std::string upcast_text(KbitUpcast upcast);

}  // namespace preflight
