#include "planner/run/book_choice.hpp"

#include "planner/run/block_purchase.hpp"
#include "planner/text/number_text.hpp"

namespace preflight {

namespace {

std::string spans_text(const CapacityBlockTerms& t) {
  const std::vector<double>& d = t.durations_hours;
  return d.size() == 1 ? hours_text(d.front()) + " h" : hours_text(d.front()) + "-" + hours_text(d.back()) + " h";
}

}  // namespace

std::optional<PriceChoice> book_choice(const PriceBook& book, const NodeSpec& node, const std::vector<std::string>& regions, int nodes,
                                       bool blocks, const std::optional<PriceChoice>& list) {
  std::optional<PriceChoice> best;
  for (const std::string& region : regions.empty() ? std::vector<std::string>{""} : regions) {
    const std::optional<BookPrice> rate = book_price(book, node, region, nodes, blocks);
    if (!rate || (best && rate->usd_per_node_hour >= best->usd_per_node_hour)) continue;
    const BookRate& row = *rate->rate;
    PriceChoice c;
    c.usd_per_node_hour = rate->usd_per_node_hour;
    c.region = !row.region.empty() ? row.region : list ? list->region : region;
    c.term = row.term;
    c.block = row.block;
    c.basis = "your " + c.term + " rate from the price book \"" + book.name + "\"" +
              (row.instance.empty() ? " ($" + fixed(row.usd_per_hour, 4) + " per " + node.gpu.id + " GPU-hour)" : "") +
              (row.block ? ": blocks of " + spans_text(*row.block) + ", " + block_lead_text(row.block->lead_hours) + ", billed whole" : "") +
              (list ? ", against the list's " + usd_text(list->usd_per_node_hour) + "/h" + (row.block ? " on demand" : "")
               : row.block ? "" : ", which the list does not sell on demand");
    c.as_of = book.as_of;
    c.source = book.source + " (" + book.file + ")";
    c.quotes = 1;
    c.low_usd_per_node_hour = c.high_usd_per_node_hour = c.usd_per_node_hour;
    best = c;
  }
  return best;
}

}  // namespace preflight
