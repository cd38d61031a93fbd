#pragma once
// The option groups commands share, declared once so a flag means the same everywhere (after CLI11's
// subcom_in_files example and mamba's common_options): the output (--format, --out), the catalog
// (--catalog), and the run model (--profile, --seed, --trials, --threads).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "planner/cli/command.hpp"
#include "planner/run/run_estimate.hpp"
#include "simulator/spec/calibration_profile.hpp"

namespace preflight::cli {

// For paths and texts that mean something only when given: `--out ''` must not mean stdout, nor
// `--shard ''` no shard.
const CLI::Validator& not_empty();
// A finite number from `min` to `max` (CLI11's Range lets NaN through: every comparison with it is false).
CLI::Validator finite_range(double min, double max);

struct OutputOptions {
  std::string format;
  std::string out;  // a file written whole or not at all; empty: stdout
  // --also FORMAT=FILE: the same result in another format, written to FILE (a CI job's JSON for its
  // gates beside the Markdown of its comment, from one run).
  std::vector<std::pair<std::string, std::string>> also;
};

// --format (one of `formats`, the first the default) and --out.
void add_output_options(CLI::App& command, OutputOptions& output, const std::vector<std::string>& formats);
// --also FORMAT=FILE, repeatable, FORMAT one of `formats`.
void add_also_option(CLI::App& command, OutputOptions& output, const std::vector<std::string>& formats);
// --out alone, for commands whose output has one format.
void add_out_option(CLI::App& command, std::string& out);

// --catalog DIR (default: the bundled catalogs/).
void add_catalog_option(CLI::App& command, std::string& catalog);

struct RunModelOptions {
  std::string profile;  // calibration profile
  std::uint64_t seed = 1;
  int trials = 10000;
};

// --profile: what every command that simulates a step takes.
void add_profile_option(CLI::App& command, std::string& profile);
// --profile, --seed, --trials and --threads: what every command that prices a run takes.
void add_run_model_options(CLI::App& command, RunModelOptions& run, GlobalOptions& global);

// The profile named by --profile; null when none was given.
std::unique_ptr<const CalibrationProfile> load_profile(const std::string& path);

RunOptions run_options(const RunModelOptions& run);

}  // namespace preflight::cli
