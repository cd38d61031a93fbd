#include "planner/cli/common_options.hpp"

#include "planner/io/calibration_profile_io.hpp"

namespace preflight::cli {

void add_output_options(CLI::App& command, OutputOptions& output, const std::vector<std::string>& formats) {
  output.format = formats.front();
  command.add_option("--format", output.format, "Output format")->check(CLI::IsMember(formats));
  add_out_option(command, output.out);
}

void add_out_option(CLI::App& command, std::string& out) {
  command.add_option("--out", out, "Write the output to this file (whole or not at all) instead of stdout");
}

void add_catalog_option(CLI::App& command, std::string& catalog) {
  command.add_option("--catalog", catalog, "Catalog folder (default: the bundled catalogs/)");
}

void add_run_model_options(CLI::App& command, RunModelOptions& run, GlobalOptions& global) {
  command.add_option("--profile", run.profile,
                     "Calibration profile (preflight-calibrate): its measurements replace the defaults on machines with its GPU");
  command.add_option("--seed", run.seed, "Monte Carlo seed (same seed, same numbers)");
  command.add_option("--trials", run.trials, "Monte Carlo trials (per configuration)")->check(CLI::Range(1, 10'000'000));
  command.add_option("--threads", global.threads, "Worker threads (default: all cores); results do not depend on it")
      ->check(CLI::Range(1, 1024));
}

std::optional<CalibrationProfile> load_profile(const RunModelOptions& run) {
  if (run.profile.empty()) return std::nullopt;
  return io::read_calibration_profile(run.profile);
}

}  // namespace preflight::cli
