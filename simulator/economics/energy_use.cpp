#include "simulator/economics/energy_use.hpp"

namespace preflight::energy {

double node_training_watts(double gpu_board_watts, int gpus_per_node) {
  return kTrainingShareOfRating * kNodeRatingPerGpuBoardPower * gpu_board_watts * static_cast<double>(gpus_per_node);
}

SiteEnergy site_energy(const EnergySites* sites, const std::string& provider, const std::string& region) {
  SiteEnergy e;
  if (sites == nullptr) return e;
  if (sites->world_average.gco2e_per_kwh > 0.0) {
    e.gco2e_per_kwh = sites->world_average.gco2e_per_kwh;
    e.grid_source = sites->world_average.source;
  }
  if (const auto p = sites->pue_by_provider.find(provider); p != sites->pue_by_provider.end()) {
    e.pue = p->second.pue;
    e.pue_source = p->second.source;
  }
  if (const auto g = sites->grid_by_region.find({provider, region}); g != sites->grid_by_region.end()) {
    e.gco2e_per_kwh = g->second.gco2e_per_kwh;
    e.grid_source = g->second.source;
    e.regional = true;
  }
  return e;
}

}  // namespace preflight::energy
