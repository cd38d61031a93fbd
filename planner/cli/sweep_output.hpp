#pragma once
// The output of a sweep, or of merged shards: the same rows give the same text, gates included.
// `sweep` and `merge` share these options and this writer.

#include <iosfwd>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "planner/cli/common_options.hpp"
#include "planner/sweep/sweep.hpp"

namespace preflight::cli {

struct SweepOutputOptions {
  OutputOptions output;  // markdown (the default), csv or json
  std::string baseline;  // an earlier sweep's JSON
  std::optional<double> max_cost_increase_pct;
};

void add_sweep_output_options(CLI::App& command, SweepOutputOptions& output);

// Writes the sweep in its format, compared with the baseline; returns 1 when a gate failed.
int write_sweep(const SweepDocument& sweep, const SweepOutputOptions& options, std::ostream& out, std::ostream& err);

}  // namespace preflight::cli
