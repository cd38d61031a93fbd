// The `preflight` command line. The only place that turns errors into exit codes:
// 0 done (for `check`: it fits), 1 a valid "no", 2 bad input or usage.

#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "planner/cli/commands.hpp"
#include "simulator/core/errors.hpp"

namespace {

constexpr int kBadInput = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"preflight: plan the cheapest way to train or fine-tune an LLM before renting a GPU"};
  app.require_subcommand(1);
  app.set_version_flag("--version", PREFLIGHT_VERSION);

  preflight::cli::CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand("check", "Does this job fit in memory? If not, what is the cheapest change that makes it fit?");
  check_cmd->add_option("scenario", check.scenario, "Scenario JSON file")->required();
  check_cmd->add_option("--config", check.config, "Config JSON file, or an inline JSON object");
  check_cmd->add_option("--format", check.format, "Output format")->check(CLI::IsMember({"table", "json"}));
  check_cmd->add_option("--catalog", check.catalog, "Catalog folder (default: the bundled catalogs/)");

  preflight::cli::CatalogOptions catalog;
  CLI::App* catalog_cmd = app.add_subcommand("catalog", "List the GPUs, instances or models in the catalog");
  catalog_cmd->add_option("what", catalog.what, "gpus, instances or models")
      ->required()
      ->check(CLI::IsMember({"gpus", "instances", "models"}));
  catalog_cmd->add_option("--format", catalog.format, "Output format")->check(CLI::IsMember({"table", "json"}));
  catalog_cmd->add_option("--catalog", catalog.catalog, "Catalog folder (default: the bundled catalogs/)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kBadInput;
  }

  // Output is buffered and written only on success, so a failure never leaves a partial result.
  std::ostringstream out;
  try {
    int code = 0;
    if (*check_cmd) code = preflight::cli::run_check_command(check, out, std::cerr);
    if (*catalog_cmd) code = preflight::cli::run_catalog_command(catalog, out, std::cerr);
    std::cout << out.str();
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
