#pragma once
// The bundled data: GPUs, machine types with prices, and models (catalogs/). Loaded strictly: every
// entry needs `source` and `as_of`, unknown keys are errors, and the traps of public price data
// (missing prices, spot at or above on-demand) become warnings, never silent zeros.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/catalog/market_data_io.hpp"
#include "planner/io/json_reader.hpp"
#include "simulator/spec/gpu_spec.hpp"
#include "simulator/spec/node_spec.hpp"
#include "simulator/spec/model_spec.hpp"
#include "simulator/spec/step_model_fit.hpp"

namespace preflight {

struct CatalogModel {
  ModelSpec spec;
  std::string source;
  std::string as_of;
};

struct SkippedInstance {
  std::string provider;
  std::string instance_type;
  std::string reason;
};

class Catalog {
 public:
  // The folder given, else $PREFLIGHT_CATALOG_DIR, else the source tree's catalogs/.
  static std::filesystem::path default_dir();
  // `with_fit` false: without fitted/step_model.json (what a refit replaces, so an outdated or
  // broken one never stops the refit that would mend it).
  static Catalog load(const std::filesystem::path& dir, bool with_fit = true);
  // `dir` as given on the command line; empty means default_dir().
  static Catalog load_option(const std::string& dir, bool with_fit = true) {
    return load(dir.empty() ? default_dir() : std::filesystem::path(dir), with_fit);
  }

  const std::filesystem::path& dir() const { return dir_; }
  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  const std::vector<NodeSpec>& instances() const { return instances_; }
  const std::vector<SkippedInstance>& skipped() const { return skipped_; }

  const GpuSpec* find_gpu(const std::string& id) const;
  // The GPU named by `key` of a JSON object being read; an InputError listing the ids when unknown.
  GpuSpec gpu_at(io::ObjectReader& reader, std::string_view key) const;
  const NodeSpec* find_instance(const std::string& id) const;

  std::vector<std::string> model_ids() const;
  bool has_model(const std::string& id) const;
  CatalogModel model(const std::string& id) const;  // InputError when unknown

  // The fitted factors of the step model (fitted/step_model.json), null when the catalog has none.
  const StepModelFit* step_model_fit() const { return step_model_fit_ ? &*step_model_fit_ : nullptr; }

  // The market data a machine of this provider and size is given when loaded (catalog instances
  // have it already; inline clusters take it here): the spot traces' figures for its class and
  // the provider's storage prices. Null where the catalog has none.
  const SpotMarketFigures* spot_market(const std::string& provider, int gpus_per_node) const {
    return spot_market_.find(provider, gpus_per_node);
  }
  // The PUE and grid-intensity table (catalogs/grid_intensity.json); null when the catalog has none.
  const std::shared_ptr<const EnergySites>& energy_sites() const { return energy_sites_; }
  const ProviderStorage* storage_prices(const std::string& provider) const {
    const auto it = storage_.find(provider);
    return it == storage_.end() ? nullptr : &it->second;
  }

  std::string gpu_ids_text() const;
  std::string instance_ids_text() const;
  std::string model_ids_text() const;

 private:
  std::filesystem::path dir_;
  std::vector<GpuSpec> gpus_;
  std::vector<NodeSpec> instances_;
  std::vector<SkippedInstance> skipped_;
  std::optional<StepModelFit> step_model_fit_;
  SpotMarketTable spot_market_;
  std::map<std::string, ProviderStorage> storage_;
  std::shared_ptr<const EnergySites> energy_sites_;
};

}  // namespace preflight
