#pragma once
// Which price a configuration pays: the cheapest listed quote for its pricing (on-demand or spot),
// optionally restricted to a region or zone, after the user's overrides and discount.

#include <optional>
#include <string>

#include "simulator/spec/node_spec.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

struct PriceAdjustments {
  std::optional<double> on_demand_usd_per_hour;  // replaces the catalog's figure
  std::optional<double> spot_usd_per_hour;
  double discount = 0.0;  // fraction off on-demand (savings plan, committed-use, enterprise discount)
  std::optional<std::string> region;
  std::optional<std::string> zone;
};

struct PriceChoice {
  double usd_per_node_hour = 0.0;
  std::string region;
  std::string zone;
  std::string basis;  // where the figure comes from, in words
};

// Empty when the machine has no such price (no spot market, on-demand not offered, region unknown).
std::optional<PriceChoice> choose_price(const NodeSpec& node, Pricing pricing, const PriceAdjustments& adjustments);

}  // namespace preflight
