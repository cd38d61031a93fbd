#include <cmath>

#include "planner/run/interruption_counts.hpp"
#include "planner/report/plan_report.hpp"
#include "planner/report/result_json.hpp"
#include "planner/text/number_text.hpp"
#include "planner/text/markup_text.hpp"

namespace preflight {

namespace {

std::string optional_fixed(bool present, double value, int decimals) { return present ? fixed(value, decimals) : ""; }

// A closed form of a run that never finishes is infinite: an empty cell, never "inf".
std::string finite_fixed(double value, int decimals) { return std::isfinite(value) ? fixed(value, decimals) : ""; }

std::string joined_warnings(const std::vector<std::string>& warnings) {
  std::string s;
  for (const std::string& w : warnings) s += (s.empty() ? "" : "; ") + w;
  return s;
}

}  // namespace

// The stack's columns come last, so the contract's columns keep their places. Monte Carlo columns are empty where the search pruned the config by its cost bound before a Monte
// Carlo; the closed-form expected hours and cost are there for every row.
std::string plan_csv(const Scenario& s, const Plan& p) {
  std::string out =
      "instance,nodes,gpus,tp,pp,sequence_parallel,interleave,sharding,offload_optimizer,offload_params,"
      "activation_checkpointing,micro_batch,grad_accum,"
      "pricing,usd_per_hour,device_bytes,usable_bytes,step_seconds,mfu,failure_free_hours,expected_hours,expected_usd,"
      "monte_carlo,hours_p50,hours_p90,usd_mean,usd_p90,p_meets_deadline,verdict,framework,attention_kernel,"
      "step_seconds_low,step_seconds_high,region,zone,price_as_of,price_source,usd_per_node_hour,checkpoint_storage,"
      "storage_usd_per_hour,egress_usd,compute_usd,storage_usd,total_usd,fallback_hours,warnings,electricity_usd,"
      "fallback_usd_per_node_hour,fallback_region,ep,cp,etp,ep_comm_overlap,tp_comm_overlap,price_term,"
      "failures_expected,preemptions_expected,startup_hours,checkpoint_mode,energy_kwh,co2e_kg,grid_gco2e_per_kwh,pue,sustained_share\n";
  for (const PlanEntry& e : p.screened) {
    const StrategyConfig& c = e.config();
    const RunOutcome& o = e.run.outcome;
    const bool mc = e.monte_carlo;
    const std::vector<std::string> cells{
        csv_cell(c.instance), std::to_string(c.nodes), std::to_string(c.nodes * e.node->gpus_per_node),
        std::to_string(c.parallelism.tp), std::to_string(c.parallelism.pp), c.parallelism.sequence_parallel ? "true" : "false",
        std::to_string(c.parallelism.interleave), to_string(c.sharding), to_string(c.offload.optimizer), to_string(c.offload.params), to_string(c.recompute),
        std::to_string(c.micro_batch), std::to_string(c.grad_accum), to_string(c.pricing), fixed(e.run.usd_per_hour, 4),
        fixed(e.evaluation.memory.peak_bytes, 0), fixed(e.evaluation.memory.usable_bytes, 0),
        fixed(e.evaluation.step->seconds(), 4), fixed(step_mfu(*e.evaluation.step, *e.node, s.training()), 4),
        fixed(o.failure_free_hours, 3), finite_fixed(e.run.expected_hours, 3), finite_fixed(e.expected_usd(), 2), mc ? "yes" : "no",
        optional_fixed(mc, o.hours.p50, 3), optional_fixed(mc, o.hours.p90, 3), optional_fixed(mc, o.usd.mean, 2),
        optional_fixed(mc, o.usd.p90, 2), optional_fixed(mc, o.p_meets_deadline, 4), to_string(e.verdict),
        to_string(c.framework), to_string(e.evaluation.stack.attention),
        fixed(e.evaluation.step->seconds() * e.evaluation.step_interval.low, 4),
        fixed(e.evaluation.step->seconds() * e.evaluation.step_interval.high, 4),
        csv_cell(e.run.price.region), csv_cell(e.run.price.zone), csv_cell(e.run.price.as_of), csv_cell(e.run.price.source),
        fixed(e.run.price.usd_per_node_hour, 4), std::string(name_of(kCheckpointStorageNames, e.run.storage)),
        fixed(e.run.storage_usd_per_hour, 6), fixed(e.run.egress_usd, 2),
        optional_fixed(mc, o.compute_usd - o.billed_hours * e.run.electricity_usd_per_hour, 2), optional_fixed(mc, o.storage_usd, 2),
        optional_fixed(mc, o.usd.mean, 2), optional_fixed(mc, o.fallback_hours, 3), csv_cell(joined_warnings(e.run.warnings)),
        optional_fixed(mc, o.billed_hours * e.run.electricity_usd_per_hour, 2),
        e.run.fallback ? fixed(e.run.fallback->usd_per_node_hour, 4) : "", e.run.fallback ? csv_cell(e.run.fallback->region) : "",
        std::to_string(c.parallelism.ep), std::to_string(c.parallelism.cp), std::to_string(c.parallelism.expert_tp()),
        c.parallelism.ep_comm_overlap ? "true" : "false", c.parallelism.tp_comm_overlap ? "true" : "false", e.run.price.term,
        optional_fixed(mc, faults_expected(e.run), 4), optional_fixed(mc, reclaims_expected(e.run), 4), fixed(e.run.startup_hours, 4),
        std::string(name_of(kCheckpointModeNames, e.run.checkpoint_mode)),
        optional_fixed(mc, run_energy(e.run).kwh, 1), optional_fixed(mc, run_energy(e.run).co2e_kg, 1), fixed(e.run.site.gco2e_per_kwh, 1),
        fixed(e.run.site.pue, 3), fixed(e.run.sustained.share, 4)};
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  }
  return out;
}

}  // namespace preflight
