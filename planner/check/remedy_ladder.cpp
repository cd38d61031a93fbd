#include "planner/check/remedy_ladder.hpp"

#include <functional>

#include "planner/scenario/strategy_config_reader.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/stage_layout.hpp"

namespace preflight {

namespace {

class Climber {
 public:
  Climber(const Scenario& scenario, const Machine& machine, const Evaluation& given)
      : scenario_(scenario), machine_(machine), node_(machine.node()), given_(given), state_(given.config) {}

  RemedyLadder climb() {
    shrink_micro_batch();
    if (state_.recompute == Recompute::full) ladder_.skipped.push_back("2. activation checkpointing is already full");
    if (!done()) add_recompute(Recompute::selective, "selective activation checkpointing");
    if (!done()) add_recompute(Recompute::full, "full activation checkpointing");
    if (!done()) shard_further();
    if (model_parallel(state_.parallelism)) {
      // Megatron's layouts have no offload: their next step is a wider layout on the same GPUs.
      if (!done()) more_model_parallelism();
      if (!done()) ladder_.skipped.push_back("5. offload needs DeepSpeed ZeRO or FSDP, not Megatron's tensor/pipeline parallelism");
    } else {
      if (!done()) offload_cpu();
      if (!done()) offload_nvme();
    }
    if (!done()) ladder_.beyond = beyond_this_machine();
    return ladder_;
  }

 private:
  bool done() const { return ladder_.remedy.has_value(); }

  std::int64_t per_rank_batch(const StrategyConfig& c) const {
    return scenario_.training().global_batch_sequences / dp_degree(c, node_);
  }

  StrategyConfig with_micro_batch(StrategyConfig c, std::int64_t mb) const {
    c.micro_batch = mb;
    c.grad_accum = per_rank_batch(c) / mb;
    return c;
  }

  // The largest micro-batch up to `limit` (dividing the per-rank batch) that fits, else micro-batch 1.
  Evaluation best_micro_batch(const StrategyConfig& c, std::int64_t limit) const {
    const std::int64_t per_rank = per_rank_batch(c);
    for (std::int64_t mb = std::min(limit, per_rank); mb > 1; --mb) {
      if (per_rank % mb != 0 || !schedule_accepts(c.framework, c.parallelism, per_rank / mb)) continue;
      // When what stays resident alone overflows, this micro-batch cannot fit: skip its simulation.
      const StrategyConfig candidate = with_micro_batch(c, mb);
      if (resident_exceeds_capacity(estimate_memory(scenario_.workload, candidate, node_, scenario_.constraints.vram_headroom))) {
        continue;
      }
      Evaluation e = evaluate_config(candidate);
      if (e.memory.fits()) return e;
    }
    return evaluate_config(with_micro_batch(c, 1));
  }

  void record(int rung, const std::string& action, const StrategyConfig& changed) {
    Evaluation e = best_micro_batch(with_offering_framework(changed, scenario_), given_.config.micro_batch);
    const bool fits = e.memory.fits();
    state_ = e.config;
    ladder_.rungs.push_back({rung, action, e, fits});
    if (fits) ladder_.remedy = e.config;
  }

  void shrink_micro_batch() {
    if (state_.micro_batch == 1) {
      ladder_.skipped.push_back("1. micro-batch is already 1");
      return;
    }
    Evaluation e = best_micro_batch(state_, given_.config.micro_batch - 1);
    const bool fits = e.memory.fits();
    state_ = e.config;
    ladder_.rungs.push_back({1, "micro-batch " + std::to_string(e.config.micro_batch) + " x grad_accum " +
                                    std::to_string(e.config.grad_accum), e, fits});
    if (fits) ladder_.remedy = e.config;
  }

  void add_recompute(Recompute level, const std::string& action) {
    if (state_.recompute >= level) return;
    StrategyConfig c = state_;
    c.recompute = level;
    if (level == Recompute::selective && c.flash_attention && selective_recompute(c.framework) == SelectiveRecompute::attention_core) {
      ladder_.skipped.push_back("2. selective checkpointing frees nothing with flash attention (scores are never stored)");
      return;
    }
    if (level == Recompute::full && c.parallelism.ep_comm_overlap) {
      // Megatron-Core refuses full recompute beside the overlapped all-to-alls.
      c.parallelism.ep_comm_overlap = false;
      return record(2, action + " (all-to-alls no longer overlapped: Megatron-Core refuses both at once)", c);
    }
    record(2, action, c);
  }

