#include "planner/cli/common_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "planner/io/calibration_profile_io.hpp"

namespace preflight::cli {

const CLI::Validator& not_empty() {
  static const CLI::Validator validator(
      [](std::string& value) { return value.empty() ? std::string("an empty value is not allowed here") : std::string(); },
      "NOT EMPTY");
  return validator;
}

CLI::Validator finite_range(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& value) {
        double x = 0.0;
        std::size_t used = 0;
        try {
          x = std::stod(value, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != value.size() || !std::isfinite(x) || x < min || x > max) {
          return "a finite number from " + CLI::detail::to_string(min) + " to " + CLI::detail::to_string(max);
        }
        return std::string();
      },
      "FINITE");
}

// Seeds are written back into JSON (plans, sweeps) and read as signed 64-bit integers: a decimal
// integer from 0 to 2^63 - 1, never a wrapped "-1" or 2^64.
const CLI::Validator& seed_range() {
  static const CLI::Validator validator(
      [](std::string& value) {
        std::uint64_t seed = 0;
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seed);
        if (value.empty() || error != std::errc() || end != value.data() + value.size() ||
            seed > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          return std::string("a decimal integer from 0 to 9223372036854775807");
        }
        return std::string();
      },
      "SEED");
  return validator;
}

void add_output_options(CLI::App& command, OutputOptions& output, const std::vector<std::string>& formats) {
  output.format = formats.front();
  command.add_option("--format", output.format, "Output format")->check(CLI::IsMember(formats));
  add_out_option(command, output.out);
}

void add_also_option(CLI::App& command, OutputOptions& output, const std::vector<std::string>& formats) {
  std::string allowed;
  for (const std::string& f : formats) allowed += (allowed.empty() ? "" : "|") + f;
  const CLI::Validator pair(
      [formats, allowed](std::string& value) {
        const std::size_t eq = value.find('=');
        if (eq == std::string::npos || eq + 1 == value.size() ||
            std::find(formats.begin(), formats.end(), value.substr(0, eq)) == formats.end()) {
          return "FORMAT=FILE with FORMAT one of " + allowed + " and a file name";
        }
        return std::string();
      },
      "FORMAT=FILE");
  command
      .add_option_function<std::vector<std::string>>(
          "--also",
          [&output](const std::vector<std::string>& values) {
            for (const std::string& v : values) output.also.emplace_back(v.substr(0, v.find('=')), v.substr(v.find('=') + 1));
          },
          "Also write the result in another format to a file, FORMAT=FILE (" + allowed + "; repeatable)")
      ->check(pair);
}

void add_out_option(CLI::App& command, std::string& out) {
  command.add_option("--out", out, "Write the output to this file (whole or not at all) instead of stdout")->check(not_empty());
}

void add_catalog_option(CLI::App& command, std::string& catalog) {
  command.add_option("--catalog", catalog, "Catalog folder (default: the bundled catalogs/)")->check(not_empty());
}

void add_profile_option(CLI::App& command, std::string& profile) {
  command.add_option("--profile", profile,
                     "Calibration profile (preflight-calibrate): its measurements replace the defaults on machines with its GPU")
      ->check(not_empty());
}

void add_run_model_options(CLI::App& command, RunModelOptions& run, GlobalOptions& global) {
  add_profile_option(command, run.profile);
  command.add_option("--seed", run.seed, "Monte Carlo seed (same seed, same numbers)")->check(seed_range());
  command.add_option("--trials", run.trials, "Monte Carlo trials (per configuration)")->check(CLI::Range(1, 10'000'000));
  command.add_option("--threads", global.threads, "Worker threads (default: all cores); results do not depend on it")
      ->check(CLI::Range(1, 1024));
}

std::unique_ptr<const CalibrationProfile> load_profile(const std::string& path) {
  if (path.empty()) return nullptr;
  return std::make_unique<const CalibrationProfile>(io::read_calibration_profile(path));
}

RunOptions run_options(const RunModelOptions& run) { return {run.seed, run.trials}; }

}  // namespace preflight::cli
