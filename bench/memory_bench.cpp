// The memory screen runs first on every candidate of a plan (issue: "screen memory first, cheap"):
// a Llama-2-70B plan over the whole catalog evaluates 50,000+ configurations, so one estimate must
// cost microseconds. Also times a full `check` remedy ladder, the slowest path of `check`.
//   build/bench/preflight_bench

#include <benchmark/benchmark.h>

#include "planner/check/check_outcome.hpp"
#include "planner/scenario/strategy_config_reader.hpp"

namespace preflight {
namespace {

const Catalog& catalog() {
  static const Catalog c = Catalog::load(PREFLIGHT_CATALOG_DIR);
  return c;
}

void BM_MemoryEstimateLlama70bZero3(benchmark::State& state) {
  const ModelSpec model = catalog().model("llama-2-70b").spec;
  const NodeSpec& node = *catalog().find_instance("aws/p5.48xlarge");
  TrainingJob job;
  job.tokens = 1e10;
  job.seq_len = 4096;
  job.global_batch_sequences = 1024;
  const Workload workload(model, job);
  StrategyConfig c;
  c.instance = node.id;
  c.nodes = 4;
  c.sharding = Sharding::zero3;
  c.recompute = Recompute::full;
  for (auto _ : state) {
    benchmark::DoNotOptimize(estimate_memory(workload, c, node, 0.1));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MemoryEstimateLlama70bZero3);

void BM_CheckWithRemedyLadder(benchmark::State& state) {
  const Scenario s = load_scenario(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-rtx4090.json", catalog());
  const StrategyConfig c = read_strategy_config(config_source("", s), s, catalog());
  const Machine machine(*find_node(s, catalog(), c.instance), s.training().precision);
  for (auto _ : state) {
    benchmark::DoNotOptimize(run_check(s, machine, c));
  }
}
BENCHMARK(BM_CheckWithRemedyLadder);

}  // namespace
}  // namespace preflight
