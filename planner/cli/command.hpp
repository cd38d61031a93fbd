#pragma once
// One `preflight` subcommand: its options are declared on the command line by its add_* function
// (one file per command, the option groups every command shares in common_options.hpp), and it runs
// once the line is parsed. It returns the exit code (0 yes/done, 1 a valid "no"); bad input is
// thrown as InputError or InvalidConfig and mapped to 2 by main.

#include <functional>
#include <iosfwd>

namespace CLI {
class App;
}

namespace preflight::cli {

struct Command {
  CLI::App* app = nullptr;  // parsed when this command was named on the line
  std::function<int(std::ostream& out, std::ostream& err)> run;
};

// Options that outlive one command: the worker threads, applied by main before any command runs.
struct GlobalOptions {
  int threads = 0;  // 0: every core
};

Command add_check_command(CLI::App& app, GlobalOptions& global);
Command add_simulate_command(CLI::App& app, GlobalOptions& global);
Command add_plan_command(CLI::App& app, GlobalOptions& global);
Command add_export_command(CLI::App& app, GlobalOptions& global);
Command add_sweep_command(CLI::App& app, GlobalOptions& global);
Command add_merge_command(CLI::App& app, GlobalOptions& global);
Command add_catalog_command(CLI::App& app, GlobalOptions& global);
Command add_validate_command(CLI::App& app, GlobalOptions& global);

}  // namespace preflight::cli
