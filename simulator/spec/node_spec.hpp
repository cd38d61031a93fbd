#pragma once
// One machine type: a cloud instance, an on-prem node or a workstation (catalogs/instances/*.json or
// a scenario's inline "clusters" entry), with its prices.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "simulator/spec/enum_names.hpp"
#include "simulator/spec/gpu_spec.hpp"
#include "simulator/spec/energy_sites.hpp"
#include "simulator/spec/spot_market.hpp"
#include "simulator/spec/storage_prices.hpp"

namespace preflight {

enum class IntraNodeLink { nvswitch, nvlink, pcie };
inline constexpr EnumNames<IntraNodeLink, 3> kIntraNodeLinkNames{
    {{IntraNodeLink::nvswitch, "nvswitch"}, {IntraNodeLink::nvlink, "nvlink"}, {IntraNodeLink::pcie, "pcie"}}};

struct PriceQuote {
  std::string region;
  std::string zone;  // empty where the provider prices per region
  std::optional<double> on_demand_usd_per_hour;  // empty: not offered on demand (for example capacity blocks only)
  std::optional<double> spot_usd_per_hour;       // empty: no spot market listed
  std::string note;
  // The catalog flags a spot figure out of line with the type's other zones (a stale or mistyped
  // quote, or a zone without capacity): never priced at unless the user pins that zone.
  bool spot_outlier = false;
};

struct NodeSpec {
  std::string id;  // provider/instance-type
  std::string provider;
  GpuSpec gpu;
  int gpus_per_node = 0;
  int vcpus = 0;
  double host_memory_bytes = 0.0;
  IntraNodeLink intra_node_link = IntraNodeLink::pcie;
  double intra_node_bytes_per_second_per_gpu = 0.0;  // per direction
  double inter_node_bits_per_second = 0.0;           // per node; 0 = cannot be networked
  double local_nvme_bytes = 0.0;
  std::optional<std::string> interruption_bucket;   // AWS spot advisor bucket
  std::optional<double> spot_interruptions_per_node_hour;  // given for inline clusters
  // The traces' figures for this machine's class (resolved when the catalog is loaded); empty when
  // the catalog has none, and then spot needs a rate, bucket or trace from the scenario.
  std::optional<SpotMarketFigures> spot_market;
  std::optional<ProviderStorage> storage;  // the provider's storage and egress prices; empty: owned or unknown
  std::optional<int> max_nodes;                     // an inline cluster's size
  // The catalog's PUE and grid-intensity table (null: none), for the energy a run on it draws.
  std::shared_ptr<const EnergySites> energy_sites;
  // Owned machines (an inline cluster's `owned`): the hourly cost of a node-hour used is its price
  // spread over the hours it is used in its lifetime; electricity comes on top.
  struct Owned {
    double purchase_usd = 0.0;  // one node
    double lifetime_years = 0.0;
    double utilisation = 0.0;   // the share of its lifetime it does paid work
    double usd_per_node_hour() const { return purchase_usd / (lifetime_years * 8760.0 * utilisation); }
  };
  std::optional<Owned> owned;
  // Catalog keys whose values the provider does not document ("intra_node", "inter_node_Gbps"): the
  // catalog writes their conservative reading (PCIe, a modest network) and the search does not put
  // tensor parallelism over an assumed link unless the scenario fixes it.
  std::vector<std::string> assumed;
  // A marketplace offer: independent hosts' bids listed per host (Vast.ai), not a provider's fleet,
  // so a quote can vanish and several nodes may not be had alike.
  bool marketplace = false;
  std::vector<PriceQuote> prices;
  std::string source;
  std::string price_source;  // where the quotes come from (a price list, its commit)
  std::string as_of;
  std::vector<std::string> warnings;  // price-data traps noticed while loading

  // How many of these machines one job may span: one without a network; an inline cluster's size;
  // else a bound far above any cluster a cloud rents (the largest public runs use ~2,000 nodes).
  bool link_assumed() const {
    for (const std::string& key : assumed) {
      if (key == "intra_node") return true;
    }
    return false;
  }

  int node_limit() const { return inter_node_bits_per_second > 0.0 ? max_nodes.value_or(4096) : 1; }
};

}  // namespace preflight
