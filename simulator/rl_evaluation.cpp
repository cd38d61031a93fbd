#include "simulator/rl_evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "simulator/rollout/rollout_defaults.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

// What the trainer keeps on a GPU while the engine generates: its parameters and optimizer states,
// a reference's and a critic's; gradients, activations and gathered units are freed after the
// update, and the rest of the memory goes to the engine.
double trainer_resident(const MemoryEstimate& m) {
  const MemoryBreakdown& g = m.gpu;
  return g.params + g.reference_params + g.critic_states + g.optimizer + g.cuda_context;
}

// The generator's tensor-parallel sizes to try: the config's, else 1 to 8 inside a node, dividing
// the heads and the generating GPUs (Hugging Face generate: 1).
std::vector<int> tp_choices(const Workload& w, const Machine& m, const RolloutConfig& rc, int gpus) {
  if (rc.tp) return {*rc.tp};
  std::vector<int> out;
  for (int tp : {1, 2, 4, 8}) {
    if (tp > m.node().gpus_per_node || gpus % tp != 0 || w.model().heads % tp != 0) continue;
    if (w.job().rl->engine == RolloutEngine::transformers && tp > 1) continue;
    out.push_back(tp);
  }
  return out;
}

// The generator's nodes to try when placed apart: the config's, else a quarter, half and three
// quarters of the nodes (at least one each side).
std::vector<int> generator_node_choices(const StrategyConfig& c, int gpus_per_node) {
  if (c.rollout.gpus) {
    const int g = *c.rollout.gpus;
    if (g % gpus_per_node != 0 || g >= c.nodes * gpus_per_node) {
      throw InvalidConfig("rollout.gpus", std::to_string(g) + ": the generator takes whole nodes of " + std::to_string(gpus_per_node) +
                                              " GPUs and leaves the trainer at least one of the config's " + std::to_string(c.nodes));
    }
    return {g / gpus_per_node};
  }
  std::vector<int> out;
  for (int share : {1, 2, 3}) {
    const int g = std::max(1, c.nodes * share / 4);
    if (g < c.nodes && std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  }
  return out;
}

struct Candidate {
  Evaluation e;
  bool fits = false;
  double seconds = 0.0;
};

// The trainer's evaluation, the generation and the sync made into one RL step.
Candidate compose(Evaluation trainer, const Workload& w, const StrategyConfig& config, RolloutOutcome outcome, int total_gpus) {
  Candidate c;
  const RlSpec& rl = *w.job().rl;
  outcome.optimizer_steps = w.job().optimizer_steps();
  Evaluation& e = trainer;
  const std::int64_t trainer_accum = trainer.config.grad_accum;  // re-derived for a trainer on fewer nodes
  e.config = config;
  e.config.grad_accum = trainer_accum;
  e.config.rollout.placement = outcome.placement;
  e.config.rollout.tp = outcome.tp;
  if (outcome.placement == RolloutPlacement::separate) e.config.rollout.gpus = outcome.generator_gpus;
  const Generation& gen = outcome.generation;
  if (outcome.placement == RolloutPlacement::colocated) {
    // The engine's turn: what the trainer keeps, with the engine's share, which vLLM and SGLang take
    // whole when they start (weights, workspace and the cache's pool, used or not); an engine that
    // cannot hold one response needs at least that much.
    const double one_response = gen.weights_bytes_per_gpu + rollout_defaults::kEngineWorkspaceBytes +
                                kv_bytes_per_token(w.model(), outcome.tp) * static_cast<double>(rl.prompt_len + rl.response_max);
    const double engine = std::max(outcome.engine_bytes_per_gpu, one_response);
    e.memory.peak_bytes = std::max(e.memory.peak_bytes, outcome.trainer_resident_bytes + engine);
  }
  if (e.step && !gen.fits) {
    e.step.reset();
    e.step_unavailable = gen.why_not;
  }
  if (e.step) {
    const StepTime update = *e.step;
    // The update's optimizer steps, at the share of the simulated trainer an RL framework sustains
    // (a loss of speed, not more work: the model FLOPs are the steps').
    const double steps = static_cast<double>(outcome.optimizer_steps);
    const double n = steps / rl_trainer_share(config.framework);
    StepTime s = update.training_repeated(n);
    s.model_flops = update.model_flops * steps;
    if (rl.critic) {
      // PPO's critic, the policy's size, trains on the same responses as the policy does (its values'
      // forward is among the log-prob passes already, so its share of the work is the update's alone).
      const StepTime critic = update.training_repeated(n);
      const double update_share = update.compute_seconds > 0.0 ? 1.0 - update.logprob_seconds / update.compute_seconds : 1.0;
      s.compute_seconds += critic.compute_seconds - critic.logprob_seconds;
      s.recompute_seconds += critic.recompute_seconds;
      s.comm_exposed_seconds += critic.comm_exposed_seconds;
      s.offload_exposed_seconds += critic.offload_exposed_seconds;
      s.optimizer_seconds += critic.optimizer_seconds;
      s.pipeline_bubble_seconds += critic.pipeline_bubble_seconds;
      s.host_exposed_seconds += critic.host_exposed_seconds;
      s.kernels += critic.kernels.scaled(update_share);
      s.model_flops += update.model_flops * steps * update_share;
    }
    s.generation_seconds = gen.seconds;
    s.sync_seconds = outcome.sync.seconds;
    // A generator a step ahead samples the next batch while the trainer trains on this one.
    if (outcome.placement == RolloutPlacement::separate && rl.off_policy_steps > 0) {
      s.generation_hidden_seconds = std::min(s.generation_seconds, s.training_seconds());
    }
    // Model FLOPs per GPU of the whole config: the trainer's on its GPUs, every engine's generation.
    s.model_flops = (s.model_flops * outcome.trainer_gpus + gen.step_model_flops) / total_gpus;
    // Inputs are bounded to plausible ranges; a step that still comes out infinite is refused.
    if (!std::isfinite(s.seconds()) || !std::isfinite(s.model_flops)) {
      throw InvalidConfig("rollout", "the simulated RL step is not a finite time: an input at the edge of its range");
    }
    e.step = s;
    c.seconds = s.seconds();
  }
  e.rollout = outcome;
  e.step_interval = {rollout_defaults::kRlStepIntervalLow, rollout_defaults::kRlStepIntervalHigh, rollout_defaults::kRlStepIntervalRows};
  c.fits = e.memory.fits() && e.step.has_value();
  c.e = std::move(e);
  return c;
}

bool better(const Candidate& a, const std::optional<Candidate>& best) {
  if (!best) return true;
  if (a.fits != best->fits) return a.fits;
  if (a.e.step.has_value() != best->e.step.has_value()) return a.e.step.has_value();
  return a.seconds < best->seconds;
}

}  // namespace

