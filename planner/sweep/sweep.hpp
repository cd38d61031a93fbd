#pragma once
// `sweep`: plan every scenario of a set (folders and files), in parallel, one row each; `--shard K/N`
// takes a deterministic slice so a CI matrix or a job array can share the work, and `merge` joins the
// slices into exactly what one run would have written.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/sweep/sweep_row.hpp"

namespace preflight {

struct Shard {
  int index = 1;  // 1-based
  int count = 1;
};

// A sweep's result: its rows (in file order), the Monte Carlo settings they were planned with, and
// which slice of how many scenario files they are, so `merge` can tell a complete set of shards.
struct SweepDocument {
  std::vector<SweepRow> rows;
  std::uint64_t seed = 1;
  int trials = 10000;
  Shard shard;                     // 1/1: the whole sweep
  std::size_t scenario_files = 0;  // in the whole sweep, every shard together
};

// "K/N" with 1 <= K <= N; throws InputError naming --shard otherwise.
Shard parse_shard(const std::string& text);

// The scenario files named by `arguments`: files as given, folders searched (recursively) for
// *.json; sorted by path, duplicates removed. Throws InputError for a path that does not exist or a
// folder without scenarios.
std::vector<std::string> sweep_files(const std::vector<std::string>& arguments);

// The files of one shard: every N-th file of the sorted list, starting at the K-th.
std::vector<std::string> shard_files(const std::vector<std::string>& files, const Shard& shard);

struct SweepOptions {
  RunOptions run;
  const CalibrationProfile* profile = nullptr;  // applied to machines with its GPU
  // Called after each scenario is planned with (done, total); from worker threads, one at a time.
  std::function<void(std::size_t, std::size_t)> progress;
};

// Checks every scenario first (bad input fails the sweep before any planning), then plans them in
// parallel. Only the rows are kept, so memory stays flat however many scenarios there are.
SweepDocument run_sweep(const std::vector<std::string>& files, const Catalog& catalog, const SweepOptions& options);

nlohmann::ordered_json sweep_json(const SweepDocument& sweep);
SweepDocument read_sweep_json(const std::string& file);

// Shards joined in file order into the document one run writes. Throws InputError unless they are
// exactly one split: the same Monte Carlo settings and shard count, every index 1..N once, each
// holding its slice of the files, and every scenario file of the sweep present.
SweepDocument merge_sweeps(const std::vector<SweepDocument>& shards, const std::vector<std::string>& files);

}  // namespace preflight
