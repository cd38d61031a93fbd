#pragma once
// Which price a configuration pays, and where that figure comes from. The user's policy says which
// regions and zones a job may run in and how a spot price is read from the allowed zones' quotes;
// by default a spot plan is priced at the median allowed zone (a robust figure: the cheapest zone
// anywhere is where capacity is scarcest, and a stale quote sits there), never at a quote the
// catalog flags as an outlier unless the user pins that zone. On-demand is the cheapest allowed
// region's list price (on-demand capacity is there to be had). Every choice names its region, zone,
// price date and source.

#include <optional>
#include <string>
#include <vector>

#include "simulator/economics/capacity_block.hpp"
#include "simulator/spec/enum_names.hpp"
#include "simulator/spec/node_spec.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

// How a spot price is read from the allowed zones' quotes.
enum class SpotQuoteRule { median, cheapest, highest };
inline constexpr EnumNames<SpotQuoteRule, 3> kSpotQuoteRuleNames{
    {{SpotQuoteRule::median, "median"}, {SpotQuoteRule::cheapest, "cheapest"}, {SpotQuoteRule::highest, "highest"}}};

struct PricePolicy {
  std::optional<double> on_demand_usd_per_hour;  // replaces the catalog's figure
  std::optional<double> spot_usd_per_hour;
  double discount = 0.0;  // fraction off on-demand (savings plan, committed-use, enterprise discount)
  std::vector<std::string> regions;  // empty: every region the catalog prices
  std::vector<std::string> zones;    // empty: every zone of the allowed regions; given: pinned
  SpotQuoteRule spot = SpotQuoteRule::median;
};

struct PriceChoice {
  double usd_per_node_hour = 0.0;
  std::string region;  // empty: no market (owned hardware)
  std::string zone;    // empty: any zone of the region (on-demand is priced per region)
  std::string basis;   // which quote and why, in words
  std::string as_of;
  std::string source;
  // Which rate: "list" (the catalog's public price), or a term of the team's price book
  // (on_demand, reserved_1y, reserved_3y, committed, capacity_block, credits).
  std::string term = "list";
  std::optional<CapacityBlockTerms> block = std::nullopt;  // term capacity_block: the spans and sizes sold, the lead
  int quotes = 0;  // the eligible quotes the figure was read from
  // The cheapest and dearest eligible quote: the ends of the price-zone assumption.
  double low_usd_per_node_hour = 0.0;
  double high_usd_per_node_hour = 0.0;
};

// Empty when the machine has no such price (no spot market, on-demand not offered, no quote in the
// allowed regions and zones). spot_with_fallback is priced by its spot quote here (fallback_price
// gives its on-demand side).
std::optional<PriceChoice> choose_price(const NodeSpec& node, Pricing pricing, const PricePolicy& policy);

// The on-demand price of the region a spot choice is in (a fallback stays where its checkpoints
// are); empty when that region lists none.
std::optional<PriceChoice> fallback_price(const NodeSpec& node, const PriceChoice& spot, const PricePolicy& policy);

// Sending `gb` out to the internet at the provider's volume tiers (each GB at its tier's price).
double egress_usd(const std::vector<EgressTier>& tiers, double gb);

}  // namespace preflight