Evaluation evaluate_rl(const Workload& workload, const Machine& machine, const StrategyConfig& config, double vram_headroom,
                       bool with_trace) {
  const RlSpec& rl = *workload.job().rl;
  const int per_node = machine.node().gpus_per_node;
  const int total = config.nodes * per_node;
  std::vector<RolloutPlacement> placements;
  if (config.rollout.placement) {
    placements = {*config.rollout.placement};
  } else if (rl.placement) {
    placements = {*rl.placement};
  } else {
    placements = {RolloutPlacement::colocated};
    if (config.nodes > 1) placements.push_back(RolloutPlacement::separate);
  }
  if (config.rollout.gpus && placements == std::vector<RolloutPlacement>{RolloutPlacement::colocated}) {
    throw InvalidConfig("rollout.gpus", "no generator GPUs of its own when colocated (the engine runs on every GPU)");
  }
  std::optional<Candidate> best;
  std::string last_refusal;
  for (RolloutPlacement placement : placements) {
    std::vector<int> generator_nodes = placement == RolloutPlacement::colocated ? std::vector<int>{0} : generator_node_choices(config, per_node);
    for (int g : generator_nodes) {
      StrategyConfig trainer = config;
      trainer.nodes = config.nodes - g;
      if (g > 0) {
        // The trainer's share of the global batch: its micro-batches, accumulated over fewer replicas.
        const Parallelism& p = trainer.parallelism;
        if ((trainer.nodes * per_node) % (p.tp * p.pp * p.cp) != 0) {
          last_refusal = "the trainer's " + std::to_string(trainer.nodes * per_node) + " GPUs are not whole replicas of tp x pp x cp";
          continue;
        }
        const std::int64_t dp = data_parallel_degree(trainer.parallelism, trainer.nodes * per_node);
        const std::int64_t per_step = dp * trainer.micro_batch;
        if (dp < 1 || workload.job().global_batch_sequences % per_step != 0) {
          last_refusal = "the trainer's " + std::to_string(dp) + " replicas x micro-batch " + std::to_string(trainer.micro_batch) +
                         " do not divide the global batch of " + std::to_string(workload.job().global_batch_sequences);
          continue;
        }
        trainer.grad_accum = workload.job().global_batch_sequences / per_step;
      }
      Evaluation t;
      try {
        t = evaluate_training(workload, machine, trainer, vram_headroom, with_trace);
      } catch (const InvalidConfig& error) {
        if (g == 0) throw;  // the config itself: as evaluate() refuses any other
        last_refusal = error.what();
        continue;
      }
      const int generating = placement == RolloutPlacement::colocated ? total : g * per_node;
      RolloutOutcome base;
      base.placement = placement;
      base.generator_gpus = generating;
      base.trainer_gpus = trainer.nodes * per_node;
      const double capacity = t.memory.capacity_bytes;
      if (placement == RolloutPlacement::colocated) {
        base.trainer_resident_bytes = trainer_resident(t.memory);
        base.engine_bytes_per_gpu = config.rollout.memory_share ? *config.rollout.memory_share * capacity
                                                                : t.memory.usable_bytes - base.trainer_resident_bytes;
      } else {
        base.engine_bytes_per_gpu = std::min(t.memory.usable_bytes, config.rollout.memory_share.value_or(rollout_defaults::kEngineMemoryShare) * capacity);
      }
      for (int tp : tp_choices(workload, machine, config.rollout, generating)) {
        RolloutOutcome o = base;
        o.tp = tp;
        GenerationInputs in;
        in.workload = &workload;
        in.machine = &machine;
        in.tp = tp;
        in.gpus = generating;
        in.engine_bytes_per_gpu = base.engine_bytes_per_gpu;
        o.generation = simulate_generation(in);
        o.memory_share = capacity > 0.0 ? (o.generation.weights_bytes_per_gpu + rollout_defaults::kEngineWorkspaceBytes +
                                           o.generation.kv_pool_bytes_per_gpu) / capacity
                                        : 0.0;
        o.sync = weight_sync(workload, machine, placement, tp, base.trainer_gpus);
        try {
          Candidate c = compose(t, workload, config, o, total);
          if (better(c, best)) best = std::move(c);
        } catch (const InvalidConfig& error) {
          last_refusal = error.what();
        }
      }
    }
  }
  if (!best) {
    throw InvalidConfig("rollout", last_refusal.empty() ? "no generator layout this config allows" : last_refusal);
  }
  return std::move(best->e);
}

}  // namespace preflight
