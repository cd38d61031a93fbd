#include "planner/report/result_json.hpp"

#include <cmath>

#include "planner/run/interruption_counts.hpp"
#include "simulator/hardware/compute_model.hpp"

namespace preflight {

namespace {

std::int64_t bytes(double b) { return static_cast<std::int64_t>(std::llround(b)); }

}  // namespace

nlohmann::ordered_json memory_json(const MemoryEstimate& m, bool peak_from_timeline) {
  const MemoryBreakdown& g = m.gpu;
  nlohmann::ordered_json j;
  // The contract's peak_bytes is PyTorch's allocated peak; reserved_bytes adds the allocator's cache,
  // device_bytes the CUDA context, NCCL's buffers and paged states beside it: what must fit.
  j["peak_bytes"] = bytes(m.allocated_bytes());
  j["reserved_bytes"] = bytes(m.reserved_bytes());
  j["device_bytes"] = bytes(m.peak_bytes);
  j["peak_from"] = peak_from_timeline ? "simulated_timeline" : "sum_of_components";
  j["sum_of_components_bytes"] = bytes(g.total());
  j["capacity_bytes"] = bytes(m.capacity_bytes);
  j["usable_bytes"] = bytes(m.usable_bytes);
  j["fits"] = m.fits();
  j["fits_gpu"] = m.fits_gpu();
  // A critic's states are another model's parameters (with their gradients and optimizer states).
  j["breakdown_bytes"] = {{"params", bytes(g.params + g.reference_params + g.critic_states + g.gathered_params)},
                          {"grads", bytes(g.grads + g.grad_buffers)},
                          {"optimizer", bytes(g.optimizer)},
                          {"activations", bytes(g.activations + g.logits)},
                          {"comm_buffers", bytes(g.comm_buffers)},
                          {"overhead", bytes(g.cuda_context + g.workspace + g.fragmentation)}};
  j["detail_bytes"] = {{"params", bytes(g.params)},
                       {"reference_params", bytes(g.reference_params)},
                       {"gathered_params", bytes(g.gathered_params)},
                       {"grads", bytes(g.grads)},
                       {"grad_buffers", bytes(g.grad_buffers)},
                       {"optimizer", bytes(g.optimizer)},
                       {"activations", bytes(g.activations)},
                       {"logits", bytes(g.logits)},
                       {"comm_buffers", bytes(g.comm_buffers)},
                       {"cuda_context", bytes(g.cuda_context)},
                       {"workspace", bytes(g.workspace)},
                       {"fragmentation", bytes(g.fragmentation)}};
  if (g.critic_states > 0.0) j["detail_bytes"]["critic_states"] = bytes(g.critic_states);
  j["paged_out_bytes"] = bytes(m.paged_out_bytes);
  j["offloaded_activation_bytes"] = bytes(m.offloaded_activation_bytes);
  j["host_bytes_per_node"] = bytes(m.host_bytes_per_node);
  j["host_capacity_bytes"] = bytes(m.host_capacity_bytes);
  j["fits_host"] = m.fits_host();
  j["nvme_bytes_per_node"] = bytes(m.nvme_bytes_per_node);
  j["nvme_capacity_bytes"] = bytes(m.nvme_capacity_bytes);
  j["fits_nvme"] = m.fits_nvme();
  j["dp_degree"] = static_cast<std::int64_t>(m.dp_degree);
  j["shard_degree"] = static_cast<std::int64_t>(m.shard_degree);
  return j;
}

double step_mfu(const StepTime& s, const NodeSpec& node, const TrainingJob& job) {
  return s.model_flops / (s.seconds() * peak_flops(node.gpu, job.precision));
}

namespace {

nlohmann::ordered_json rollout_json(const RolloutOutcome& r) {
  const Generation& g = r.generation;
  nlohmann::ordered_json j;
  j["placement"] = to_string(r.placement);
  j["tp"] = r.tp;
  j["generator_gpus"] = r.generator_gpus;
  j["trainer_gpus"] = r.trainer_gpus;
  j["optimizer_steps"] = r.optimizer_steps;
  j["generation"] = {{"prefill_seconds", rounded(g.prefill_seconds, 4)},
                     {"decode_seconds", rounded(g.decode_seconds, 4)},
                     {"tail_seconds", rounded(g.tail_seconds, 4)},
                     {"decode_steps", g.decode_steps},
                     {"sequences_per_engine", g.sequences_per_engine},
                     {"most_running", g.most_running}};
  j["engine_memory"] = {{"weights_bytes", bytes(g.weights_bytes_per_gpu)},
                        {"kv_pool_bytes", bytes(g.kv_pool_bytes_per_gpu)},
                        {"kv_peak_bytes", bytes(g.kv_peak_bytes_per_gpu)},
                        {"trainer_resident_bytes", bytes(r.trainer_resident_bytes)},
                        {"memory_share", rounded(r.memory_share, 3)}};
  j["sync"] = {{"seconds", rounded(r.sync.seconds, 4)}, {"tensors", static_cast<std::int64_t>(r.sync.tensors)}};
  return j;
}

}  // namespace

nlohmann::ordered_json step_json(const Evaluation& e, const NodeSpec& node, const TrainingJob& job) {
  const StepTime& s = *e.step;
  const double tokens = job.step_tokens();
  const double seconds = s.seconds();
  nlohmann::ordered_json j;
  j["seconds"] = rounded(seconds, 4);
  // The 80% prediction interval of the fit's held-out residuals; [seconds, seconds] without a fit.
  j["seconds_interval"] = {rounded(seconds * e.step_interval.low, 4), rounded(seconds * e.step_interval.high, 4)};
  j["tokens_per_second"] = rounded(tokens / seconds, 1);
  j["mfu"] = rounded(step_mfu(s, node, job), 4);
  j["breakdown_seconds"] = {{"compute", rounded(s.compute_seconds, 4)},
                            {"recompute", rounded(s.recompute_seconds, 4)},
                            {"comm_exposed", rounded(s.comm_exposed_seconds, 4)},
                            {"offload_exposed", rounded(s.offload_exposed_seconds, 4)},
                            {"optimizer", rounded(s.optimizer_seconds, 4)},
                            {"pipeline_bubble", rounded(s.pipeline_bubble_seconds, 4)},
                            {"host_exposed", rounded(s.host_exposed_seconds, 4)}};
  // A post-training step by phase (the contract's names): the no-grad forwards that give the
  // reference's log-probabilities, and the policy's update (the rest); preference objectives generate
  // nothing and sync no weights to a generator.
  // An RL step's generation is the engines' whole sampling time; placed apart a step ahead, part of
  // it hides behind training, so the phases may add up to more than the step.
  if (job.objective != TrainingObjective::sft) {
    j["phases_seconds"] = {{"generation", rounded(s.generation_seconds, 4)},
                           {"logprob", rounded(s.logprob_seconds, 4)},
                           {"update", rounded(s.training_seconds() - s.logprob_seconds, 4)},
                           {"sync", rounded(s.sync_seconds, 4)}};
  }
  if (e.rollout) j["rollout"] = rollout_json(*e.rollout);
  // Compute and recompute again, by the class of kernel that spends them.
  j["kernel_seconds"] = {{"gemm", rounded(s.kernels.gemm, 4)},
                         {"attention", rounded(s.kernels.attention, 4)},
                         {"memory_bound", rounded(s.kernels.memory_bound, 4)}};
  j["attention_kernel"] = to_string(e.stack.attention);
  j["model"] = "discrete_event";
  return j;
}

}  // namespace preflight

