#include "support/vtrain_tables.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "support/csv.hpp"

namespace preflight::test {

// nccl-tests' CSV: size(B),count,type,time(ns),busbw(GB/s) out of place, then the in-place columns.
CollectiveTable vtrain_allreduce_table(int ranks) {
  const std::filesystem::path file = validation_file("vtrain/allreduce_a100_" + std::to_string(ranks) + "gpu.csv");
  std::ifstream in(file);
  if (!in)
    throw std::runtime_error("cannot read " + file.string() + " (the validation data lives in ../shared/validation)");
  CollectiveTable t;
  t.op = CollectiveOp::all_reduce;
  t.ranks = ranks;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || !std::isdigit(static_cast<unsigned char>(line.front()))) continue;  // the header
    std::stringstream cells(line);
    std::string size, count, type, time_ns;
    std::getline(cells, size, ',');
    std::getline(cells, count, ',');
    std::getline(cells, type, ',');
    std::getline(cells, time_ns, ',');
    t.points.emplace_back(std::stod(size), std::stod(time_ns) * 1e-9);
  }
  return t;
}

const std::vector<CollectiveTable>& vtrain_allreduce_tables() {
  static const std::vector<CollectiveTable> tables = [] {
    std::vector<CollectiveTable> t;
    for (int ranks = 2; ranks <= 8; ++ranks) t.push_back(vtrain_allreduce_table(ranks));
    return t;
  }();
  return tables;
}

CalibrationProfile vtrain_allreduce_profile() {
  CalibrationProfile profile;
  profile.machine = {"a100-80gb", 8, "", "", "", ""};
  profile.measured_at = "2024";
  profile.source = "vTrain allreduce_a100_*gpu.csv (nccl-tests, out-of-place)";
  profile.collectives = vtrain_allreduce_tables();
  return profile;
}

}  // namespace preflight::test
