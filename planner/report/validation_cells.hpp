#pragma once
// The cells `validate`'s tables share: errors as percentages (signed where a direction is meant) and a
// Markdown table row of escaped cells.

#include <string>
#include <vector>

#include "planner/text/markup_text.hpp"
#include "planner/text/number_text.hpp"

namespace preflight::validation_cells {

inline std::string signed_percent(double v) { return (v >= 0.0 ? "+" : "") + fixed(100.0 * v, 1) + "%"; }
inline std::string plain_percent(double v) { return fixed(100.0 * v, 1) + "%"; }

inline std::string markdown_row(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const std::string& c : cells) s += " " + markdown_text(c) + " |";
  return s + "\n";
}

}  // namespace preflight::validation_cells
