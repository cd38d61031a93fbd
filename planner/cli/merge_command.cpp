// `preflight merge`: join the JSON of sweep shards into exactly what one sweep writes.

#include <memory>
#include <ostream>

#include "planner/cli/command.hpp"
#include "planner/cli/sweep_output.hpp"

namespace preflight::cli {

namespace {

struct MergeOptions {
  std::vector<std::string> shards;  // sweep JSON files
  SweepOutputOptions output;
};

int run_merge(const MergeOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<SweepDocument> shards;
  for (const std::string& f : options.shards) shards.push_back(read_sweep_json(f));
  return write_sweep(merge_sweeps(shards, options.shards), options.output, out, err);
}

}  // namespace

Command add_merge_command(CLI::App& app, GlobalOptions&) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* c = app.add_subcommand("merge", "Join the JSON of sweep shards into the output of one sweep");
  c->add_option("shards", o->shards, "Sweep JSON files (from `sweep --shard K/N --format json`)")->required();
  add_sweep_output_options(*c, o->output);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_merge(*o, out, err); }};
}

}  // namespace preflight::cli
