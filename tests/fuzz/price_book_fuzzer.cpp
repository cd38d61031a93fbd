// The price-book reader (`prices.book`, planner/catalog/price_book.hpp): one input is the book's JSON,
// read against the bundled catalog. When it reads, the rate every rentable machine of the catalog would
// pay under it is worked out (book_price, for its own region and for any), as a plan does: a book
// either reads whole and prices, or is refused with a typed error naming the file.

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "planner/catalog/price_book.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  bundled_catalog();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  const std::string file = write_file(scratch_dir() / "book.json", input).string();
  std::optional<PriceBook> book;
  if (!holds_contract("read_price_book_file", [&] { book.emplace(read_price_book_file(file, bundled_catalog())); }, one_of({file}))) {
    return 0;
  }
  holds_contract("book_price", [&] {
    for (const NodeSpec& n : bundled_catalog().instances()) {
      for (const std::string& region : {std::string(), n.prices.empty() ? std::string() : n.prices.front().region}) {
        if (const std::optional<BookPrice> p = book_price(*book, n, region, 1); p && !(p->usd_per_node_hour > 0.0)) std::abort();
        // A capacity block names at least one span, and the span bought covers the hours asked.
        if (const std::optional<BookPrice> p = book_price(*book, n, region, 1, true); p) {
          if (!(p->usd_per_node_hour > 0.0) || !p->rate->block || p->rate->block->durations_hours.empty()) std::abort();
          if (const std::optional<double> span = block_duration(*p->rate->block, 30.0); span && *span < 30.0) std::abort();
        }
      }
    }
  }, one_of({file}));
  return 0;
}
