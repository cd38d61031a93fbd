#include "planner/report/catalog_report.hpp"

#include "simulator/economics/pricing.hpp"

#include <ostream>
#include <sstream>

#include "planner/text/number_text.hpp"
#include "planner/text/text_table.hpp"
#include "simulator/model/parameter_count.hpp"

namespace preflight {

namespace {

using Align = TextTable::Align;

std::string tflops(const std::optional<double>& v) { return v ? fixed(*v, 1) : "-"; }

std::string usd(const std::optional<double>& v) { return v ? fixed(*v, 4) : "-"; }

std::string link_name(IntraNodeLink l) { return std::string(name_of(kIntraNodeLinkNames, l)); }

template <typename Range, typename Getter>
std::optional<double> cheapest(const Range& prices, Getter get) {
  std::optional<double> best;
  for (const PriceQuote& q : prices) {
    const std::optional<double> v = get(q);
    if (v && (!best || *v < *best)) best = v;
  }
  return best;
}

nlohmann::ordered_json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

void list_gpus(const Catalog& c, bool json, std::ostream& out) {
  if (json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const GpuSpec& g : c.gpus()) {
      list.push_back({{"id", g.id}, {"name", g.name}, {"memory_bytes", g.memory_bytes},
                      {"memory_bandwidth_GBps", g.memory_bandwidth_bytes_per_second / 1e9},
                      {"peak_tflops", {{"fp32", optional_json(g.peak_tflops.fp32)}, {"tf32", optional_json(g.peak_tflops.tf32)},
                                       {"bf16", optional_json(g.peak_tflops.bf16)}, {"fp16", optional_json(g.peak_tflops.fp16)},
                                       {"fp8", optional_json(g.peak_tflops.fp8)}}},
                      {"source", g.source}, {"as_of", g.as_of}});
    }
    out << nlohmann::ordered_json{{"gpus", list}}.dump(2) << "\n";
    return;
  }
  TextTable t({"id", "memory", "HBM GB/s", "bf16", "fp16", "fp8", "tf32", "fp32", "as_of"},
              {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right,
               Align::right, Align::left});
  for (const GpuSpec& g : c.gpus()) {
    t.add_row({g.id, gib(g.memory_bytes), fixed(g.memory_bandwidth_bytes_per_second / 1e9, 0), tflops(g.peak_tflops.bf16),
               tflops(g.peak_tflops.fp16), tflops(g.peak_tflops.fp8), tflops(g.peak_tflops.tf32),
               tflops(g.peak_tflops.fp32), g.as_of});
  }
  out << t.render() << "peak dense TFLOP/s; '-' = not supported or not published\n";
}

// What a plan pays for spot by default (pricing.hpp): the median allowed zone, outliers left out.
std::optional<double> spot_median(const NodeSpec& n) {
  const std::optional<PriceChoice> p = choose_price(n, Pricing::spot, {});
  return p ? std::optional<double>(p->usd_per_node_hour) : std::nullopt;
}

bool matches(const NodeSpec& n, const InstanceFilter& f) {
  if (!f.gpu.empty() && n.gpu.id != f.gpu) return false;
  if (!f.provider.empty() && n.provider != f.provider) return false;
  if (f.region.empty() && f.pricing.empty() && !f.max_usd_per_hour) return true;
  const std::optional<double> usd = cheapest_matching_quote(n, f);
  return usd && (!f.max_usd_per_hour || *usd <= *f.max_usd_per_hour);
}

std::vector<const NodeSpec*> listed(const Catalog& c, const InstanceFilter& f) {
  std::vector<const NodeSpec*> out;
  for (const NodeSpec& n : c.instances()) {
    if (matches(n, f)) out.push_back(&n);
  }
  return out;
}

std::string offer_notes(const NodeSpec& n) {
  std::string notes;
  if (n.marketplace) notes = "marketplace";
  for (const std::string& key : n.assumed) notes += (notes.empty() ? "assumed " : ", assumed ") + key;
  return notes.empty() ? "-" : notes;
}

void list_instances(const Catalog& c, bool json, std::ostream& out, std::ostream& err, const InstanceFilter& filter) {
  const std::vector<const NodeSpec*> nodes = listed(c, filter);
  if (json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const NodeSpec* node : nodes) {
      const NodeSpec& n = *node;
      nlohmann::ordered_json prices = nlohmann::ordered_json::array();
      for (const PriceQuote& q : n.prices) {
        prices.push_back({{"region", q.region}, {"zone", q.zone.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(q.zone)},
                          {"on_demand_usd_per_hour", optional_json(q.on_demand_usd_per_hour)},
                          {"spot_usd_per_hour", optional_json(q.spot_usd_per_hour)}, {"spot_outlier", q.spot_outlier}});
      }
      list.push_back({{"id", n.id}, {"gpu", n.gpu.id}, {"gpus_per_node", n.gpus_per_node}, {"vcpus", n.vcpus},
                      {"host_memory_bytes", n.host_memory_bytes}, {"intra_node_link", link_name(n.intra_node_link)},
                      {"intra_node_GBps_per_gpu", n.intra_node_bytes_per_second_per_gpu / 1e9},
                      {"inter_node_Gbps", n.inter_node_bits_per_second / 1e9}, {"local_nvme_GB", n.local_nvme_bytes / 1e9},
                      {"interruption_bucket", n.interruption_bucket ? nlohmann::ordered_json(*n.interruption_bucket) : nlohmann::ordered_json(nullptr)},
                      {"offer", n.marketplace ? "marketplace" : "instance"}, {"assumed", n.assumed},
                      {"prices", prices}, {"warnings", n.warnings}, {"source", n.source}, {"as_of", n.as_of}});
    }
    nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
    for (const SkippedInstance& s : c.skipped()) {
      if (!filter.provider.empty() && s.provider != filter.provider) continue;
      skipped.push_back({{"provider", s.provider}, {"instance_type", s.instance_type}, {"reason", s.reason}});
    }
    out << nlohmann::ordered_json{{"instances", list}, {"skipped", skipped}}.dump(2) << "\n";
    return;
  }
  TextTable t({"id", "GPUs", "host", "link", "network", "on-demand $/h", "spot $/h (median)", "quotes", "warnings", "offer"},
              {Align::left, Align::left, Align::right, Align::left, Align::right, Align::right, Align::right,
               Align::right, Align::right, Align::left});
  for (const NodeSpec* node : nodes) {
    const NodeSpec& n = *node;
    t.add_row({n.id, std::to_string(n.gpus_per_node) + " x " + n.gpu.id, gib(n.host_memory_bytes),
               link_name(n.intra_node_link) + " " + fixed(n.intra_node_bytes_per_second_per_gpu / 1e9, 0) + " GB/s",
               fixed(n.inter_node_bits_per_second / 1e9, 0) + " Gb/s",
               usd(cheapest(n.prices, [](const PriceQuote& q) { return q.on_demand_usd_per_hour; })),
               usd(spot_median(n)),
               std::to_string(n.prices.size()), std::to_string(n.warnings.size()), offer_notes(n)});
  }
  out << t.render() << "on-demand: the cheapest region's list price; spot: the median zone quote (flagged outliers and "
                       "quotes at or above on-demand left out), what a plan is priced at by default; '-' = none listed; "
                       "offer: a marketplace of hosts' bids (searched only where search.instances names it), or what the provider "
                       "does not document (a link read as PCIe, a network read as none)\n";
  out << nodes.size() << " of " << c.instances().size() << " instance types\n";
  for (const NodeSpec* n : nodes) {
    for (const std::string& w : n->warnings) err << "warning: " << n->id << ": " << w << "\n";
  }
  for (const SkippedInstance& s : c.skipped()) {
    if (!filter.provider.empty() && s.provider != filter.provider) continue;
    err << "warning: skipped " << s.provider << "/" << s.instance_type << ": " << s.reason << "\n";
  }
}

