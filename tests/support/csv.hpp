#pragma once
// Reads the validation CSV files: '#' lines are provenance comments, the first other line the header.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace preflight::test {

using CsvRow = std::map<std::string, std::string>;

std::vector<CsvRow> read_csv(const std::filesystem::path& file);

std::filesystem::path validation_file(const std::string& name);

}  // namespace preflight::test