  void shard_further() {
    if (weight_replicas(state_.parallelism, state_.nodes * node_.gpus_per_node) == 1) {
      ladder_.skipped.push_back("3. one data-parallel rank: there is nothing to shard across");
      return;
    }
    const ShardingScheme scheme = sharding_scheme(state_.sharding);
    if (model_parallel(state_.parallelism)) {
      if (state_.sharding == Sharding::ddp) {
        StrategyConfig c = state_;
        c.sharding = Sharding::zero1;
        record(3, "distributed optimizer (ZeRO-1 across the data-parallel replicas)", c);
      }
      // Megatron-FSDP shards the gradients and weights too, beside tensor parallelism (not pipelining).
      const bool megatron = state_.framework == Framework::megatron;
      if (!done() && megatron && state_.parallelism.pp == 1 && state_.sharding == Sharding::zero1) {
        StrategyConfig c = state_;
        c.sharding = Sharding::fsdp_full;
        record(3, "Megatron-FSDP (shard gradients and parameters too)", c);
      } else if (ladder_.rungs.empty() || ladder_.rungs.back().rung != 3) {
        std::string why = "3. the states are already sharded (" + to_string(state_.sharding) + ")";
        if (sharding_scheme(state_.sharding).stage == 3) {
          why = "3. parameters are already sharded (" + to_string(state_.sharding) + ")";
        } else if (megatron) {
          why = "3. optimizer states are already sharded (Megatron-FSDP shards the rest only without pipelining)";
        }
        ladder_.skipped.push_back(why);
      }
      return;
    }
    if (state_.sharding == Sharding::zero3 || state_.sharding == Sharding::fsdp_full) {
      ladder_.skipped.push_back("3. parameters are already sharded (" + to_string(state_.sharding) + ")");
      return;
    }
    if (scheme.engine == Engine::fsdp) {
      if (state_.sharding != Sharding::fsdp_full) {
        StrategyConfig c = state_;
        c.sharding = Sharding::fsdp_full;
        record(3, "FSDP FULL_SHARD", c);
      }
      return;
    }
    const std::pair<Sharding, const char*> stages[] = {
        {Sharding::zero1, "ZeRO-1 (shard optimizer states)"},
        {Sharding::zero2, "ZeRO-2 (shard gradients too)"},
        {Sharding::zero3, "ZeRO-3 (shard parameters too)"}};
    for (const auto& [sharding, action] : stages) {
      if (done() || sharding_scheme(sharding).stage <= sharding_scheme(state_.sharding).stage) continue;
      StrategyConfig c = state_;
      c.sharding = sharding;
      record(3, action, c);
    }
  }

  // Twice the tensor parallelism (inside the node), then twice the pipeline stages, on the same GPUs.
  void more_model_parallelism() {
    const int gpus = state_.nodes * node_.gpus_per_node;
    bool tried = false;
    for (const auto& [tp, pp] : {std::pair{2, 1}, std::pair{1, 2}}) {
      if (done()) return;
      StrategyConfig c = state_;
      c.parallelism.tp *= tp;
      c.parallelism.pp *= pp;
      c.parallelism.sequence_parallel = c.parallelism.tp > 1;
      // Megatron-FSDP runs without a pipeline here: more stages go back to the distributed optimizer.
      const bool drops_fsdp = c.framework == Framework::megatron && c.sharding == Sharding::fsdp_full && c.parallelism.pp > 1;
      if (drops_fsdp) c.sharding = Sharding::zero1;
      // Megatron's new tensor parallelism overlaps its collectives as plan would run it; a layout the
      // user already split keeps the user's choice.
      const bool adds_overlap = state_.parallelism.tp == 1 && c.parallelism.tp > 1 && c.framework == Framework::megatron;
      if (adds_overlap) c.parallelism.tp_comm_overlap = true;
      // Megatron-Core overlaps the all-to-alls beside pipelining only with virtual stages.
      const bool drops_overlap = c.parallelism.ep_comm_overlap && !pipeline_allows_expert_overlap(c.parallelism);
      if (drops_overlap) c.parallelism.ep_comm_overlap = false;
      try {
        validate_parallelism(scenario_.model(), c.parallelism, gpus, node_.gpus_per_node);
      } catch (const InvalidConfig&) {
        continue;
      }
      const std::int64_t dp = dp_degree(c, node_);
      if (scenario_.training().global_batch_sequences % dp != 0) continue;
      if (!schedule_accepts(c.framework, c.parallelism, scenario_.training().global_batch_sequences / dp)) continue;  // micro-batch 1
      record(4, "tensor parallelism " + std::to_string(c.parallelism.tp) + " + sequence parallelism" +
                    (adds_overlap ? " (collectives overlapped with the GEMMs)" : "") +
                    (drops_fsdp ? ", the distributed optimizer instead of Megatron-FSDP" : "") + ", pipeline " +
                    std::to_string(c.parallelism.pp) + (drops_overlap ? " (all-to-alls no longer overlapped)" : ""),
             c);
      tried = true;
    }
    if (!tried) ladder_.skipped.push_back("4. no wider tensor/pipeline layout fits these GPUs and the batch");
  }

