#pragma once
// The catalog's market data beside the machines: storage and egress prices per provider
// (catalogs/storage.json) and the spot-interruption figures per machine class that
// catalogs/tools/spot_interruptions.py derives from the public traces (fitted/spot_interruptions.json).

#include <filesystem>
#include <map>
#include <string>

#include "simulator/spec/spot_market.hpp"
#include "simulator/spec/storage_prices.hpp"

namespace preflight {

std::map<std::string, ProviderStorage> read_storage_prices(const std::filesystem::path& file);

// Per class "provider one|multi", borrowed classes resolved to the figures they borrow (said in basis).
struct SpotMarketTable {
  std::map<std::string, SpotMarketFigures> classes;

  // The figures for a machine of this provider and GPU count; null when the table has no such class.
  const SpotMarketFigures* find(const std::string& provider, int gpus_per_node) const;
};

SpotMarketTable read_spot_market(const std::filesystem::path& file);

}  // namespace preflight
