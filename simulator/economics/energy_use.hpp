#pragma once
// The energy a training run draws and the CO2e it emits: its nodes' power while training, times the
// site's PUE, over the run's hours; the region's grid intensity turns kWh into CO2e.
//
// Power: NVIDIA rates a DGX at 1.8-2.0 times its GPUs' board power (DGX A100: 6.5 kW for 8 x 400 W,
// 2.03; DGX H100: 10.2 kW for 8 x 700 W, 1.82; DGX B200: 14.3 kW for 8 x 1,000 W, 1.79, from the
// systems' datasheets): the host, NICs, switches, fans and power conversion beside the GPUs. A node is
// rated at 1.8 x its GPUs' board power here. Measured on 8-GPU H100 nodes, LLM training draws 76% of
// that rating even when compute-bound (Newkirk et al. 2025, "Empirically-Calibrated H100 Node Power
// Models for Reducing Uncertainty in AI Training Energy Estimation", arXiv:2506.14551; the highest
// draw seen while training Llama-2-13B, 8.4 kW of 10.2, in Latif et al. 2024, arXiv:2412.08602), and
// GPUs waiting on communication draw nearly as much, so the draw is taken as constant over the run.
// A node type's own rating and draw differ from these (a PCIe box with one GPU has a relatively
// larger host): the figure is a datacentre-node estimate.

#include <string>

#include "simulator/spec/energy_sites.hpp"

namespace preflight::energy {

inline constexpr double kNodeRatingPerGpuBoardPower = 1.8;
inline constexpr double kTrainingShareOfRating = 0.76;
// Where a provider publishes no PUE (owned machines, most neoclouds): the industry's average annual
// PUE in the Uptime Institute Global Data Center Survey 2024, 1.56.
inline constexpr double kDefaultPue = 1.56;
inline constexpr const char* kDefaultPueSource = "industry average annual PUE, Uptime Institute Global Data Center Survey 2024";
// Where the table holds no figure for a region: the world's average grid intensity in 2023, 480 g
// CO2e/kWh (Ember, Global Electricity Review 2024), unless the table gives its own.
inline constexpr double kWorldAverageGco2ePerKwh = 480.0;
inline constexpr const char* kWorldAverageSource = "world average 2023, Ember Global Electricity Review 2024";

// A node's draw while training, watts at the wall before the site's PUE.
double node_training_watts(double gpu_board_watts, int gpus_per_node);

// The PUE and grid intensity of a machine's site: the provider's PUE and the region's intensity from
// `sites` (null: none shipped), else the defaults above, each with its source.
struct SiteEnergy {
  double pue = kDefaultPue;
  std::string pue_source = kDefaultPueSource;
  double gco2e_per_kwh = kWorldAverageGco2ePerKwh;
  std::string grid_source = kWorldAverageSource;
  bool regional = false;  // false: the world average stands in for the region
};
SiteEnergy site_energy(const EnergySites* sites, const std::string& provider, const std::string& region);

}  // namespace preflight::energy
