#pragma once
// What `preflight catalog` prints: the GPUs, instances or models of a catalog, as a table or JSON.
// The catalog's own data warnings (price traps, skipped instances) go to `warnings`.

#include <iosfwd>
#include <optional>
#include <string>

#include "planner/catalog/catalog.hpp"

namespace preflight {

// Which instances `catalog instances` lists: each filter given must hold (empty: any).
struct InstanceFilter {
  std::string gpu;       // a GPU id
  std::string provider;  // aws, gcp, lambda, ...
  std::string region;    // a quote in this region
  std::string pricing;   // on_demand | spot: a quote of this kind (in `region` where given)
  std::optional<double> max_usd_per_hour;  // the cheapest such quote per node-hour at most this
};

// The price a filtered listing judges an instance by: its cheapest quote of `filter.pricing` (either
// kind where empty) in `filter.region` (any where empty); empty when it lists none.
std::optional<double> cheapest_matching_quote(const NodeSpec& node, const InstanceFilter& filter);

// `what`: gpus, instances or models.
std::string catalog_report(const Catalog& catalog, const std::string& what, bool json, std::ostream& warnings,
                           const InstanceFilter& filter = {});

}  // namespace preflight