void list_models(const Catalog& c, bool json, std::ostream& out) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  TextTable t({"id", "parameters", "active", "layers", "hidden", "heads/kv", "vocab", "max seq", "as_of"},
              {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right,
               Align::right, Align::left});
  for (const std::string& id : c.model_ids()) {
    const CatalogModel m = c.model(id);
    const ParameterCount p = count_parameters(m.spec);
    list.push_back({{"id", id}, {"parameters", p.total()}, {"active_parameters", p.active_per_token()},
                    {"layers", m.spec.layers}, {"hidden_size", m.spec.hidden}, {"heads", m.spec.heads},
                    {"kv_heads", m.spec.kv_heads}, {"vocab_size", m.spec.vocab}, {"max_seq_len", m.spec.max_seq_len},
                    {"source", m.source}, {"as_of", m.as_of}});
    t.add_row({id, fixed(static_cast<double>(p.total()) / 1e9, 3) + " B",
               fixed(static_cast<double>(p.active_per_token()) / 1e9, 3) + " B", std::to_string(m.spec.layers),
               std::to_string(m.spec.hidden), std::to_string(m.spec.heads) + "/" + std::to_string(m.spec.kv_heads),
               std::to_string(m.spec.vocab), std::to_string(m.spec.max_seq_len), m.as_of});
  }
  if (json) {
    out << nlohmann::ordered_json{{"models", list}}.dump(2) << "\n";
  } else {
    out << t.render();
  }
}

}  // namespace

std::optional<double> cheapest_matching_quote(const NodeSpec& node, const InstanceFilter& f) {
  std::optional<double> best;
  const auto consider = [&](const std::optional<double>& usd) {
    if (usd && (!best || *usd < *best)) best = usd;
  };
  for (const PriceQuote& q : node.prices) {
    if (!f.region.empty() && q.region != f.region) continue;
    if (f.pricing != "spot") consider(q.on_demand_usd_per_hour);
    if (f.pricing != "on_demand" && !q.spot_outlier) consider(q.spot_usd_per_hour);
  }
  return best;
}

std::string catalog_report(const Catalog& catalog, const std::string& what, bool json, std::ostream& warnings,
                           const InstanceFilter& filter) {
  std::ostringstream out;
  if (what == "gpus") list_gpus(catalog, json, out);
  if (what == "instances") list_instances(catalog, json, out, warnings, filter);
  if (what == "models") list_models(catalog, json, out);
  return out.str();
}

}  // namespace preflight
