#pragma once
// Where a calibration profile does not speak for a job: the profile is of another GPU (it is then not
// applied), or the job's matmul dimensions fall outside the measured grid (those matmuls keep the
// named default efficiency). One line each, for stderr.

#include <string>
#include <vector>

#include "planner/scenario/scenario.hpp"
#include "simulator/spec/calibration_profile.hpp"

namespace preflight {

// `tokens`: one micro-batch's tokens on a GPU (micro-batch x seq_len / cp), the matmuls' row count.
std::vector<std::string> profile_warnings(const CalibrationProfile& profile, const Scenario& scenario, const NodeSpec& node,
                                          std::int64_t tokens);

}  // namespace preflight
