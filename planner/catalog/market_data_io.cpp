#include "planner/catalog/market_data_io.hpp"

#include "planner/io/json_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

using io::ObjectReader;

std::optional<StorageOffer> read_offer(ObjectReader& parent, std::string_view key) {
  if (!parent.has(key)) parent.fail(key, "a storage offer or null (required)");
  if (parent.raw(key).is_null()) return std::nullopt;
  ObjectReader r = parent.object(key);
  StorageOffer o;
  o.name = r.string("name");
  o.usd_per_gb_month = r.number("usd_per_GB_month", {1e-4, 10.0, false, "USD per GB-month"});
  o.minimum_gb = r.number("minimum_GB", {0.0, 1e7, false, "GB"});
  o.source = r.string("source");
  o.as_of = r.string("as_of");
  r.finish();
  return o;
}

// {value, low, high}; the reclaim fraction also says how many traces it came from.
FigureRange read_range(ObjectReader& parent, std::string_view key, const io::NumberRule& rule, bool counted = false) {
  ObjectReader r = parent.object(key);
  FigureRange f{r.number("value", rule), r.number("low", rule), r.number("high", rule)};
  if (!(f.low <= f.value && f.value <= f.high)) r.fail("value", "low <= value <= high");
  if (counted) r.integer("traces", 1, 100000);
  r.finish();
  return f;
}

std::string class_key(const std::string& provider, const std::string& count) { return provider + " " + count; }

std::string class_words(const std::string& key) {
  const std::size_t space = key.find(' ');
  return key.substr(0, space) + (key.substr(space + 1) == "one" ? " one-GPU nodes" : " multi-GPU nodes");
}

}  // namespace

std::map<std::string, ProviderStorage> read_storage_prices(const std::filesystem::path& file) {
  const nlohmann::json doc = io::parse_file(file);
  ObjectReader top(doc, file.string(), "$");
  top.optional_string("notes");
  const nlohmann::json& list = top.raw("providers");
  if (!list.is_array()) top.fail("providers", "a list of providers' storage prices");
  std::map<std::string, ProviderStorage> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    ObjectReader r(list[i], file.string(), "$.providers[" + std::to_string(i) + "]");
    ProviderStorage p;
    p.provider = r.string("provider");
    p.object_store = read_offer(r, "object_store");
    p.network_fs = read_offer(r, "network_fs");
    ObjectReader e = r.object("egress");
    const nlohmann::json& tiers = e.raw("tiers");
    if (!tiers.is_array() || tiers.empty()) e.fail("tiers", "a non-empty list of {up_to_GB, usd_per_GB}, the last without an end");
    for (std::size_t t = 0; t < tiers.size(); ++t) {
      ObjectReader tier(tiers[t], file.string(), e.path_of("tiers") + "[" + std::to_string(t) + "]");
      EgressTier et;
      const bool last = t + 1 == tiers.size();
      if (!tier.has("up_to_GB") || tier.raw("up_to_GB").is_null() != last) {
        tier.fail("up_to_GB", last ? "null (the last tier has no end)" : "the volume in GB this tier ends at");
      }
      if (!last) {
        et.up_to_gb = tier.number("up_to_GB", {1.0, 1e9, false, "GB"});
        if (!p.egress.empty() && p.egress.back().up_to_gb && *et.up_to_gb <= *p.egress.back().up_to_gb) {
          tier.fail("up_to_GB", "more than the previous tier's end");
        }
      }
      et.usd_per_gb = tier.number("usd_per_GB", {0.0, 10.0, false, "USD per GB"});
      tier.finish();
      p.egress.push_back(et);
    }
    p.egress_source = e.string("source");
    p.egress_as_of = e.string("as_of");
    e.finish();
    r.finish();
    out[p.provider] = std::move(p);
  }
  top.finish();
  return out;
}

const SpotMarketFigures* SpotMarketTable::find(const std::string& provider, int gpus_per_node) const {
  const std::string count = gpus_per_node == 1 ? "one" : "multi";
  auto it = classes.find(class_key(provider, count));
  // A provider without a class of its own runs on the table's prior for every other provider ("*").
  if (it == classes.end()) it = classes.find(class_key("*", count));
  return it == classes.end() ? nullptr : &it->second;
}

SpotMarketTable read_spot_market(const std::filesystem::path& file) {
  const nlohmann::json doc = io::parse_file(file);
  ObjectReader top(doc, file.string(), "$");
  const std::string source = top.string("source");
  const std::string as_of = top.string("as_of");
  const io::NumberRule fraction{0.0, 1.0};
  const FigureRange reclaim = read_range(top, "reclaim_fraction", fraction, true);
  const nlohmann::json& list = top.raw("classes");
  if (!list.is_array()) top.fail("classes", "a list of machine classes");
  SpotMarketTable table;
  std::map<std::string, std::pair<std::string, std::string>> borrowed;  // key -> (from, why)
  for (std::size_t i = 0; i < list.size(); ++i) {
    ObjectReader r(list[i], file.string(), "$.classes[" + std::to_string(i) + "]");
    const std::string provider = r.string("provider");
    const std::string count = r.choice("gpus_per_node", {"one", "multi"});
    const std::string key = class_key(provider, count);
    if (r.has("borrowed_from")) {
      borrowed[key] = {r.string("borrowed_from"), r.string("why")};
      r.finish();
      continue;
    }
    SpotMarketFigures f;
    f.prior = r.optional_boolean("prior").value_or(false);
    if (f.prior) f.prior_why = r.string("why");
    f.interruptions_per_node_hour = read_range(r, "interruptions_per_node_hour", {0.0, 100.0, false, "per node-hour"});
    const std::int64_t traces = r.integer("rate_traces", 1, 100000);
    f.reacquire_hours = read_range(r, "reacquire_hours", {0.0, 1000.0, false, "hours"});
    const std::int64_t reacquire_traces = r.integer("reacquire_traces", 0, 100000);
    std::string reacquire_note;
    if (r.has("reacquire_borrowed_from")) reacquire_note = ", re-acquire time as " + class_words(r.string("reacquire_borrowed_from"));
    if (reacquire_traces == 0 && reacquire_note.empty()) r.fail("reacquire_traces", "at least 1, or reacquire_borrowed_from");
    f.max_nodes_observed = static_cast<int>(r.integer("max_nodes_observed", 1, 100000000));
    f.reclaim_fraction = reclaim;
    f.basis = f.prior ? "every GPU trace pooled (" + std::to_string(traces) + " traces), " + f.prior_why
                      : class_words(key) + ", " + std::to_string(traces) + " trace" + (traces == 1 ? "" : "s") + reacquire_note;
    f.source = source;
    f.as_of = as_of;
    r.finish();
    table.classes[key] = f;
  }
  for (const auto& [key, from] : borrowed) {
    const auto it = table.classes.find(class_key(from.first.substr(0, from.first.find(' ')), from.first.substr(from.first.find(' ') + 1)));
    if (it == table.classes.end()) {
      throw InputError(file.string(), "$.classes", "\"" + from.first + "\"", "a class with figures of its own to borrow from");
    }
    SpotMarketFigures f = it->second;
    f.basis = "as " + f.basis + " (" + from.second + ")";
    table.classes[key] = f;
  }
  top.finish();
  return table;
}

}  // namespace preflight
