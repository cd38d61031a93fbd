#pragma once
// The bundled catalog, loaded once per test program.

#include "planner/catalog/catalog.hpp"

namespace preflight::test {

inline const Catalog& catalog() {
  static const Catalog c = Catalog::load(PREFLIGHT_CATALOG_DIR);
  return c;
}

}  // namespace preflight::test
