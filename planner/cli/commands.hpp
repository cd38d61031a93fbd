#pragma once
// The `preflight` subcommands. Each returns the process exit code (0 yes/done, 1 a valid "no");
// bad input is thrown as InputError and mapped to 2 by main.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace preflight::cli {

struct CheckOptions {
  std::string scenario;
  std::string config;  // path or inline JSON; empty: the scenario's "config" or its first instance
  std::string format = "table";
  std::string catalog;
};

struct SimulateOptions {
  std::string scenario;
  std::string config;  // path or inline JSON; empty: the scenario's "config"
  std::string format = "table";
  std::string catalog;
  std::uint64_t seed = 1;
  int trials = 10000;
  std::string trace;    // write the step's Chrome trace here
  std::string profile;  // calibration profile
};

struct PlanCommandOptions {
  std::string scenario;
  std::string format = "table";  // table | json | csv | markdown | html
  int top = 5;
  std::string out;  // write here (whole or not at all) instead of stdout
  std::string profile;
  std::string catalog;
  std::uint64_t seed = 1;
  int trials = 10000;
};

struct ExportOptions {
  std::string target;  // deepspeed | accelerate | torchrun
  std::string scenario;
  std::string config;  // path or inline JSON; empty: the scenario's "config", else the plan's winner
  std::string out;
  std::string catalog;
};

struct SweepOutputOptions {
  std::string format = "markdown";  // csv | json | markdown
  std::string out;
  std::string baseline;  // an earlier sweep's JSON
  std::optional<double> max_cost_increase_pct;
};

struct SweepCommandOptions {
  std::vector<std::string> inputs;  // scenario files and folders
  std::string shard;                // "K/N"
  std::string catalog;
  std::string profile;              // calibration profile, applied to machines with its GPU
  std::uint64_t seed = 1;
  int trials = 10000;
  SweepOutputOptions output;
};

struct MergeOptions {
  std::vector<std::string> shards;  // sweep JSON files
  SweepOutputOptions output;
};

struct CatalogOptions {
  std::string what;  // gpus | instances | models
  std::string format = "table";
  std::string catalog;
};

int run_check_command(const CheckOptions& options, std::ostream& out, std::ostream& err);
int run_simulate_command(const SimulateOptions& options, std::ostream& out, std::ostream& err);
int run_plan_command(const PlanCommandOptions& options, std::ostream& out, std::ostream& err);
int run_export_command(const ExportOptions& options, std::ostream& out, std::ostream& err);
int run_sweep_command(const SweepCommandOptions& options, std::ostream& out, std::ostream& err);
int run_merge_command(const MergeOptions& options, std::ostream& out, std::ostream& err);
int run_catalog_command(const CatalogOptions& options, std::ostream& out, std::ostream& err);

}  // namespace preflight::cli
