#include "planner/io/spot_trace_reader.hpp"

#include <charconv>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/io/input_file.hpp"
#include "planner/io/json_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::io {

namespace {

constexpr double kMsPerHour = 3.6e6;
// Bounds of what a real trace holds: times within 100 years of its start (in ms), fleets of at most
// a million instances. Beyond them a value is a corrupt line, not a trace.
constexpr std::int64_t kMaxTraceMs = 100LL * 365 * 24 * 3600 * 1000;
constexpr std::int64_t kMaxFleet = 1'000'000;
// Removals in the whole trace: a thousand times the largest fleet, far above any published trace
// (hundreds), and what keeps the trace's counts (int) exact however its lines add up.
constexpr std::int64_t kMaxRemovals = 1000 * kMaxFleet;

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// Quotes at most the first 40 bytes of the line (whatever file was named, it is not echoed whole),
// cut at a character boundary; InputError escapes control characters.
[[noreturn]] void bad_line(const std::filesystem::path& file, std::size_t line, const std::string& text,
                           const std::string& allowed) {
  std::size_t end = std::min<std::size_t>(text.size(), 40);
  while (end > 0 && end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  throw InputError(file.string(), "line " + std::to_string(line),
                   "\"" + text.substr(0, end) + (end < text.size() ? "...\"" : "\""), allowed);
}

// A whole decimal integer from 0 to `max`, nothing else (no sign, fraction, exponent, hex, nan, inf).
std::optional<std::int64_t> whole_number(const std::string& text, std::int64_t max) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0 || value > max) return std::nullopt;
  return value;
}

// Folds changes at the same moment into one (the traces list simultaneous removals line by line);
// why a change cannot be taken, empty when it is: earlier than the last (the formats are in time
// order), or more than a fleet's worth of nodes added or removed at one moment (gcloud counts that
// go up and down at the same time add up).
std::string push(std::vector<FleetChange>& changes, double hours, int added, int removed) {
  if (!changes.empty() && hours < changes.back().hours) return "lines in time order";
  const bool same_moment = !changes.empty() && changes.back().hours == hours;
  const std::int64_t added_then = static_cast<std::int64_t>(added) + (same_moment ? changes.back().added : 0);
  const std::int64_t removed_then = static_cast<std::int64_t>(removed) + (same_moment ? changes.back().removed : 0);
  if (added_then > kMaxFleet || removed_then > kMaxFleet) {
    return "at most " + std::to_string(kMaxFleet) + " nodes added and " + std::to_string(kMaxFleet) +
           " removed at one moment";
  }
  if (same_moment) {
    changes.back().added = static_cast<int>(added_then);
    changes.back().removed = static_cast<int>(removed_then);
  } else {
    changes.push_back({hours, added, removed});
  }
  return {};
}

// Hours since the civil epoch, for `YYYY-MM-DD, HH:MM:SS` with every field in its calendar range.
double gcloud_hours(const std::string& date, const std::string& time) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char extra = 0;
  if (std::sscanf(date.c_str(), "%4d-%2d-%2d%c", &y, &mo, &d, &extra) != 3 ||
      std::sscanf(time.c_str(), "%2d:%2d:%2d%c", &h, &mi, &s, &extra) != 3) {
    return -1.0;
  }
  if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60) {
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
  std::istringstream in(read_input_file(file, "a spot trace (Bamboo, gcloud counts or Parcae)"));
  std::vector<FleetChange> changes;
  std::string line;
  std::size_t number = 0;
  int last_count = -1;
  std::int64_t removals = 0;
  // Takes one line's change, or names why the line cannot be taken.
  const auto take = [&](double hours, int added, int removed) {
    if (const std::string problem = push(changes, hours, added, removed); !problem.empty()) bad_line(file, number, line, problem);
    removals += removed;
    if (removals > kMaxRemovals) bad_line(file, number, line, "a trace of at most " + std::to_string(kMaxRemovals) + " removals");
  };
  while (std::getline(in, line)) {
    ++number;
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {  // Parcae
      const char* parcae = "a JSON array [time_ms, \"add\"|\"remove\"|\"no-op\", {\"nodes\": [...]}], time_ms a whole number";
      nlohmann::json j;
      try {
        j = parse_json(line, file.string());
      } catch (const InputError&) {
        bad_line(file, number, line, parcae);
      }
      if (!j.is_array() || j.size() < 3 || !j[0].is_number_integer() || !j[1].is_string() || !j[2].is_object() ||
          !j[2].contains("nodes") || !j[2]["nodes"].is_array() || j[0].get<std::int64_t>() < 0 ||
          j[0].get<std::int64_t>() > kMaxTraceMs || j[2]["nodes"].size() > static_cast<std::size_t>(kMaxFleet)) {
        bad_line(file, number, line, parcae);
      }
      const int n = static_cast<int>(j[2]["nodes"].size());
      const std::string action = j[1].get<std::string>();
      take(static_cast<double>(j[0].get<std::int64_t>()) / kMsPerHour, action == "add" ? n : 0, action == "remove" ? n : 0);
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(trim(cell));
    if (cells.size() == 3 && (cells[1] == "add" || cells[1] == "remove")) {  // Bamboo
      const std::optional<std::int64_t> ms = whole_number(cells[0], kMaxTraceMs);
      if (!ms) bad_line(file, number, line, "time_ms,add|remove,node with time_ms a whole number of milliseconds");
      take(static_cast<double>(*ms) / kMsPerHour, cells[1] == "add" ? 1 : 0, cells[1] == "remove" ? 1 : 0);
      continue;
    }
    if (cells.size() == 3) {  // gcloud instance counts
      const double hours = gcloud_hours(cells[0], cells[1]);
      const std::optional<std::int64_t> count = whole_number(cells[2], kMaxFleet);
      if (hours < 0.0 || !count) {
        bad_line(file, number, line, "YYYY-MM-DD, HH:MM:SS, <running instances, a whole number up to 1000000>");
      }
      const int delta = last_count < 0 ? static_cast<int>(*count) : static_cast<int>(*count) - last_count;
      take(hours, delta > 0 ? delta : 0, delta < 0 ? -delta : 0);
      last_count = static_cast<int>(*count);
      continue;
    }
    bad_line(file, number, line, "a Bamboo (time_ms,add|remove,node), gcloud (date, time, count) or Parcae (JSON) line");
  }
  if (changes.empty()) throw InputError(file.string(), "", "no events", "a trace with at least one event");
  return build_trace(file.stem().string(), changes);
}

}  // namespace preflight::io
