#pragma once
// A capacity block: machines reserved ahead for a fixed span (AWS EC2 Capacity Blocks for ML, GCP's
// calendar-mode reservations), sold in a few durations and node counts, bought `lead` ahead of its
// start and billed for the whole span whether the job uses it or not. Not interrupted by a provider
// (as on demand). When a run outlasts its block the block is extended at the same rate (AWS allows
// extending a block), so a trial pays for the longer of its run and its block.

#include <optional>
#include <vector>

namespace preflight {

struct CapacityBlockTerms {
  std::vector<double> durations_hours;  // the spans sold, ascending
  double lead_hours = 0.0;              // bought this long before it starts: the run starts no sooner
  std::vector<int> node_counts;         // the sizes sold, ascending (empty: any count)
};

// The shortest span sold that covers `hours` (empty when none does).
std::optional<double> block_duration(const CapacityBlockTerms& terms, double hours);

// The smallest size sold that holds `nodes` (empty when none does): a job on fewer nodes still pays
// for the block's.
std::optional<int> block_nodes(const CapacityBlockTerms& terms, int nodes);

}  // namespace preflight
