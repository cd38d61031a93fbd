#pragma once
// The providers a catalog's machines come from, for the messages that refuse a provider it lacks
// (`catalog --provider`, a scenario's constraints.quota): one list, in the catalog's order.

#include <algorithm>
#include <string>
#include <vector>

#include "planner/catalog/catalog.hpp"

namespace preflight {

inline std::vector<std::string> catalog_providers(const Catalog& catalog) {
  std::vector<std::string> providers;
  for (const NodeSpec& n : catalog.instances()) {
    if (std::find(providers.begin(), providers.end(), n.provider) == providers.end()) providers.push_back(n.provider);
  }
  return providers;
}

inline bool has_provider(const Catalog& catalog, const std::string& provider) {
  const std::vector<std::string> all = catalog_providers(catalog);
  return std::find(all.begin(), all.end(), provider) != all.end();
}

inline std::string catalog_providers_text(const Catalog& catalog) {
  std::string text;
  for (const std::string& p : catalog_providers(catalog)) text += (text.empty() ? "" : ", ") + p;
  return text;
}

}  // namespace preflight
