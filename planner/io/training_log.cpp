#include "planner/io/training_log.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/io/input_file.hpp"
#include "planner/io/json_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::io {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;
// Bounds of a plausible figure: a step of at most a day, at most 10^8 tokens per second per GPU, at
// most 10 TiB of device memory.
constexpr double kMaxStepSeconds = 86400.0;
constexpr double kMaxTokensPerSecond = 1e8;
constexpr double kMaxMemoryBytes = 10.0 * 1024.0 * kGiB;

const char* const kWhat =
    "a Megatron-LM iteration log, a torchtitan metrics log, or a Hugging Face trainer_state.json / Trainer log";

std::string quoted_prefix(std::string_view line) {
  std::string s(line.substr(0, 60));
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return "\"" + s + "\"";
}

// Text with ANSI colour codes (torchtitan colours its metrics) removed.
std::string without_escapes(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !(line[i] >= '@' && line[i] <= '~')) ++i;
      continue;
    }
    out += line[i];
  }
  return out;
}

struct Reader {
  std::string file;
  int line_number = 0;
  std::string_view line;

  [[noreturn]] void fail(const std::string& allowed) const {
    throw InputError(file, "line " + std::to_string(line_number), quoted_prefix(line), allowed);
  }

  // The number after `key` (spaces and commas of thousands allowed), or empty when the line lacks the key.
  std::optional<double> number_after(std::string_view key, double max, const std::string& what) const {
    const std::size_t at = line.find(key);
    if (at == std::string_view::npos) return std::nullopt;
    std::size_t i = at + key.size();
    while (i < line.size() && line[i] == ' ') ++i;
    std::string digits;
    for (; i < line.size() && (std::isdigit(static_cast<unsigned char>(line[i])) != 0 || line[i] == '.' || line[i] == ',' ||
                               line[i] == 'e' || line[i] == 'E' || line[i] == '+' || line[i] == '-');
         ++i) {
      if (line[i] != ',') digits += line[i];
      if (digits.size() > 40) break;
    }
    double v = 0.0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(v) || !(v > 0.0) || v > max) {
      fail(what + " after \"" + std::string(key) + "\": a positive number up to " + std::to_string(static_cast<long long>(max)));
    }
    return v;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The first timing is warm-up (compilation, allocator growth) when later ones follow.
double steady(std::vector<double> timings) {
  if (timings.size() >= 3) timings.erase(timings.begin());
  return median(std::move(timings));
}

double memory_unit(std::string_view rest) {
  std::size_t i = 0;
  while (i < rest.size() && rest[i] == ' ') ++i;
  const std::string_view unit = rest.substr(i, 3);
  if (unit.rfind("GiB", 0) == 0 || unit.rfind("GB", 0) == 0) return kGiB;
  if (unit.rfind("MiB", 0) == 0 || unit.rfind("MB", 0) == 0) return kMiB;
  if (unit.rfind("KiB", 0) == 0 || unit.rfind("KB", 0) == 0) return 1024.0;
  return 1.0;
}

void keep_peak(TrainingLog& log, double bytes, const std::string& kind) {
  if (!log.peak_memory_bytes || bytes > *log.peak_memory_bytes) {
    log.peak_memory_bytes = bytes;
    log.memory_kind = kind;
  }
}

TrainingLog trainer_state(const nlohmann::json& j, const std::string& file) {
  const nlohmann::json* history = j.contains("log_history") ? &j.at("log_history") : nullptr;
  if (history == nullptr || !history->is_array()) throw InputError(file, "$.log_history", "missing", "Trainer's list of logged entries");
  TrainingLog log;
  log.format = TrainingLogFormat::hf_trainer;
  for (std::size_t i = 0; i < history->size(); ++i) {
    const nlohmann::json& e = (*history)[i];
    if (!e.is_object() || !e.contains("train_steps_per_second")) continue;
    const nlohmann::json& v = e.at("train_steps_per_second");
    const double rate = v.is_number() ? v.get<double>() : 0.0;
    if (!std::isfinite(rate) || !(rate >= 1.0 / kMaxStepSeconds)) {
      throw InputError(file, "$.log_history[" + std::to_string(i) + "].train_steps_per_second", describe(v),
                       "a positive number of steps per second");
    }
    log.step_seconds = 1.0 / rate;
  }
  if (!log.step_seconds) {
    throw InputError(file, "$.log_history", "no entry with train_steps_per_second", "the summary Trainer logs when training ends");
  }
  return log;
}

}  // namespace

