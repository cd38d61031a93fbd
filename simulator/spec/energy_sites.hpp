#pragma once
// Where a machine's electricity comes from: each provider's data-centre PUE and each cloud region's
// grid carbon intensity (catalogs/grid_intensity.json, every figure with its source), with the world
// average for regions the table does not hold. Shared by every machine of a catalog.

#include <map>
#include <string>
#include <utility>

namespace preflight {

struct GridFigure {
  double gco2e_per_kwh = 0.0;
  std::string source;
};

struct PueFigure {
  double pue = 0.0;
  std::string source;
};

struct EnergySites {
  GridFigure world_average;
  std::map<std::string, PueFigure, std::less<>> pue_by_provider;
  std::map<std::pair<std::string, std::string>, GridFigure> grid_by_region;  // (provider, region)
};

}  // namespace preflight
