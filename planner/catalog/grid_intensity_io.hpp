#pragma once
// catalogs/grid_intensity.json: each provider's data-centre PUE and each cloud region's grid carbon
// intensity, every figure with its source, and the world average for the regions it does not hold.
// An InputError names the file, the JSON path, the bad value and what is allowed.

#include <filesystem>

#include "simulator/spec/energy_sites.hpp"

namespace preflight {

EnergySites read_energy_sites(const std::filesystem::path& file);

}  // namespace preflight
