#pragma once
// A plain-text table with aligned columns for terminal output.

#include <string>
#include <vector>

namespace preflight {

class TextTable {
 public:
  enum class Align { left, right };

  explicit TextTable(std::vector<std::string> header, std::vector<Align> align = {});
  void add_row(std::vector<std::string> cells);
  std::string render(const std::string& indent = "") const;

 private:
  std::vector<std::string> header_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

std::string gib(double bytes);                 // "12.55 GiB"
std::string percent(double fraction, int decimals = 0);  // "+33%"
std::string fixed(double value, int decimals);
std::string csv_cell(const std::string& text);  // quoted (RFC 4180) when it holds a comma, quote or newline
// Text for Markdown (table cells, list items): table pipes and emphasis, code and link marks escaped, newlines as spaces.
std::string markdown_text(const std::string& text);

}  // namespace preflight
