#pragma once
// Where a step's time goes, in words: the GPU's work by kernel class (GEMM, attention, memory-bound),
// then what it waits on (collectives, offload copies, the host, the pipeline) and the optimizer.

#include <string>

#include "simulator/spec/step_time.hpp"

namespace preflight {

// "GEMM 1.234 + attention 0.210 + memory-bound 0.301 (recompute 0.400 of these), exposed communication
// 0.020, optimizer 0.010" (seconds), the zero parts left out.
std::string step_parts_text(const StepTime& step);

}  // namespace preflight
