#include "simulator/economics/pricing.hpp"

namespace preflight {

std::optional<PriceChoice> choose_price(const NodeSpec& node, Pricing pricing, const PriceAdjustments& a) {
  const bool spot = pricing == Pricing::spot;
  const std::optional<double> overridden = spot ? a.spot_usd_per_hour : a.on_demand_usd_per_hour;
  if (overridden) {
    const double usd = spot ? *overridden : *overridden * (1.0 - a.discount);
    return PriceChoice{usd, a.region.value_or(""), a.zone.value_or(""), "scenario override"};
  }
  if (node.prices.empty() && !spot) {
    // Owned hardware (on-prem, workstations): no market price; the user may give one.
    return PriceChoice{0.0, "", "", "owned hardware (no price given)"};
  }
  std::optional<PriceChoice> best;
  for (const PriceQuote& q : node.prices) {
    if (a.region && q.region != *a.region) continue;
    if (a.zone && q.zone != *a.zone) continue;
    std::optional<double> usd = spot ? q.spot_usd_per_hour : q.on_demand_usd_per_hour;
    // A spot price at or above on-demand buys nothing but interruptions: never chosen.
    if (spot && usd && q.on_demand_usd_per_hour && *usd >= *q.on_demand_usd_per_hour) usd.reset();
    if (!usd) continue;
    const double price = spot ? *usd : *usd * (1.0 - a.discount);
    if (!best || price < best->usd_per_node_hour) {
      best = PriceChoice{price, q.region, q.zone, std::string(spot ? "spot" : "on-demand") + " quote, " + node.as_of};
    }
  }
  return best;
}

}  // namespace preflight