namespace preflight {

namespace {

nlohmann::ordered_json distribution_json(const Distribution& d, int decimals) {
  return {{"mean", rounded(d.mean, decimals)}, {"p50", rounded(d.p50, decimals)}, {"p90", rounded(d.p90, decimals)}};
}

nlohmann::ordered_json optional_number(const std::optional<double>& v, int decimals) {
  return v ? nlohmann::ordered_json(rounded(*v, decimals)) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json run_json(const RunEstimate& r) {
  const CheckpointPlan& c = r.checkpoint;
  nlohmann::ordered_json j;
  j["steps"] = r.steps;
  j["hours"] = distribution_json(r.outcome.hours, 3);
  j["failure_free_hours"] = rounded(r.outcome.failure_free_hours, 3);
  j["checkpoint"] = {{"bytes", bytes(c.bytes)},
                     {"write_seconds", rounded(c.write_seconds, 2)},
                     {"stall_seconds", rounded(c.stall_seconds, 2)},
                     {"interval_minutes", rounded(c.interval_seconds / 60.0, 2)},
                     {"interval_steps", c.interval_steps},
                     {"overhead_fraction", rounded(c.overhead_fraction, 5)},
                     {"disk_bytes", bytes(c.disk_bytes)},
                     {"disk_bytes_per_node", bytes(r.disk_bytes_per_node)},
                     {"fits_local_disk", r.fits_local_disk},
                     {"storage", std::string(name_of(kCheckpointStorageNames, r.storage))},
                     {"survives_reclaim", r.checkpoints_survive},
                     {"mode", std::string(name_of(kCheckpointModeNames, r.checkpoint_mode))},
                     {"sharded", r.sharded_writes}};
  j["preemptions_expected"] = rounded(reclaims_expected(r), 3);
  j["failures_expected"] = rounded(faults_expected(r), 3);
  j["failures_per_hour"] = rounded(r.faults_per_hour, 6);
  j["startup_hours"] = rounded(r.startup_hours, 3);
  j["sustained_share"] = rounded(r.sustained.share, 4);
  j["sustained_basis"] = r.sustained.basis;
  j["interruption_model"] = r.interruption_model;
  j["interruptions"] = {{"source", r.interruptions_source}};
  j["job_interruptions_per_hour"] = rounded(r.job_interruptions_per_hour, 6);
  j["interruptions_per_node_hour"] = optional_number(r.interruptions_per_node_hour, 6);
  j["reclaim_fraction"] = rounded(r.reclaim_fraction, 4);
  j["reacquire_hours"] = rounded(r.reacquire_hours, 4);
  j["billed_hours_mean"] = rounded(r.outcome.billed_hours, 3);
  j["fallback_hours_mean"] = rounded(r.outcome.fallback_hours, 3);
  j["fallback_probability"] = rounded(r.outcome.fallback_probability, 4);
  j["warnings"] = r.warnings;
  return j;
}

nlohmann::ordered_json cost_json(const RunEstimate& r, Pricing pricing) {
  const RunOutcome& o = r.outcome;
  nlohmann::ordered_json j;
  j["usd_per_hour"] = rounded(r.usd_per_hour, 4);
  nlohmann::ordered_json usd = distribution_json(o.usd, 2);
  // The mean's lines: machines (spot and on-demand fallback), checkpoint storage, egress, the
  // electricity of owned machines; they add up to the total, the mean.
  const double electricity = o.billed_hours * r.electricity_usd_per_hour;
  usd["compute"] = rounded(o.compute_usd - electricity, 2);
  usd["storage"] = rounded(o.storage_usd, 2);
  usd["egress"] = rounded(o.fixed_usd, 2);
  usd["electricity"] = rounded(electricity, 2);
  usd["total"] = rounded(o.usd.mean, 2);
  j["usd"] = usd;
  j["p_meets_deadline"] = rounded(o.p_meets_deadline, 4);
  j["pricing"] = to_string(pricing);
  j["region"] = r.price.region;
  j["zone"] = r.price.zone;
  j["as_of"] = r.price.as_of;
  j["price_source"] = r.price.source;
  j["price_basis"] = r.price.basis;
  j["term"] = r.price.term;
  j["usd_per_node_hour"] = rounded(r.price.usd_per_node_hour, 4);
  j["usd_per_node_hour_range"] = {rounded(r.price.low_usd_per_node_hour, 4), rounded(r.price.high_usd_per_node_hour, 4)};
  j["quotes"] = r.price.quotes;
  if (r.block_nodes > 0) {
    j["capacity_block"] = {{"hours", rounded(o.block_hours, 2)}, {"nodes", r.block_nodes}, {"lead_hours", rounded(r.inputs.start_delay_hours, 2)}};
  } else {
    j["capacity_block"] = nullptr;
  }
  if (r.fallback) {
    j["fallback"] = {{"usd_per_node_hour", rounded(r.fallback->usd_per_node_hour, 4)},
                     {"region", r.fallback->region},
                     {"zone", r.fallback->zone},
                     {"as_of", r.fallback->as_of},
                     {"price_source", r.fallback->source},
                     {"price_basis", r.fallback->basis},
                     {"term", r.fallback->term}};
  } else {
    j["fallback"] = nullptr;
  }
  j["storage"] = {{"usd_per_hour", rounded(r.storage_usd_per_hour, 6)}, {"basis", r.storage_basis}};
  j["egress"] = {{"GB", rounded(r.egress_gb, 3)}, {"usd", rounded(r.egress_usd, 2)}, {"basis", r.egress_basis}};
  j["electricity_usd_per_hour"] = rounded(r.electricity_usd_per_hour, 4);
  return j;
}

nlohmann::ordered_json energy_json(const RunEstimate& r) {
  const RunEnergy e = run_energy(r);
  nlohmann::ordered_json j;
  j["kwh"] = rounded(e.kwh, 1);
  j["co2e_kg"] = rounded(e.co2e_kg, 1);
  j["grid_gco2e_per_kwh"] = rounded(r.site.gco2e_per_kwh, 1);
  j["pue"] = rounded(r.site.pue, 3);
  j["facility_kw"] = rounded(r.facility_kw, 2);
  j["hours"] = rounded(e.hours, 2);
  j["grid_regional"] = r.site.regional;  // false: the world average stands in for the region
  j["grid_source"] = r.site.grid_source;
  j["pue_source"] = r.site.pue_source;
  return j;
}

nlohmann::ordered_json result_json(const Evaluation& e, const RunEstimate& run, const NodeSpec& node,
                                   const TrainingJob& job) {
  nlohmann::ordered_json j;
  j["config"] = config_json(e.config);
  // How it saves, as chosen where the config left it to the stack: the config reads back the same.
  j["config"]["checkpoint"] = {{"mode", std::string(name_of(kCheckpointModeNames, run.checkpoint_mode))},
                               {"sharded", run.sharded_writes},
                               {"storage", std::string(name_of(kCheckpointStorageNames, run.storage))}};
  j["memory"] = memory_json(e.memory, e.peak_from_timeline);
  j["step"] = step_json(e, node, job);
  j["run"] = run_json(run);
  j["cost"] = cost_json(run, e.config.pricing);
  if (node.owned) {
    j["cost"]["owned"] = {{"purchase_usd", node.owned->purchase_usd},
                          {"lifetime_years", node.owned->lifetime_years},
                          {"utilisation", node.owned->utilisation},
                          {"usd_per_node_hour", rounded(node.owned->usd_per_node_hour(), 4)}};
  } else {
    j["cost"]["owned"] = nullptr;
  }
  j["energy"] = energy_json(run);
  return j;
}

}  // namespace preflight
