#include "planner/catalog/catalog.hpp"

#include "planner/catalog/grid_intensity_io.hpp"

#include "planner/catalog/step_model_fit_io.hpp"
#include "simulator/spec/units.hpp"

#include <algorithm>
#include <cstdlib>

#include "planner/catalog/hf_model_config.hpp"
#include "planner/catalog/price_age.hpp"
#include "planner/io/json_reader.hpp"
#include "simulator/economics/interruption_process.hpp"
#include "simulator/spec/errors.hpp"

#ifndef PREFLIGHT_CATALOG_DIR
#error "PREFLIGHT_CATALOG_DIR must be defined by the build"
#endif

namespace preflight {

namespace fs = std::filesystem;
using io::ObjectReader;

namespace {


std::string read_as_of(ObjectReader& r) {
  const std::string as_of = r.string("as_of");
  if (!is_catalog_date(as_of)) r.fail("as_of", "a date YYYY-MM-DD or YYYY-MM");
  return as_of;
}

std::optional<double> nullable_number(ObjectReader& r, std::string_view key, const io::NumberRule& rule) {
  if (!r.has(key)) r.fail(key, rule.text() + " or null (required)");
  if (r.raw(key).is_null()) return std::nullopt;
  return r.number(key, rule);
}

GpuSpec read_gpu(const nlohmann::json& j, const std::string& file, const std::string& path) {
  ObjectReader r(j, file, path);
  GpuSpec g;
  g.id = r.string("id");
  g.name = r.string("name");
  r.string("form_factor");
  g.architecture = r.enum_value("architecture", kGpuArchitectureNames);
  g.memory_bytes = r.number("memory_GiB", {0.1, 4096.0, false, "GiB"}) * kGiB;
  r.string("memory_type");
  g.memory_bandwidth_bytes_per_second = r.number("memory_bandwidth_GBps", {1.0, 1e6, false, "GB/s"}) * 1e9;
  ObjectReader peaks = r.object("peak_tflops");
  const io::NumberRule tflops{0.01, 1e6, false, "TFLOP/s"};
  g.peak_tflops.fp32 = nullable_number(peaks, "fp32", tflops);
  g.peak_tflops.tf32 = nullable_number(peaks, "tf32", tflops);
  g.peak_tflops.bf16 = nullable_number(peaks, "bf16", tflops);
  g.peak_tflops.fp16 = nullable_number(peaks, "fp16", tflops);
  g.peak_tflops.fp8 = nullable_number(peaks, "fp8", tflops);
  peaks.finish();
  g.nvlink_bytes_per_second_bidirectional = r.number("nvlink_GBps_per_gpu_bidirectional", {0.0, 1e5, false, "GB/s"}) * 1e9;
  if (r.has("pcie_gen") && !r.raw("pcie_gen").is_null()) r.integer("pcie_gen", 1, 7);
  // Streaming multiprocessors: what a GEMM's tiles are spread over (null: not published).
  if (!r.has("sm_count")) r.fail("sm_count", "an integer from 1 to 1024 or null (required)");
  if (!r.raw("sm_count").is_null()) g.sm_count = static_cast<int>(r.integer("sm_count", 1, 1024));
  r.string("sm_count_source");
  if (r.has("board_power_W")) {
    g.board_power_watts = r.number("board_power_W", {1.0, 10000.0, false, "W"});
    r.string("board_power_source");
  }
  g.source = r.string("source");
  g.as_of = read_as_of(r);
  r.optional_string("notes");
  r.finish();
  return g;
}

PriceQuote read_price(const nlohmann::json& j, const std::string& file, const std::string& path) {
  ObjectReader r(j, file, path);
  PriceQuote q;
  q.region = r.string("region");
  if (r.has("zone") && !r.raw("zone").is_null()) q.zone = r.string("zone");
  const io::NumberRule usd{1e-4, 1e5, false, "USD per hour"};
  q.on_demand_usd_per_hour = nullable_number(r, "on_demand_usd_per_hour", usd);
  q.spot_usd_per_hour = nullable_number(r, "spot_usd_per_hour", usd);
  q.spot_outlier = r.optional_boolean("spot_outlier").value_or(false);
  if (q.spot_outlier && !q.spot_usd_per_hour) r.fail("spot_outlier", "false where no spot price is listed");
  if (r.has("note") && !r.raw("note").is_null()) q.note = r.string("note");
  r.finish();
  return q;
}

// Public price lists have holes and oddities; say so once per quote instead of pricing at zero. A
// type not sold one way at all (no spot market, spot or Flex-start only) has no hole to warn about.
std::vector<std::string> price_warnings(const NodeSpec& n) {
  std::vector<std::string> w;
  const bool on_demand_sold = std::any_of(n.prices.begin(), n.prices.end(), [](const PriceQuote& q) { return q.on_demand_usd_per_hour.has_value(); });
  const bool spot_sold = std::any_of(n.prices.begin(), n.prices.end(), [](const PriceQuote& q) { return q.spot_usd_per_hour.has_value(); });
  if (!n.prices.empty() && !on_demand_sold && !spot_sold) {
    const std::string& note = n.prices.front().note;
    w.push_back("no on-demand price and no spot price in any quote: not rentable at a listed price" + (note.empty() ? "" : " (" + note + ")"));
  }
  for (const PriceQuote& q : n.prices) {
    const std::string where = q.region + (q.zone.empty() ? "" : "/" + q.zone);
    const std::string why = q.note.empty() ? "" : " (" + q.note + ")";
    if (!q.on_demand_usd_per_hour && on_demand_sold) w.push_back(where + ": no on-demand price listed; on-demand pricing unavailable there" + why);
    if (!q.spot_usd_per_hour && spot_sold) w.push_back(where + ": no spot price listed; spot pricing unavailable there" + why);
    if (q.on_demand_usd_per_hour && q.spot_usd_per_hour) {
      if (*q.spot_usd_per_hour > *q.on_demand_usd_per_hour) {
        w.push_back(where + ": spot price above on-demand; spot is never chosen there");
      } else if (*q.spot_usd_per_hour == *q.on_demand_usd_per_hour) {
        w.push_back(where + ": spot equals on-demand (no spot discount listed)");
      }
    }
  }
  return w;
}

NodeSpec read_instance(const nlohmann::json& j, const std::string& provider, const Catalog& catalog,
                       const std::string& file, const std::string& path) {
  ObjectReader r(j, file, path);
  NodeSpec n;
  n.provider = provider;
  n.id = r.string("id");
  if (n.id.rfind(provider + "/", 0) != 0) r.fail("id", "an id starting with \"" + provider + "/\"");
  n.gpu = catalog.gpu_at(r, "gpu");
  n.gpus_per_node = static_cast<int>(r.integer("gpus_per_node", 1, 64));
  n.vcpus = static_cast<int>(r.integer("vcpus", 1, 100000));
  n.host_memory_bytes = r.number("host_memory_GiB", {0.5, 1e6, false, "GiB"}) * kGiB;
  ObjectReader link = r.object("intra_node");
  n.intra_node_link = link.enum_value("link", kIntraNodeLinkNames);
  n.intra_node_bytes_per_second_per_gpu = link.number("GBps_per_gpu", {0.1, 1e5, false, "GB/s"}) * 1e9;
  link.finish();
  n.inter_node_bits_per_second = io::network_gbps(r, "inter_node_Gbps") * 1e9;
  n.local_nvme_bytes = r.number("local_nvme_GB", {0.0, 1e7, false, "GB"}) * 1e9;
  if (r.has("interruption_bucket") && !r.raw("interruption_bucket").is_null()) {
    n.interruption_bucket = r.choice("interruption_bucket", kSpotAdvisorBuckets);
  }
  if (r.has("assumed")) n.assumed = r.choice_list("assumed", {"intra_node", "inter_node_Gbps"});
  n.marketplace = r.optional_choice("offer", {"instance", "marketplace"}).value_or("instance") == "marketplace";
  const nlohmann::json& prices = r.raw("prices");
  if (!prices.is_array()) r.fail("prices", "a list of price quotes (empty for owned hardware)");
  for (std::size_t i = 0; i < prices.size(); ++i) {
    n.prices.push_back(read_price(prices[i], file, r.path_of("prices") + "[" + std::to_string(i) + "]"));
  }
  // How the provider sells the type: a shape sold only as spot or Flex-start (GCP's a3-highgpu-1g)
  // must list no on-demand price, so no plan can rent it on demand.
  if (r.has("sold_as")) {
    const std::vector<std::string> sold = r.choice_list("sold_as", {"on_demand", "spot", "flex_start", "reservation"});
    const auto sells = [&](std::string_view term) { return std::find(sold.begin(), sold.end(), term) != sold.end(); };
    for (const PriceQuote& q : n.prices) {
      if (q.on_demand_usd_per_hour && !sells("on_demand")) r.fail("sold_as", "\"on_demand\" listed where a quote has an on-demand price");
      if (q.spot_usd_per_hour && !sells("spot")) r.fail("sold_as", "\"spot\" listed where a quote has a spot price");
    }
  }
  n.source = r.string("source");
  n.price_source = r.string("price_source");
  n.as_of = read_as_of(r);
  r.optional_string("notes");
  r.finish();
  n.warnings = price_warnings(n);
  return n;
}

std::string joined(const std::vector<std::string>& ids) {
  std::string text;
  for (const std::string& id : ids) text += (text.empty() ? "" : ", ") + id;
  return text;
}

}  // namespace

fs::path Catalog::default_dir() {
  if (const char* env = std::getenv("PREFLIGHT_CATALOG_DIR"); env != nullptr && *env != '\0') return env;
  return PREFLIGHT_CATALOG_DIR;
}

Catalog Catalog::load(const fs::path& dir, bool with_fit) {
  Catalog c;
  c.dir_ = dir;
  const fs::path gpus_file = dir / "gpus.json";
  const nlohmann::json gpus = io::parse_file(gpus_file);
  ObjectReader top(gpus, gpus_file.string(), "$");
  const nlohmann::json& list = top.raw("gpus");
  top.finish();
  if (!list.is_array()) throw InputError(gpus_file.string(), "$.gpus", io::describe(list), "a list of GPUs");
  for (std::size_t i = 0; i < list.size(); ++i) {
    c.gpus_.push_back(read_gpu(list[i], gpus_file.string(), "$.gpus[" + std::to_string(i) + "]"));
  }

  if (const fs::path fit = dir / "fitted" / "step_model.json"; with_fit && fs::exists(fit)) c.step_model_fit_ = read_step_model_fit(fit);
  if (const fs::path spot = dir / "fitted" / "spot_interruptions.json"; fs::exists(spot)) c.spot_market_ = read_spot_market(spot);
  if (const fs::path storage = dir / "storage.json"; fs::exists(storage)) c.storage_ = read_storage_prices(storage);
  if (const fs::path grid = dir / "grid_intensity.json"; fs::exists(grid)) {
    c.energy_sites_ = std::make_shared<const EnergySites>(read_energy_sites(grid));
  }

  std::vector<fs::path> files;
  if (!fs::is_directory(dir / "instances")) {
    throw InputError((dir / "instances").string(), "", "no such folder", "a catalog folder with instances/<provider>.json");
  }
  for (const auto& e : fs::directory_iterator(dir / "instances")) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());  // deterministic order whatever the file system returns
  for (const fs::path& f : files) {
    const nlohmann::json doc = io::parse_file(f);
    ObjectReader r(doc, f.string(), "$");
    const std::string provider = r.string("provider");
    const nlohmann::json& instances = r.raw("instances");
    if (!instances.is_array()) r.fail("instances", "a list of instances");
    for (std::size_t i = 0; i < instances.size(); ++i) {
      c.instances_.push_back(read_instance(instances[i], provider, c, f.string(), "$.instances[" + std::to_string(i) + "]"));
    }
    if (r.has("skipped")) {
      const nlohmann::json& skipped = r.raw("skipped");
      if (!skipped.is_array()) r.fail("skipped", "a list of {instance_type, reason} entries");
      for (std::size_t i = 0; i < skipped.size(); ++i) {
        ObjectReader s(skipped[i], f.string(), "$.skipped[" + std::to_string(i) + "]");
        c.skipped_.push_back({provider, s.string("instance_type"), s.string("reason")});
        s.finish();
      }
    }
    r.finish();
  }
  for (NodeSpec& n : c.instances_) {
    n.energy_sites = c.energy_sites_;
    if (n.prices.empty()) continue;  // owned hardware: no spot market, no provider's storage
    if (const SpotMarketFigures* f = c.spot_market(n.provider, n.gpus_per_node)) n.spot_market = *f;
    if (const ProviderStorage* p = c.storage_prices(n.provider)) n.storage = *p;
  }
  return c;
}

