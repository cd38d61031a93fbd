#pragma once
// Capacity blocks from the team's price book (capacity_block.hpp): which block an on-demand config
// could run on, and whether buying it beats the hourly rate the run would otherwise pay. A block is
// billed whole, so the comparison needs the run's hours: a 30 h run on 24/48 h blocks pays 48 h.

#include <optional>
#include <string>
#include <vector>

#include "planner/run/run_estimate.hpp"
#include "planner/scenario/scenario.hpp"
#include "simulator/economics/pricing.hpp"

namespace preflight {

// The book's cheapest capacity block for the machine in one of `regions` (any where empty), per
// node-hour; empty without a book or a block row that applies. `list`: the public quote it is shown
// against.
std::optional<PriceChoice> block_choice(const Scenario& scenario, const NodeSpec& node, const std::vector<std::string>& regions,
                                        const std::optional<PriceChoice>& list);

// Moves a prepared on-demand run onto `block` when the block (its span and size rounded up, its
// lead counted against the deadline) costs less than the run's own rate: price, hourly rate, the
// Monte Carlo's block terms and the closed forms. Otherwise the run is left as it is.
// "bought 2 days ahead", "bought 1 day ahead", "bought to start at once".
std::string block_lead_text(double lead_hours);

void consider_block(const Scenario& scenario, const PriceChoice& block, const StrategyConfig& config, RunEstimate& run);

}  // namespace preflight
