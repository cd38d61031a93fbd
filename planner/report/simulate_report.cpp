#include "planner/report/simulate_report.hpp"

#include "planner/report/model_summary.hpp"

#include <sstream>

#include "planner/report/cost_lines.hpp"
#include "planner/run/interruption_counts.hpp"
#include "planner/report/result_json.hpp"
#include "planner/text/candidate_text.hpp"
#include "planner/text/step_text.hpp"
#include "planner/text/number_text.hpp"

namespace preflight {

namespace {

std::string hours_distribution_text(const Distribution& d) {
  return fixed(d.mean, 1) + " h (p50 " + fixed(d.p50, 1) + ", p90 " + fixed(d.p90, 1) + ")";
}

std::string usd_distribution_text(const Distribution& d) {
  return "$" + fixed(d.mean, 2) + " (p50 $" + fixed(d.p50, 2) + ", p90 $" + fixed(d.p90, 2) + ")";
}

}  // namespace

std::string simulate_text(const Scenario& s, const NodeSpec& node, const Evaluation& e, const RunEstimate& r) {
  std::ostringstream out;
  const StrategyConfig& c = e.config;
  out << "preflight simulate: " << s.name << "\n";
  const std::vector<std::string> model = model_lines(s);
  for (std::size_t i = 0; i < model.size(); ++i) out << (i == 0 ? "  model    " : "           ") << model[i] << "\n";
  out << "  machine  " << c.nodes << " x " << node.id << ", " << to_string(c.pricing) << " $"
      << fixed(r.price.usd_per_node_hour, 4) << "/h per node at " << where_text(r.price) << " (" << r.price.basis
      << (r.price.as_of.empty() ? "" : ", as of " + r.price.as_of) << "; " << source_text(r.price.source) << ")\n";
  if (r.fallback) {
    out << "  fallback on demand $" << fixed(r.fallback->usd_per_node_hour, 4) << "/h per node at " << where_text(*r.fallback)
        << " (" << r.fallback->basis << ")\n";
  }
  out << "  config   " << to_string(c.framework) << ", " << to_string(c.sharding) << ", checkpointing "
      << to_string(c.recompute) << ", micro-batch " << c.micro_batch << " x accum " << c.grad_accum;
  if (const std::string layout = layout_text(c.parallelism); !layout.empty()) out << ", " << layout;
  out << ", attention " << to_string(e.stack.attention) << "\n";
  out << "  memory   peak " << gib(e.memory.peak_bytes) << " of " << gib(e.memory.capacity_bytes)
      << (e.memory.fits() ? " (fits)" : " (DOES NOT FIT: see `preflight check`)") << "\n";
  const StepTime& st = *e.step;
  out << "  step     " << fixed(st.seconds(), 3) << " s simulated (" << step_parts_text(st) << "), " << r.steps << " steps\n";
  if (const std::string interval = step_interval_text(st.seconds(), e.step_interval, 3); !interval.empty()) {
    out << "           " << interval << "\n";
  }
  if (e.rollout) {
    // Where the generator ran and what bounds it: its batch, its cache and the longest responses' tail.
    const RolloutOutcome& o = *e.rollout;
    const Generation& g = o.generation;
    out << "  rollout  " << to_string(o.placement) << ", engines of tp " << o.tp << " on " << o.generator_gpus << " GPUs"
        << (o.placement == RolloutPlacement::separate ? " (trainer on " + std::to_string(o.trainer_gpus) + ")" : "") << ": "
        << g.sequences_per_engine << " responses an engine, at most " << g.most_running << " at once; prefill "
        << fixed(g.prefill_seconds, 2) << " s + decode " << fixed(g.decode_seconds, 2) << " s (" << g.decode_steps << " steps"
        << (g.tail_seconds > 0.0 ? ", the tail " + fixed(g.tail_seconds, 2) + " s" : std::string()) << "); KV cache "
        << gib(g.kv_peak_bytes_per_gpu) << " of "
        << gib(g.kv_pool_bytes_per_gpu) << " a GPU (engine share " << fixed(o.memory_share, 2) << "); sync "
        << fixed(o.sync.seconds, 2) << " s; update " << o.optimizer_steps << " optimizer steps\n";
  }
  const CheckpointPlan& k = r.checkpoint;
  if (k.interval_steps > 0) {
    out << "  ckpt     " << fixed(k.bytes / 1e9, 1) << " GB every " << fixed(k.interval_seconds / 60.0, 1) << " min ("
        << k.interval_steps << " steps), write " << fixed(k.write_seconds, 1) << " s, stall "
        << fixed(k.stall_seconds, 1) << " s, overhead " << fixed(k.overhead_fraction * 100.0, 2) << "%, disk "
        << fixed(k.disk_bytes / 1e9, 1) << " GB" << (r.fits_local_disk ? "" : " (MORE THAN THE LOCAL NVMe)") << "\n";
  } else {
    out << "  ckpt     none (an interruption restarts the run from step 0)\n";
  }
  out << "  storage  " << name_of(kCheckpointStorageNames, r.storage)
      << (r.checkpoints_survive ? "" : ", LOST with a reclaimed instance") << "\n";
  out << "  interruptions " << r.interruption_model << ", " << fixed(r.job_interruptions_per_hour, 4)
      << " reclaims per hour for the job and " << fixed(r.faults_per_hour, 4) << " faults: " << interruptions_text(r) << "\n";
  // Failure-free at the simulated step: the run's hours above step at the sustained share besides.
  out << "  hours    " << hours_distribution_text(r.outcome.hours) << ", failure-free " << fixed(r.outcome.failure_free_hours, 1)
      << " h at the simulated step\n";
  out << "  cost     " << usd_distribution_text(r.outcome.usd) << "\n";
  for (const std::string& line : cost_lines(r, c)) out << "           " << line << "\n";
  if (s.constraints.deadline_hours) {
    out << "  deadline " << fixed(*s.constraints.deadline_hours, 1) << " h met with probability "
        << fixed(r.outcome.p_meets_deadline, 3) << "\n";
  }
  return out.str();
}

nlohmann::ordered_json simulate_json(const Scenario& s, const NodeSpec& node, const Evaluation& e, const RunEstimate& r,
                                     std::uint64_t seed, int trials) {
  nlohmann::ordered_json j;
  j["scenario"] = s.name;
  j["model"] = model_json(s);
  j.update(result_json(e, r, node, s.training()));
  j["seed"] = seed;
  j["trials"] = trials;
  return j;
}

}  // namespace preflight