  void offload_cpu() {
    StrategyConfig c = state_;
    const ShardingScheme scheme = sharding_scheme(c.sharding);
    if (scheme.engine == Engine::fsdp) {
      c.offload = {OffloadTarget::cpu, OffloadTarget::cpu};
      record(4, "FSDP CPU offload (parameters, gradients and optimizer)", c);
      return;
    }
    std::string prefix;
    if (scheme.engine == Engine::pytorch_ddp) {
      c.sharding = Sharding::zero2;  // ZeRO-Offload runs on DeepSpeed's ZeRO-2
      prefix = "ZeRO-2 with ";
    }
    c.offload.optimizer = OffloadTarget::cpu;
    record(4, prefix + "CPU offload of optimizer states", c);
    if (done()) return;
    c = state_;
    c.sharding = Sharding::zero3;
    c.offload = {OffloadTarget::cpu, OffloadTarget::cpu};
    record(4, "ZeRO-3 with CPU offload of optimizer states and parameters", c);
  }

  void offload_nvme() {
    if (node_.local_nvme_bytes <= 0.0 || sharding_scheme(state_.sharding).engine == Engine::fsdp) {
      ladder_.skipped.push_back("5. NVMe offload needs local NVMe and DeepSpeed");
      return;
    }
    StrategyConfig c = state_;
    c.sharding = Sharding::zero3;
    c.offload = {OffloadTarget::nvme, OffloadTarget::nvme};
    record(5, "ZeRO-Infinity: optimizer states and parameters on NVMe", c);
  }

  // Nothing on this machine fits: how many nodes would, under ZeRO-3 with full recompute.
  std::string beyond_this_machine() const {
    const bool networked = node_.inter_node_bits_per_second > 0.0;
    const int max_nodes = node_.node_limit();
    StrategyConfig c = given_.config;
    c.parallelism = {};
    c.sharding = Sharding::zero3;
    c.recompute = Recompute::full;
    c.offload = {};
    c = with_offering_framework(c, scenario_);
    for (int nodes = c.nodes + 1; nodes <= max_nodes; ++nodes) {
      c.nodes = nodes;
      if (scenario_.training().global_batch_sequences % dp_degree(c, node_) != 0) continue;
      const StrategyConfig candidate = with_micro_batch(c, 1);
      const MemoryEstimate screen = estimate_memory(scenario_.workload, candidate, node_, scenario_.constraints.vram_headroom);
      if (resident_exceeds_capacity(screen)) continue;  // no timeline can fit: skip the simulation
      Evaluation e = evaluate_config(candidate);
      if (e.memory.fits()) {
        return "nothing on " + std::to_string(given_.config.nodes) + " node(s) fits; " + std::to_string(nodes) +
               " nodes of " + node_.id + " (" + std::to_string(nodes * node_.gpus_per_node) + " GPUs) fit under ZeRO-3 "
               "with full activation checkpointing and micro-batch 1";
      }
    }
    if (!networked) {
      return "nothing short of more GPUs fits, and " + node_.id +
             " cannot be networked with others: a machine with more or larger GPUs is needed";
    }
    return "nothing short of more GPUs fits: even " + std::to_string(max_nodes) + " nodes of " + node_.id + " do not";
  }

  Evaluation evaluate_config(const StrategyConfig& c) const {
    return evaluate(scenario_.workload, machine_, c, scenario_.constraints.vram_headroom);
  }

  const Scenario& scenario_;
  const Machine& machine_;
  const NodeSpec& node_;
  const Evaluation& given_;
  StrategyConfig state_;
  RemedyLadder ladder_;
};

}  // namespace

RemedyLadder climb_remedy_ladder(const Scenario& scenario, const Machine& machine, const Evaluation& given) {
  return Climber(scenario, machine, given).climb();
}

}  // namespace preflight
