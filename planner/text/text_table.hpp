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

}  // namespace preflight
