#pragma once
// The published tables' CSV form (../shared/validation): '#' lines are provenance comments, the
// first other line the header, unless it is already data, as in vTrain's files, whose header is the
// comment line just above ("# GPUs,global batch,..."). Cells may be quoted (measured_peaks.csv's
// notes hold commas); a trailing comma is a last, empty cell. Header-only: the tests' support reads the same tables
// without linking the planner.

#include <cctype>
#include <istream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "simulator/spec/errors.hpp"

namespace preflight::io {

// A cell that starts with a double quote runs to the closing quote, commas and all, and "" inside it
// is one quote (RFC 4180, on one line); an unclosed quote runs to the end of the line.
inline std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        cell += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"' && cell.empty()) {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(std::move(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  if (!line.empty()) cells.push_back(std::move(cell));
  return cells;
}

struct CsvTableRow {
  int line = 0;                               // in the file, from 1
  std::map<std::string, std::string> cells;   // by column name; "" where the line is short
};

// Throws InputError naming `file` for data before any header.
inline std::vector<CsvTableRow> read_csv_table(std::istream& in, const std::string& file) {
  std::vector<std::string> header;
  std::vector<CsvTableRow> rows;
  std::string line, last_comment;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line.front() == '#') {
      last_comment = line;
      continue;
    }
    const std::vector<std::string> cells = csv_cells(line);
    if (header.empty()) {
      if (std::isdigit(static_cast<unsigned char>(line.front())) == 0) {
        header = cells;
        continue;
      }
      // The header may be the last comment line ("# year,..."): one with names after its '#'.
      const std::size_t names = last_comment.find_first_not_of("# ");
      if (names == std::string::npos) throw InputError(file, "line " + std::to_string(number), "data before a header", "a header line");
      header = csv_cells(last_comment.substr(names));
      header.front() = "# " + header.front();
    }
    CsvTableRow row{number, {}};
    for (std::size_t i = 0; i < header.size(); ++i) row.cells[header[i]] = i < cells.size() ? cells[i] : "";
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace preflight::io