std::string to_string(TrainingLogFormat f) {
  switch (f) {
    case TrainingLogFormat::megatron: return "megatron";
    case TrainingLogFormat::torchtitan: return "torchtitan";
    case TrainingLogFormat::hf_trainer: return "hf-trainer";
  }
  return "unknown";
}

TrainingLog read_training_log(const std::filesystem::path& path) {
  const std::string file = path.string();
  const std::string text = read_input_file(path, "a training log");
  // trainer_state.json is a JSON object ({ then a quoted key); Trainer's printed summary is a Python
  // dict ({'train_runtime': ...}) on a line of text.
  const std::size_t first = text.find_first_not_of(" \t\r\n\xef\xbb\xbf");
  const std::size_t second = first == std::string::npos ? first : text.find_first_not_of(" \t\r\n", first + 1);
  if (first != std::string::npos && text[first] == '{' && second != std::string::npos && text[second] == '"') {
    // trainer_state.json: read as every JSON input is (depth bounded, errors naming the file).
    const nlohmann::json j = parse_json(text, file);
    if (!j.is_object()) throw InputError(file, "$", describe(j), "Trainer's trainer_state.json (an object)");
    return trainer_state(j, file);
  }
  TrainingLog log;
  std::vector<double> megatron_ms, titan_tps;
  std::optional<double> trainer_rate;
  std::istringstream in(text);
  Reader r{file, 0, {}};
  for (std::string raw; std::getline(in, raw);) {
    ++r.line_number;
    const std::string clean = without_escapes(raw);
    r.line = clean;
    if (const auto ms = r.number_after("elapsed time per iteration (ms):", kMaxStepSeconds * 1e3, "milliseconds")) {
      megatron_ms.push_back(*ms);
    }
    if (clean.find(" memory (MB)") != std::string::npos) {
      if (const auto mb = r.number_after("| max allocated:", kMaxMemoryBytes / kMiB, "MB")) keep_peak(log, *mb * kMiB, "max allocated");
    }
    if (clean.find("step:") != std::string::npos && (clean.find("tps:") != std::string::npos || clean.find("wps:") != std::string::npos)) {
      const auto tps = clean.find("tps:") != std::string::npos ? r.number_after("tps:", kMaxTokensPerSecond, "tokens per second")
                                                                : r.number_after("wps:", kMaxTokensPerSecond, "tokens per second");
      titan_tps.push_back(*tps);
      if (const auto gib = r.number_after("memory:", kMaxMemoryBytes / kGiB, "GiB")) keep_peak(log, *gib * kGiB, "max reserved");
    }
    if (const auto rate = r.number_after("'train_steps_per_second':", 1e6, "steps per second")) trainer_rate = rate;
    if (const std::size_t at = clean.find("max_memory_allocated"); at != std::string::npos) {
      std::size_t i = at + std::string_view("max_memory_allocated").size();
      while (i < clean.size() && std::isdigit(static_cast<unsigned char>(clean[i])) == 0) ++i;
      Reader value{file, r.line_number, std::string_view(clean).substr(i)};
      std::size_t end = i;
      while (end < clean.size() && (std::isdigit(static_cast<unsigned char>(clean[end])) != 0 || clean[end] == '.')) ++end;
      const std::string digits = clean.substr(i, end - i);
      double v = 0.0;
      const auto [stop, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (digits.empty() || ec != std::errc() || stop != digits.data() + digits.size() || !(v > 0.0)) {
        value.fail("max_memory_allocated followed by a positive number (bytes, or with KB, MB, GB, MiB, GiB)");
      }
      const double bytes = v * memory_unit(std::string_view(clean).substr(end));
      if (!(bytes <= kMaxMemoryBytes)) value.fail("at most 10 TiB of device memory");
      keep_peak(log, bytes, "max allocated");
    }
  }
  if (!megatron_ms.empty()) {
    log.format = TrainingLogFormat::megatron;
    log.timed = static_cast<int>(megatron_ms.size());
    log.step_seconds = steady(megatron_ms) / 1e3;
  } else if (!titan_tps.empty()) {
    log.format = TrainingLogFormat::torchtitan;
    log.timed = static_cast<int>(titan_tps.size());
    log.tokens_per_second_per_gpu = steady(titan_tps);
  } else if (trainer_rate) {
    log.format = TrainingLogFormat::hf_trainer;
    log.step_seconds = 1.0 / *trainer_rate;
  } else {
    throw InputError(file, "", "no step timing found", kWhat);
  }
  return log;
}

}  // namespace preflight::io
