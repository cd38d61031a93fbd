#include "simulator/economics/pricing.hpp"

#include <algorithm>

namespace preflight {

namespace {

bool allowed(const std::vector<std::string>& list, const std::string& value) {
  return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
}

std::string money(double usd) {
  std::string s = std::to_string(usd);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return "$" + s;
}

std::string plural(int n, const std::string& what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

// A region or zone filter applies to the catalog's quotes; an inline cluster has one price of its own.
bool filtered(const NodeSpec& node) { return node.provider != "inline"; }

PriceChoice override_choice(double usd, const NodeSpec& node, const PricePolicy& p) {
  PriceChoice c{usd, p.regions.size() == 1 ? p.regions.front() : "", p.zones.size() == 1 ? p.zones.front() : "",
                "scenario override", "", "scenario prices.overrides"};
  c.quotes = 1;
  c.low_usd_per_node_hour = c.high_usd_per_node_hour = usd;
  (void)node;
  return c;
}

std::optional<PriceChoice> on_demand_choice(const NodeSpec& node, const PricePolicy& p, const std::string* region) {
  std::vector<const PriceQuote*> eligible;
  for (const PriceQuote& q : node.prices) {
    if (!q.on_demand_usd_per_hour) continue;
    if (region != nullptr ? q.region != *region
                          : filtered(node) && (!allowed(p.regions, q.region) || !allowed(p.zones, q.zone))) {
      continue;
    }
    eligible.push_back(&q);
  }
  if (eligible.empty()) return std::nullopt;
  std::stable_sort(eligible.begin(), eligible.end(),
                   [](const PriceQuote* a, const PriceQuote* b) { return *a->on_demand_usd_per_hour < *b->on_demand_usd_per_hour; });
  const PriceQuote& q = *eligible.front();
  PriceChoice c;
  c.usd_per_node_hour = *q.on_demand_usd_per_hour * (1.0 - p.discount);
  c.region = q.region;
  c.zone = p.zones.size() == 1 ? q.zone : "";  // on-demand is one list price per region
  c.as_of = node.as_of;
  c.source = node.price_source.empty() ? node.source : node.price_source;
  c.quotes = static_cast<int>(eligible.size());
  c.low_usd_per_node_hour = *eligible.front()->on_demand_usd_per_hour * (1.0 - p.discount);
  c.high_usd_per_node_hour = *eligible.back()->on_demand_usd_per_hour * (1.0 - p.discount);
  c.basis = "on-demand list price of " + q.region +
            (region != nullptr ? " (where the spot quote is)"
                               : eligible.size() > 1 ? ", the cheapest of " + plural(static_cast<int>(eligible.size()), "allowed quote") : "") +
            (p.discount > 0.0 ? ", less a " + std::to_string(static_cast<int>(p.discount * 100.0 + 0.5)) + "% discount" : "");
  return c;
}

std::optional<PriceChoice> spot_choice(const NodeSpec& node, const PricePolicy& p) {
  std::vector<const PriceQuote*> eligible;
  int outliers = 0, no_discount = 0;
  const bool pinned = !p.zones.empty();
  for (const PriceQuote& q : node.prices) {
    if (filtered(node) && (!allowed(p.regions, q.region) || !allowed(p.zones, q.zone))) continue;
    if (!q.spot_usd_per_hour) continue;
    // A spot price at or above on-demand (after the user's discount) buys nothing but interruptions:
    // never chosen.
    if (q.on_demand_usd_per_hour && *q.spot_usd_per_hour >= *q.on_demand_usd_per_hour * (1.0 - p.discount)) {
      ++no_discount;
      continue;
    }
    if (q.spot_outlier && !pinned) {
      ++outliers;
      continue;
    }
    eligible.push_back(&q);
  }
  if (eligible.empty()) return std::nullopt;
  std::stable_sort(eligible.begin(), eligible.end(),
                   [](const PriceQuote* a, const PriceQuote* b) { return *a->spot_usd_per_hour < *b->spot_usd_per_hour; });
  const std::size_t n = eligible.size();
  // The lower median: a real quote, with a real zone.
  const std::size_t pick = p.spot == SpotQuoteRule::cheapest ? 0 : p.spot == SpotQuoteRule::highest ? n - 1 : (n - 1) / 2;
  const PriceQuote& q = *eligible[pick];
  PriceChoice c;
  c.usd_per_node_hour = *q.spot_usd_per_hour;
  c.region = q.region;
  c.zone = q.zone;
  c.as_of = node.as_of;
  c.source = node.price_source.empty() ? node.source : node.price_source;
  c.quotes = static_cast<int>(n);
  c.low_usd_per_node_hour = *eligible.front()->spot_usd_per_hour;
  c.high_usd_per_node_hour = *eligible.back()->spot_usd_per_hour;
  std::string excluded;
  if (outliers > 0) excluded += plural(outliers, "flagged outlier");
  if (no_discount > 0) excluded += (excluded.empty() ? "" : ", ") + std::to_string(no_discount) + " at or above on-demand";
  const bool zoned = std::any_of(eligible.begin(), eligible.end(), [](const PriceQuote* e) { return !e->zone.empty(); });
  const std::string range = c.low_usd_per_node_hour < c.high_usd_per_node_hour
                                ? " (" + money(c.low_usd_per_node_hour) + "-" + money(c.high_usd_per_node_hour) + ")"
                                : "";
  c.basis = n == 1 ? std::string("the one allowed spot quote")
                   : "spot, the " + std::string(name_of(kSpotQuoteRuleNames, p.spot)) + " of " +
                         plural(static_cast<int>(n), zoned ? "zone quote" : "quote") + range;
  if (pinned) c.basis += ", zone pinned";
  if (!excluded.empty()) c.basis += "; left out: " + excluded;
  return c;
}

}  // namespace

std::optional<PriceChoice> choose_price(const NodeSpec& node, Pricing pricing, const PricePolicy& p) {
  const bool spot = on_spot(pricing);
  if (const std::optional<double> given = spot ? p.spot_usd_per_hour : p.on_demand_usd_per_hour) {
    return override_choice(spot ? *given : *given * (1.0 - p.discount), node, p);
  }
  if (node.prices.empty()) {
    if (spot) return std::nullopt;
    // Owned hardware (on-prem, workstations): no market price; the user may give one.
    PriceChoice c;
    c.basis = "owned hardware (no price given)";
    c.source = node.source;
    c.as_of = node.as_of;
    return c;
  }
  return spot ? spot_choice(node, p) : on_demand_choice(node, p, nullptr);
}

std::optional<PriceChoice> fallback_price(const NodeSpec& node, const PriceChoice& spot, const PricePolicy& p) {
  if (p.on_demand_usd_per_hour) return override_choice(*p.on_demand_usd_per_hour * (1.0 - p.discount), node, p);
  if (node.prices.empty()) return std::nullopt;
  return on_demand_choice(node, p, &spot.region);
}

double egress_usd(const std::vector<EgressTier>& tiers, double gb) {
  double usd = 0.0, start = 0.0;
  for (const EgressTier& t : tiers) {
    const double end = t.up_to_gb.value_or(std::max(gb, start));
    if (gb > start) usd += (std::min(gb, end) - start) * t.usd_per_gb;
    start = end;
  }
  return usd;
}

}  // namespace preflight
