#pragma once
// Calibration profiles written by hand (no file, no GPU): the simulator's tests apply them through a
// Machine, the planner's read and write them as JSON, the command-line tests hand them to the binary.

#include "simulator/spec/calibration_profile.hpp"

namespace preflight::test {

// A profile of an 8 x A100-80GB machine with every section filled: bf16 matmuls on a 2 x 2 x 2 grid
// of shapes at 1e12 x (m + n + k) / 100 FLOP/s, device memory copy 1.7 TB/s, host links, host
// benchmarks (CPU AdamW at 2e9 parameters/s), one all-gather table on 8 ranks and framework times.
CalibrationProfile full_profile();

}  // namespace preflight::test
