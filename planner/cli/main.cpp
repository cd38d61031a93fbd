// The `preflight` command line. The only place that turns errors into exit codes:
// 0 done (for `check`: it fits), 1 a valid "no", 2 bad input or usage.

#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include <CLI/CLI.hpp>
#include <tbb/global_control.h>

#include "planner/cli/command.hpp"
#include "planner/io/output_file.hpp"
#include "simulator/spec/errors.hpp"

namespace {

constexpr int kBadInput = 2;

}  // namespace

int main(int argc, char** argv) {
  namespace cli = preflight::cli;
  CLI::App app{"preflight: plan the cheapest way to train or fine-tune an LLM before renting a GPU"};
  app.require_subcommand(1);
  app.set_version_flag("--version", PREFLIGHT_VERSION);
  cli::GlobalOptions global;
  const std::vector<cli::Command> commands{
      cli::add_check_command(app, global),  cli::add_simulate_command(app, global), cli::add_plan_command(app, global),
      cli::add_export_command(app, global), cli::add_sweep_command(app, global),    cli::add_merge_command(app, global),
      cli::add_catalog_command(app, global), cli::add_validate_command(app, global)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kBadInput;
  }

  // Output is buffered and written only on success, so a failure never leaves a partial result.
  std::ostringstream out;
  try {
    std::optional<tbb::global_control> limit;
    if (global.threads > 0) limit.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(global.threads));
    int code = 0;
    for (const cli::Command& command : commands) {
      if (*command.app) code = command.run(out, std::cerr);
    }
    preflight::io::write_standard_output(out.str());
    return code;
  } catch (const preflight::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (const preflight::InvalidConfig& e) {
    std::cerr << "error: invalid config: " << e.field() << ": " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return kBadInput;
}
