#include "planner/report/text_table.hpp"
#include "simulator/memory/memory_defaults.hpp"

#include <algorithm>
#include <cstdio>

namespace preflight {

TextTable::TextTable(std::vector<std::string> header, std::vector<Align> align)
    : header_(std::move(header)), align_(std::move(align)) {
  align_.resize(header_.size(), Align::left);
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(const std::string& indent) const {
  std::vector<std::size_t> width(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) {
    width[c] = header_[c].size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      out += align_[c] == Align::right ? pad + cells[c] : cells[c] + (c + 1 == cells.size() ? "" : pad);
      if (c + 1 < cells.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string gib(double bytes) { return fixed(bytes / memory_defaults::kGiB, 2) + " GiB"; }

std::string percent(double fraction, int decimals) {
  return (fraction >= 0.0 ? "+" : "") + fixed(fraction * 100.0, decimals) + "%";
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string markdown_text(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|' || ch == '*' || ch == '_' || ch == '`' || ch == '<' || ch == '>' || ch == '[' || ch == ']') out += '\\';
    out += ch == '\n' ? ' ' : ch;
  }
  return out;
}

}  // namespace preflight
