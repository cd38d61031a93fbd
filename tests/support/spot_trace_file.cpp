#include "support/spot_trace_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace preflight::test {

SpotTrace bamboo_trace(const std::string& path) {
  const std::filesystem::path file = std::filesystem::path(PREFLIGHT_VALIDATION_DIR) / ".." / "spot_traces" / path;
  std::ifstream in(file);
  if (!in)
    throw std::runtime_error("cannot read " + file.string() + " (the spot traces live in ../shared/spot_traces)");
  std::vector<FleetChange> changes;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    std::stringstream cells(line);
    std::string ms, action, node;
    std::getline(cells, ms, ',');
    std::getline(cells, action, ',');
    std::getline(cells, node, ',');
    if (action != "add" && action != "remove") throw std::runtime_error(file.string() + ": not a Bamboo line: " + line);
    const double hours = std::stod(ms) / 3.6e6;
    const int added = action == "add" ? 1 : 0;
    const int removed = action == "remove" ? 1 : 0;
    // Changes at the same moment are one event (the trace lists simultaneous removals line by line).
    if (!changes.empty() && changes.back().hours == hours) {
      changes.back().added += added;
      changes.back().removed += removed;
    } else {
      changes.push_back({hours, added, removed});
    }
  }
  return build_trace(file.stem().string(), changes);
}

}  // namespace preflight::test
