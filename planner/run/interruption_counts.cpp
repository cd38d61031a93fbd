#include "planner/run/interruption_counts.hpp"

#include "planner/text/number_text.hpp"

namespace preflight {

double faults_expected(const RunEstimate& r) { return r.outcome.interruptions_expected * (1.0 - r.reclaim_share); }

double reclaims_expected(const RunEstimate& r) { return r.outcome.interruptions_expected * r.reclaim_share; }

std::string interruptions_text(const RunEstimate& r) {
  const std::string faults = fixed(faults_expected(r), 2) + " faults";
  if (r.interruptions_source == "none") return faults + " expected (no spot reclaims on demand)";
  return faults + " and " + fixed(reclaims_expected(r), 1) + " spot reclaims expected";
}

}  // namespace preflight
