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

#include "simulator/spec/enum_names.hpp"

namespace preflight::validation {

class CsvRow {
 public:
  CsvRow(std::string file, int line, std::map<std::string, std::string> cells)
      : file_(std::move(file)), line_(line), cells_(std::move(cells)) {}
  const std::string& text(const std::string& column) const;
  double number(const std::string& column) const;
  std::int64_t integer(const std::string& column) const;
  bool empty(const std::string& column) const;  // the cell is missing or blank
  // One of an enum's words, else an InputError that lists them.
  template <class E, std::size_t N>
  E choice(const std::string& column, const EnumNames<E, N>& names) const {
    if (const std::optional<E> v = value_of(names, std::string_view(text(column)))) return *v;
    std::string allowed;
    for (const EnumName<E>& n : names) allowed += (allowed.empty() ? "" : ", ") + std::string(n.name);
    fail(column, "one of " + allowed);
  }
  int line() const { return line_; }
  const std::string& file() const { return file_; }
  // An InputError naming the file, the line, the column and its value, and what is allowed.
  [[noreturn]] void fail(const std::string& column, const std::string& allowed) const;

 private:
  std::string where(const std::string& column) const;  // "line N, column \"C\""
  std::string file_;
  int line_ = 0;
  std::map<std::string, std::string> cells_;
};

std::vector<CsvRow> read_validation_csv(const std::filesystem::path& file);

}  // namespace preflight::validation
