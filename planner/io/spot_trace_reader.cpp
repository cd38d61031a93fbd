#include "planner/io/spot_trace_reader.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/spec/errors.hpp"

namespace preflight::io {

namespace {

constexpr double kMsPerHour = 3.6e6;

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

[[noreturn]] void bad_line(const std::filesystem::path& file, std::size_t line, const std::string& text,
                           const std::string& allowed) {
  throw InputError(file.string(), "line " + std::to_string(line), "\"" + text.substr(0, 60) + "\"", allowed);
}

// Folds changes at the same moment into one (the traces list simultaneous removals line by line).
void push(std::vector<FleetChange>& changes, double hours, int added, int removed) {
  if (!changes.empty() && changes.back().hours == hours) {
    changes.back().added += added;
    changes.back().removed += removed;
  } else {
    changes.push_back({hours, added, removed});
  }
}

// Seconds since midnight of a day count, for `YYYY-MM-DD, HH:MM:SS`.
double gcloud_hours(const std::string& date, const std::string& time) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (std::sscanf(date.c_str(), "%d-%d-%d", &y, &mo, &d) != 3 || std::sscanf(time.c_str(), "%d:%d:%d", &h, &mi, &s) != 3) {
    return -1.0;
  }
  // Days from civil (Howard Hinnant's algorithm), so month and year boundaries are exact.
  y -= mo <= 2 ? 1 : 0;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const double days = era * 146097.0 + doe;
  return days * 24.0 + h + mi / 60.0 + s / 3600.0;
}

}  // namespace

SpotTrace read_spot_trace(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string(), "", "a file that cannot be read", "an existing spot trace file");
  std::vector<FleetChange> changes;
  std::string line;
  std::size_t number = 0;
  int last_count = -1;
  while (std::getline(in, line)) {
    ++number;
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {  // Parcae
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line);
      } catch (const nlohmann::json::parse_error&) {
        bad_line(file, number, line, "a JSON array [time_ms, \"add\"|\"remove\"|\"no-op\", {\"nodes\": [...]}]");
      }
      if (!j.is_array() || j.size() < 3 || !j[0].is_number() || !j[1].is_string() || !j[2].is_object() ||
          !j[2].contains("nodes") || !j[2]["nodes"].is_array()) {
        bad_line(file, number, line, "a JSON array [time_ms, \"add\"|\"remove\"|\"no-op\", {\"nodes\": [...]}]");
      }
      const int n = static_cast<int>(j[2]["nodes"].size());
      const std::string action = j[1].get<std::string>();
      push(changes, j[0].get<double>() / kMsPerHour, action == "add" ? n : 0, action == "remove" ? n : 0);
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(trim(cell));
    if (cells.size() == 3 && (cells[1] == "add" || cells[1] == "remove")) {  // Bamboo
      char* end = nullptr;
      const double ms = std::strtod(cells[0].c_str(), &end);
      if (end == cells[0].c_str() || *end != '\0' || ms < 0.0) bad_line(file, number, line, "time_ms,add|remove,node");
      push(changes, ms / kMsPerHour, cells[1] == "add" ? 1 : 0, cells[1] == "remove" ? 1 : 0);
      continue;
    }
    if (cells.size() == 3) {  // gcloud instance counts
      const double hours = gcloud_hours(cells[0], cells[1]);
      char* end = nullptr;
      const long count = std::strtol(cells[2].c_str(), &end, 10);
      if (hours < 0.0 || end == cells[2].c_str() || *end != '\0' || count < 0) {
        bad_line(file, number, line, "YYYY-MM-DD, HH:MM:SS, <running instances>");
      }
      const int delta = last_count < 0 ? static_cast<int>(count) : static_cast<int>(count) - last_count;
      push(changes, hours, delta > 0 ? delta : 0, delta < 0 ? -delta : 0);
      last_count = static_cast<int>(count);
      continue;
    }
    bad_line(file, number, line, "a Bamboo (time_ms,add|remove,node), gcloud (date, time, count) or Parcae (JSON) line");
  }
  if (changes.empty()) throw InputError(file.string(), "", "no events", "a trace with at least one event");
  return build_trace(file.stem().string(), changes);
}

}  // namespace preflight::io
