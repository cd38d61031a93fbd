#pragma once
// StepInputs point to a Workload and a Machine; a test that varies the model, the job or the node
// builds new ones for every variant. StepSetup keeps each one it built (and a copy of the node each
// machine describes) for its own lifetime, so inputs made earlier stay valid whatever the test
// changes afterwards.

#include <deque>

#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/calibration_profile.hpp"
#include "simulator/spec/node_spec.hpp"
#include "simulator/spec/strategy_config.hpp"
#include "simulator/step/step_graph.hpp"

namespace preflight::test {

// One step of `workload` on `machine` under `config`, its memory estimated without headroom.
inline StepInputs step_inputs(const Workload& workload, const Machine& machine, const StrategyConfig& config) {
  StepInputs in;
  in.workload = &workload;
  in.machine = &machine;
  in.config = config;
  in.memory = estimate_memory(workload, config, machine.node(), 0.0);
  return in;
}

class StepSetup {
 public:
  const Workload& workload(const ModelSpec& model, const TrainingJob& job) {
    return workloads_.emplace_back(model, job);
  }
  // `profile` applies when it describes the node's GPU (Machine's rule).
  const Machine& machine(const NodeSpec& node, Precision precision, const CalibrationProfile* profile = nullptr) {
    return machines_.emplace_back(nodes_.emplace_back(node), precision, profile);
  }

  // One sequence a micro-batch of `job` on `nodes` of `node` in `layout`: the accumulation is the
  // global batch over the data-parallel ranks, the memory estimate without headroom.
  StepInputs inputs(const ModelSpec& model, const TrainingJob& job, const NodeSpec& node, int nodes, Framework framework,
                    const Parallelism& layout, Sharding sharding, Recompute recompute) {
    StepInputs in;
    in.workload = &workload(model, job);
    in.machine = &machine(node, job.precision);
    in.config.instance = node.id;
    in.config.nodes = nodes;
    in.config.framework = framework;
    in.config.parallelism = layout;
    in.config.sharding = sharding;
    in.config.recompute = recompute;
    in.config.micro_batch = 1;
    in.config.grad_accum = job.global_batch_sequences / data_parallel_degree(layout, nodes * node.gpus_per_node);
    in.memory = estimate_memory(*in.workload, in.config, node, 0.0);
    return in;
  }

 private:
  std::deque<Workload> workloads_;
  std::deque<NodeSpec> nodes_;
  std::deque<Machine> machines_;
};

}  // namespace preflight::test
