#pragma once
// The published-measurement CSV files (../shared/validation): '#' lines are provenance comments, the
// first other line the header (vTrain's files put their header in the last comment line instead).
// A row is its cells by column name; a cell that is missing or not a number where one is needed is
// an InputError naming the file, the line, the column and the value.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace preflight::validation {

class CsvRow {
 public:
  CsvRow(std::string file, int line, std::map<std::string, std::string> cells)
      : file_(std::move(file)), line_(line), cells_(std::move(cells)) {}
  const std::string& text(const std::string& column) const;
  double number(const std::string& column) const;
  std::int64_t integer(const std::string& column) const;
  int line() const { return line_; }

 private:
  std::string file_;
  int line_ = 0;
  std::map<std::string, std::string> cells_;
};

std::vector<CsvRow> read_validation_csv(const std::filesystem::path& file);

}  // namespace preflight::validation
