#pragma once
// Where a step's time goes, in words: the GPU's work by kernel class (GEMM, attention, memory-bound),
// then what it waits on (collectives, offload copies, the host, the pipeline) and the optimizer.

#include <string>

#include "simulator/spec/step_model_fit.hpp"
#include "simulator/spec/step_time.hpp"

namespace preflight {

// "GEMM 1.234 + attention 0.210 + memory-bound 0.301 (recompute 0.400, no-grad log-prob forwards 0.300 of
// these), exposed communication
// 0.020, optimizer 0.010" (seconds), the zero parts left out.
std::string step_parts_text(const StepTime& step);

// "80% interval 4.21-5.30 s (held-out error of 1561 rows)" for a step of `seconds`; empty without a fit.
std::string step_interval_text(double seconds, const StepTimeInterval& interval, int decimals);

}  // namespace preflight
