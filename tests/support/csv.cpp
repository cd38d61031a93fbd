#include "support/csv.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace preflight::test {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

}  // namespace

std::vector<CsvRow> read_csv(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string() + " (the validation data lives in ../shared/validation)");
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
  std::string line, last_comment;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line.front() == '#') {
      last_comment = line;
      continue;
    }
    const std::vector<std::string> cells = split(line);
    if (header.empty()) {
      // vTrain's files put the header in the comment line itself ("# GPUs,global batch,...").
      const bool numeric = std::isdigit(static_cast<unsigned char>(line.front())) != 0;
      if (!numeric) {
        header = cells;
        continue;
      }
      header = split(last_comment.substr(last_comment.find_first_not_of("# ")));
      header.front() = "# " + header.front();
    }
    CsvRow row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = i < cells.size() ? cells[i] : "";
    rows.push_back(row);
  }
  return rows;
}

std::filesystem::path validation_file(const std::string& name) {
  return std::filesystem::path(PREFLIGHT_VALIDATION_DIR) / name;
}

}  // namespace preflight::test
