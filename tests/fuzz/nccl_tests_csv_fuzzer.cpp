// The nccl-tests CSV reader, io::read_nccl_tests_csv(path, op, ranks): rows of
// `size(B),count,type,time(ns),busbw(GB/s),...`, read as an 8-rank table, whose points must be finite,
// positive and in increasing size (as the JSON profile reader requires). When it reads, the table
// replaces the analytical all-reduce, all-gather and reduce-scatter of an 8 x A100 node (a profile
// of one GPU, as calibrate/tools/profile_from_nccl_tests.py makes), and what `check --profile` runs
// follows: a small model (fixtures/small_scenario.json) under ZeRO-3 on one aws/p4de.24xlarge.

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "planner/io/calibration_profile_io.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

constexpr int kRanks = 8;

const Scenario& scenario() {
  static const Scenario s = load_scenario(source_path("tests/fuzz/fixtures/small_scenario.json"), bundled_catalog());
  return s;
}

const StrategyConfig& config() {
  static const StrategyConfig c = read_strategy_config(
      {nlohmann::json{{"instance", "aws/p4de.24xlarge"}, {"sharding", "zero3"}}, "fuzz-config", "$"}, scenario(),
      bundled_catalog());
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  config();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  const fs::path file = write_file(scratch_dir() / "nccl-tests.csv", input);

  std::optional<CollectiveTable> table;
  if (!holds_contract("read_nccl_tests_csv", [&] { table = io::read_nccl_tests_csv(file, CollectiveOp::all_reduce, kRanks); },
                      one_of({file.string()}))) {
    return 0;
  }
  // What a table must be for the collective model to use it: finite positive sizes and times, sizes
  // increasing (what the JSON profile reader also requires of a table).
  for (std::size_t i = 0; i < table->points.size(); ++i) {
    const auto [bytes, seconds] = table->points[i];
    if (!std::isfinite(bytes) || !std::isfinite(seconds) || !(bytes > 0.0) || !(seconds > 0.0) ||
        (i > 0 && !(bytes > table->points[i - 1].first))) {
      violation("read_nccl_tests_csv accepted the point (" + std::to_string(bytes) + " bytes, " + std::to_string(seconds) +
                " s) at row " + std::to_string(i + 1));
    }
  }
  CalibrationProfile profile;
  profile.machine.gpu = find_node(scenario(), bundled_catalog(), config().instance)->gpu.id;
  profile.machine.gpu_count = kRanks;
  for (const CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
    profile.collectives.push_back(*table);
    profile.collectives.back().op = op;
  }
  run_check_under_contract(scenario(), bundled_catalog(), config(), &profile);
  return 0;
}
