#pragma once
// Drawing without replacement: `drawn` of `total` items, `marked` of them marked. A job's nodes among
// a spot reclaim's removals (economics/job_exposure.cpp), a token's experts among a node's
// (model/expert_routing.cpp).

#include <cstdint>

namespace preflight {

// ln P(no marked item is drawn) = ln [C(total - marked, drawn) / C(total, drawn)]: a product over the
// smaller of marked and drawn, summed as logs (accurate for tiny chances of drawing one), log-gamma
// past 256 terms (constant time, the chance then far from tiny); -infinity when a marked item cannot
// be avoided (marked + drawn > total).
double log_probability_none_drawn(double total, double marked, double drawn);

// P(exactly j of the drawn items are marked).
double hypergeometric_probability(std::int64_t total, std::int64_t marked, std::int64_t drawn, std::int64_t j);

}  // namespace preflight
