// One simulated training step (graph build + discrete-event run + memory timeline). Target: under
// 50 us for Llama-2-7B on 8 GPUs with ZeRO-3, so the planner can afford tens of thousands a second.

#include <benchmark/benchmark.h>

#include "planner/catalog/catalog.hpp"
#include "simulator/step/step_graph.hpp"

namespace preflight {
namespace {

const Catalog& catalog() {
  static const Catalog c = Catalog::load(PREFLIGHT_CATALOG_DIR);
  return c;
}

void simulate(benchmark::State& state, const char* model_id, const char* instance, int nodes, std::int64_t global) {
  const ModelSpec model = catalog().model(model_id).spec;
  const NodeSpec& node = *catalog().find_instance(instance);
  TrainingJob job;
  job.tokens = 1e10;
  job.seq_len = 4096;
  job.global_batch_sequences = global;
  const Workload workload(model, job);
  const Machine machine(node, job.precision);
  StepInputs in;
  in.workload = &workload;
  in.machine = &machine;
  in.config.instance = node.id;
  in.config.nodes = nodes;
  in.config.sharding = Sharding::zero3;
  in.config.recompute = Recompute::full;
  in.config.micro_batch = 1;
  in.config.grad_accum = global / (nodes * node.gpus_per_node);
  in.memory = estimate_memory(workload, in.config, node, 0.0);
  std::size_t tasks = 0;
  for (auto _ : state) {
    const StepSimulation s = simulate_step(in);
    tasks = s.tasks;
    benchmark::DoNotOptimize(s);
  }
  state.counters["tasks_per_graph"] = static_cast<double>(tasks);
}

void BM_StepLlama2_7bZero3On8Gpus(benchmark::State& state) { simulate(state, "llama-2-7b", "aws/p4de.24xlarge", 1, 8); }
BENCHMARK(BM_StepLlama2_7bZero3On8Gpus)->Unit(benchmark::kMicrosecond);

void BM_StepLlama2_70bZero3On64Gpus(benchmark::State& state) { simulate(state, "llama-2-70b", "aws/p5.48xlarge", 8, 64); }
BENCHMARK(BM_StepLlama2_70bZero3On64Gpus)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace preflight
