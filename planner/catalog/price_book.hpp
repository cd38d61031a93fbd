#pragma once
// A team's own rates (`prices.book` in a scenario): what it really pays per machine or per GPU under
// its reserved instances, committed-use or savings-plan contracts, negotiated on-demand rates and
// credits, beside the public list prices of the catalog. A book rate is not interrupted: an
// on-demand config (and a spot plan's on-demand fallback) pays the lowest rate of the book that
// applies to its machine when it is below the list price, and every format names the term it used.
//
//   { "name": "...", "source": "...", "as_of": "YYYY-MM-DD",
//     "rates": [ { "instance": "aws/p5.48xlarge", "term": "reserved_1y", "usd_per_hour": 43.16, "region": "us-east-1", "nodes": 2 },
//                { "gpu": "h100-80gb", "provider": "lambda", "term": "committed", "usd_per_hour": 2.49 } ] }
//
// An instance row's usd_per_hour is per machine-hour; a gpu row's per GPU-hour (of every machine
// with that GPU, at the provider and in the region when given). A capacity_block row also names the
// spans sold (`durations_hours`), how far ahead a block is bought (`lead_days`) and, optionally, the
// sizes sold (`node_counts`, as AWS sells 1-64 instances in powers of two): a plan on it is billed for
// the whole block (capacity_block.hpp).
//   { "instance": "aws/p5.48xlarge", "term": "capacity_block", "usd_per_hour": 31.46, "region": "us-east-1",
//     "durations_hours": [24, 48, 72, 96, 120, 144, 168, 336], "lead_days": 2, "node_counts": [1, 2, 4, 8, 16, 32, 64] }

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/economics/capacity_block.hpp"
#include "simulator/spec/node_spec.hpp"

namespace preflight {

class Catalog;

struct BookRate {
  std::string instance;  // a catalog instance id, or empty for a gpu row
  std::string gpu;       // a catalog GPU id (gpu rows)
  std::string provider;  // gpu rows: only this provider's machines (empty: any)
  std::string region;    // only quotes of this region (empty: any)
  std::string term;      // on_demand | reserved_1y | reserved_3y | committed | capacity_block | credits
  double usd_per_hour = 0.0;
  // The machines the term covers (a reservation of 2 instances; 0: as many as the job needs): a job
  // on more nodes does not get the rate. A capacity block's sizes are its terms' node_counts.
  int nodes = 0;
  std::optional<CapacityBlockTerms> block;  // term capacity_block
};

struct PriceBook {
  std::string file;
  std::string name;
  std::string source;
  std::string as_of;
  std::vector<BookRate> rates;
};

// The book's lowest rate for a machine in `region` (rows of any region where empty), per
// machine-hour, with the row it comes from; empty when no row applies. Capacity blocks (billed
// whole, so not comparable by the hour) are looked up apart: `blocks` true reads only them, false
// every other row.
struct BookPrice {
  double usd_per_node_hour = 0.0;
  const BookRate* rate = nullptr;
};
// `nodes`: the job's node count (rows covering fewer machines do not apply; 0: any count).
std::optional<BookPrice> book_price(const PriceBook& book, const NodeSpec& node, const std::string& region, int nodes,
                                    bool blocks = false);

// Throws InputError naming the file, the JSON path, the value and what is allowed.
PriceBook read_price_book(const nlohmann::json& doc, const std::string& file, const Catalog& catalog);
PriceBook read_price_book_file(const std::filesystem::path& file, const Catalog& catalog);

}  // namespace preflight