GpuSpec Catalog::gpu_at(ObjectReader& r, std::string_view key) const {
  const GpuSpec* spec = find_gpu(r.string(key));
  if (spec == nullptr) r.fail(key, "a GPU id from the catalog: " + gpu_ids_text());
  return *spec;
}

const GpuSpec* Catalog::find_gpu(const std::string& id) const {
  auto it = std::find_if(gpus_.begin(), gpus_.end(), [&](const GpuSpec& g) { return g.id == id; });
  return it == gpus_.end() ? nullptr : &*it;
}

const NodeSpec* Catalog::find_instance(const std::string& id) const {
  auto it = std::find_if(instances_.begin(), instances_.end(), [&](const NodeSpec& n) { return n.id == id; });
  return it == instances_.end() ? nullptr : &*it;
}

std::vector<std::string> Catalog::model_ids() const {
  std::vector<std::string> ids;
  if (!fs::is_directory(dir_ / "models")) return ids;
  for (const auto& e : fs::directory_iterator(dir_ / "models")) {
    if (e.path().extension() == ".json") ids.push_back(e.path().stem().string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool Catalog::has_model(const std::string& id) const {
  const std::vector<std::string> ids = model_ids();
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

CatalogModel Catalog::model(const std::string& id) const {
  if (!has_model(id)) throw InputError("", "model", "\"" + id + "\"", "a catalog model id: " + model_ids_text());
  const fs::path file = dir_ / "models" / (id + ".json");
  const nlohmann::json doc = io::parse_file(file);
  ObjectReader r(doc, file.string(), "$", ObjectReader::Keys::lenient);
  CatalogModel m{model_from_hf_config(doc, id, file.string(), "$"), r.string("source"), read_as_of(r)};
  return m;
}

std::string Catalog::gpu_ids_text() const {
  std::vector<std::string> ids;
  for (const GpuSpec& g : gpus_) ids.push_back(g.id);
  return joined(ids);
}

std::string Catalog::instance_ids_text() const {
  std::vector<std::string> ids;
  for (const NodeSpec& n : instances_) ids.push_back(n.id);
  return joined(ids);
}

std::string Catalog::model_ids_text() const { return joined(model_ids()); }

}  // namespace preflight
