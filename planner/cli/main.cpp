// The `preflight` command line. The only place that turns errors into exit codes:
// 0 done (for `check`: it fits), 1 a valid "no", 2 bad input or usage.

#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include <CLI/CLI.hpp>
#include <tbb/global_control.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "planner/cli/command.hpp"
#include "planner/io/output_file.hpp"
#include "simulator/spec/errors.hpp"

namespace {

constexpr int kBadInput = 2;

// Every step simulation builds its task graph in fresh vectors (hundreds of kilobytes) and frees
// them; glibc returns a freed heap top above 128 KiB to the kernel and the next simulation faults
// the pages back in. Keeping up to 256 MiB of freed heap (and serving blocks up to 32 MiB, glibc's
// largest threshold, from it) cut a whole-catalog 70B plan from 0.64 to 0.54 s on two cores, its
// kernel time from 0.20 to 0.07 s. A command-line run is short, so nothing is lost by holding it.
void keep_freed_heap() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_heap();
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
