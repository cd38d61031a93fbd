#pragma once
// What a provider charges for where checkpoints live and for data leaving it (catalogs/storage.json):
// an object store and a network file system per GB-month, and internet egress by volume tier.

#include <optional>
#include <string>
#include <vector>

namespace preflight {

struct StorageOffer {
  std::string name;
  double usd_per_gb_month = 0.0;
  double minimum_gb = 0.0;  // a file system provisioned below this is billed at it
  std::string source;
  std::string as_of;
};

struct EgressTier {
  std::optional<double> up_to_gb;  // cumulative volume this tier ends at; empty: no end
  double usd_per_gb = 0.0;
};

struct ProviderStorage {
  std::string provider;
  std::optional<StorageOffer> object_store;
  std::optional<StorageOffer> network_fs;  // empty: the catalog has no price for one
  std::vector<EgressTier> egress;          // ascending; empty: egress not priced
  std::string egress_source;
  std::string egress_as_of;
};

}  // namespace preflight
