#include "planner/catalog/price_book.hpp"

#include "planner/catalog/catalog.hpp"
#include "planner/catalog/price_age.hpp"
#include "planner/io/json_reader.hpp"

namespace preflight {

namespace {

using io::ObjectReader;

// A year and a day: the longest span any provider sells a block for (AWS: up to 182 days).
constexpr double kMaxBlockHours = 8784.0;
constexpr std::size_t kMaxListed = 64;

// A list of 1 to kMaxListed numbers in [min, max], strictly ascending (whole numbers when `whole`).
std::vector<double> ascending_list(ObjectReader& r, std::string_view key, double min, double max, bool whole,
                                   const std::string& what) {
  const nlohmann::json& list = r.raw(key);
  std::vector<double> out;
  const bool sized = list.is_array() && !list.empty() && list.size() <= kMaxListed;
  for (std::size_t i = 0; sized && i < list.size(); ++i) {
    const nlohmann::json& v = list[i];
    if (!v.is_number() || (whole && !v.is_number_integer())) break;
    const double x = v.get<double>();
    if (!(x >= min && x <= max) || (!out.empty() && x <= out.back())) break;
    out.push_back(x);
  }
  if (!sized || out.size() != list.size()) {
    r.fail(key, "a list of 1 to " + std::to_string(kMaxListed) + " " + what + ", strictly ascending, each from " +
                    std::to_string(static_cast<long long>(min)) + " to " + std::to_string(static_cast<long long>(max)));
  }
  return out;
}

BookRate read_rate(const nlohmann::json& j, const std::string& file, const std::string& path, const Catalog& catalog) {
  ObjectReader r(j, file, path);
  BookRate b;
  if (r.has("instance") == r.has("gpu")) r.fail("instance", "exactly one of \"instance\" (a catalog instance id) or \"gpu\" (a catalog GPU id)");
  if (r.has("instance")) {
    b.instance = r.string("instance");
    if (catalog.find_instance(b.instance) == nullptr) r.fail("instance", "a catalog instance id (see `preflight catalog instances`)");
    if (r.has("provider")) r.fail("provider", "no provider beside an instance (its id names it)");
  } else {
    b.gpu = r.string("gpu");
    if (catalog.find_gpu(b.gpu) == nullptr) r.fail("gpu", "a GPU id from the catalog: " + catalog.gpu_ids_text());
    b.provider = r.optional_string("provider").value_or("");
  }
  b.region = r.optional_string("region").value_or("");
  b.term = r.choice("term", {"on_demand", "reserved_1y", "reserved_3y", "committed", "capacity_block", "credits"});
  if (b.term == "capacity_block") {
    CapacityBlockTerms t;
    t.durations_hours = ascending_list(r, "durations_hours", 1.0, kMaxBlockHours, false, "hours (the spans sold)");
    t.lead_hours = 24.0 * r.number("lead_days", {0.0, 365.0, false, "days"});
    if (r.has("node_counts")) {
      for (double n : ascending_list(r, "node_counts", 1.0, 100000.0, true, "whole node counts (the sizes sold)")) {
        t.node_counts.push_back(static_cast<int>(n));
      }
    }
    b.block = std::move(t);
    if (r.has("nodes")) r.fail("nodes", "nothing on a capacity_block row: its node_counts are the sizes sold");
  } else {
    b.nodes = static_cast<int>(r.optional_integer("nodes", 1, 100000).value_or(0));
    for (const char* key : {"durations_hours", "lead_days", "node_counts"}) {
      if (r.has(key)) r.fail(key, "nothing: only a capacity_block row names its spans, lead and sizes");
    }
  }
  b.usd_per_hour = r.number("usd_per_hour", {1e-4, 1e5, false, b.gpu.empty() ? "USD per machine-hour" : "USD per GPU-hour"});
  r.finish();
  return b;
}

bool applies(const BookRate& b, const NodeSpec& node, const std::string& region, int nodes) {
  if (!region.empty() && !b.region.empty() && b.region != region) return false;
  if (b.nodes > 0 && nodes > b.nodes) return false;
  if (!b.instance.empty()) return b.instance == node.id;
  return b.gpu == node.gpu.id && (b.provider.empty() || b.provider == node.provider);
}

}  // namespace

std::optional<BookPrice> book_price(const PriceBook& book, const NodeSpec& node, const std::string& region, int nodes,
                                    bool blocks) {
  std::optional<BookPrice> best;
  for (const BookRate& b : book.rates) {
    if (b.block.has_value() != blocks || !applies(b, node, region, nodes)) continue;
    const double usd = b.instance.empty() ? b.usd_per_hour * node.gpus_per_node : b.usd_per_hour;
    if (!best || usd < best->usd_per_node_hour) best = BookPrice{usd, &b};
  }
  return best;
}

PriceBook read_price_book(const nlohmann::json& doc, const std::string& file, const Catalog& catalog) {
  ObjectReader r(doc, file, "$");
  PriceBook book;
  book.file = file;
  book.name = r.string("name");
  if (!io::is_one_printable_line(book.name)) r.fail("name", "one line of printable text");
  book.source = r.string("source");
  book.as_of = r.string("as_of");
  if (!is_catalog_date(book.as_of)) r.fail("as_of", "a date YYYY-MM-DD or YYYY-MM");
  const nlohmann::json& rates = r.raw("rates");
  if (!rates.is_array() || rates.empty()) r.fail("rates", "a non-empty list of rates");
  for (std::size_t i = 0; i < rates.size(); ++i) {
    book.rates.push_back(read_rate(rates[i], file, "$.rates[" + std::to_string(i) + "]", catalog));
  }
  r.finish();
  return book;
}

PriceBook read_price_book_file(const std::filesystem::path& file, const Catalog& catalog) {
  return read_price_book(io::parse_file(file), file.string(), catalog);
}

}  // namespace preflight
