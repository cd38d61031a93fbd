#include "planner/check/profile_coverage.hpp"

#include <vector>

#include "simulator/hardware/matmul_rates.hpp"

namespace preflight {

std::vector<std::string> profile_warnings(const CalibrationProfile& p, const Scenario& s, const NodeSpec& node,
                                          std::int64_t tokens) {
  std::vector<std::string> out;
  if (!p.applies_to(node.gpu.id)) {
    out.push_back("profile measured on " + (p.machine.gpu.empty() ? std::string("no GPU") : p.machine.gpu) + ", " + node.id +
                  " has " + node.gpu.id + ": not applied there");
    return out;
  }
  const std::string dtype = to_string(s.training().precision);
  const std::optional<MatmulRates> rates = MatmulRates::from(p.matmul, dtype);
  if (!rates) {
    if (!p.matmul.empty()) out.push_back("profile has no " + dtype + " matmuls: the default matmul efficiency is used");
    return out;
  }
  const ModelSpec& m = s.model();
  // A reward model's score (hidden -> 1) is no matmul worth a profile's rate.
  std::vector<double> dims{static_cast<double>(tokens), static_cast<double>(m.hidden), static_cast<double>(m.intermediate)};
  if (!m.scalar_head) dims.push_back(static_cast<double>(m.vocab));
  for (double d : dims) {
    if (d < rates->smallest() || d > rates->largest()) {
      out.push_back("matmul dimension " + std::to_string(static_cast<long long>(d)) + " is outside the profile's measured " +
                    std::to_string(static_cast<long long>(rates->smallest())) + ".." +
                    std::to_string(static_cast<long long>(rates->largest())) + ": those matmuls use the default efficiency");
    }
  }
  return out;
}

}  // namespace preflight
