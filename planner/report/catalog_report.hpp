#pragma once
// What `preflight catalog` prints: the GPUs, instances or models of a catalog, as a table or JSON.
// The catalog's own data warnings (price traps, skipped instances) go to `warnings`.

#include <iosfwd>
#include <string>

#include "planner/catalog/catalog.hpp"

namespace preflight {

// `what`: gpus, instances or models.
std::string catalog_report(const Catalog& catalog, const std::string& what, bool json, std::ostream& warnings);

}  // namespace preflight
