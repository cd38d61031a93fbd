#pragma once
// The team's price book (price_book.hpp) as a price choice: its cheapest rate for a machine, where
// the job may run, with the words every format shows ("your reserved_1y rate from the price book ...").

#include <optional>
#include <string>
#include <vector>

#include "planner/catalog/price_book.hpp"
#include "simulator/economics/pricing.hpp"

namespace preflight {

// The book's cheapest row for `node` in one of `regions` (any where empty) for a job on `nodes`
// machines: capacity blocks only when `blocks`, every other term otherwise. `list`: the public
// on-demand quote it is shown against (empty: the list does not sell it on demand).
std::optional<PriceChoice> book_choice(const PriceBook& book, const NodeSpec& node, const std::vector<std::string>& regions, int nodes,
                                       bool blocks, const std::optional<PriceChoice>& list);

}  // namespace preflight
