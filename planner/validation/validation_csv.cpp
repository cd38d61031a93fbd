#include "planner/validation/validation_csv.hpp"

#include "planner/io/csv_table.hpp"

#include <charconv>
#include <sstream>

#include "planner/io/input_file.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::validation {

const std::string& CsvRow::text(const std::string& column) const {
  const auto it = cells_.find(column);
  if (it == cells_.end() || it->second.empty()) {
    throw InputError(file_, where(column), "nothing", "a value");
  }
  return it->second;
}

double CsvRow::number(const std::string& column) const {
  const std::string& s = text(column);
  double v = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !(v > 0.0)) {
    fail(column, "a positive number");
  }
  return v;
}

std::int64_t CsvRow::integer(const std::string& column) const {
  const std::string& s = text(column);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1) {
    fail(column, "a positive integer");
  }
  return v;
}

bool CsvRow::empty(const std::string& column) const {
  const auto it = cells_.find(column);
  return it == cells_.end() || it->second.empty();
}

void CsvRow::fail(const std::string& column, const std::string& allowed) const {
  throw InputError(file_, where(column), "\"" + text(column) + "\"", allowed);
}

std::string CsvRow::where(const std::string& column) const {
  return "line " + std::to_string(line_) + ", column \"" + column + "\"";
}

std::vector<CsvRow> read_validation_csv(const std::filesystem::path& file) {
  std::istringstream in(io::read_input_file(file, "a validation CSV file"));
  std::vector<CsvRow> rows;
  for (io::CsvTableRow& row : io::read_csv_table(in, file.string())) rows.emplace_back(file.string(), row.line, std::move(row.cells));
  return rows;
}

}  // namespace preflight::validation
