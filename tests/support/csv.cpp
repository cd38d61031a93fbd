#include "support/csv.hpp"

#include "planner/io/csv_table.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace preflight::test {

std::vector<CsvRow> read_csv(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string() + " (the validation data lives in ../shared/validation)");
  std::vector<CsvRow> rows;
  for (io::CsvTableRow& row : io::read_csv_table(in, file.string())) rows.push_back(std::move(row.cells));
  return rows;
}

std::filesystem::path validation_file(const std::string& name) {
  return std::filesystem::path(PREFLIGHT_VALIDATION_DIR) / name;
}

}  // namespace preflight::test
