#include "planner/report/plan_rows.hpp"

#include <algorithm>
#include "simulator/model/parameter_count.hpp"
#include "simulator/spec/units.hpp"

#include "planner/report/result_json.hpp"
#include "planner/text/number_text.hpp"
#include "planner/text/candidate_text.hpp"
#include "planner/text/job_text.hpp"

namespace preflight {

namespace {

std::string thousands(std::int64_t n) { return grouped_digits(n); }

std::string frameworks_text(const std::vector<Framework>& frameworks) {
  std::string s;
  for (const Framework f : frameworks) s += (s.empty() ? "" : " and ") + to_string(f);
  return s;
}

// "25.52 (22.7-30.6)": the step and its 80% interval; the step alone without a fit.
std::string step_cell(double seconds, const StepTimeInterval& interval) {
  if (interval.rows == 0) return fixed(seconds, 2);
  return fixed(seconds, 2) + " (" + fixed(seconds * interval.low, 1) + "-" + fixed(seconds * interval.high, 1) + ")";
}

}  // namespace

std::vector<std::string> plan_columns() {
  return {"instance", "nodes", "GPUs", "strategy", "mb x acc", "pricing", "region", "VRAM peak/cap", "step s (80%)",
          "MFU",      "hours p50/p90", "cost mean/p90", "P(deadline)"};
}

std::vector<std::string> price_lines(const Plan& p) {
  std::vector<std::string> lines;
  const auto add = [&](const PlanEntry& e) {
    const auto quote = [&](const std::string& pricing, const PriceChoice& q) {
      const std::string line = e.config().instance + " " + pricing + ": " +
                               (q.region.empty() ? usd_text(q.usd_per_node_hour) : "$" + fixed(q.usd_per_node_hour, 4)) +
                               " per node-hour, " + where_text(q) + ", " + q.basis +
                               (q.as_of.empty() ? "" : ", as of " + q.as_of) + " (" + source_text(q.source) + ")";
      if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    };
    quote(to_string(e.config().pricing), e.run.price);
    if (e.run.fallback) quote("fallback on demand", *e.run.fallback);
  };
  if (p.best) add(*p.best);
  for (const PlanEntry& e : p.alternatives) add(e);
  for (const PlanEntry& e : p.frontier) add(e);
  return lines;
}

std::vector<std::string> sensitivity_columns() {
  return {"assumption", "as planned", "optimistic", "pessimistic", "cost (optimistic-pessimistic)", "P(deadline)", "basis"};
}

std::vector<std::vector<std::string>> sensitivity_rows(const Plan& p) {
  std::vector<std::vector<std::string>> rows;
  const auto number = [](double v) { return v >= 100.0 ? fixed(v, 0) : v >= 1.0 ? fixed(v, 2) : fixed(v, 3); };
  for (const SensitivityRow& r : p.sensitivity) {
    const RunAssumption& a = r.assumption;
    rows.push_back({a.name + " (" + a.unit + ")", number(a.value), number(a.low), number(a.high),
                    usd_text(r.usd_low) + "-" + usd_text(r.usd_high), fixed(r.p_low, 3) + "-" + fixed(r.p_high, 3), a.basis});
  }
  return rows;
}

std::string spot_prior_text(const Plan& p) {
  if (!p.best || p.best->run.interruptions_source != "prior" || !p.best->node->spot_market) return {};
  const RunEstimate& r = p.best->run;
  const FigureRange& prior = p.best->node->spot_market->interruptions_per_node_hour;
  const std::string& basis = p.best->node->spot_market->basis;
  return "spot interruptions: no data for " + p.best->node->provider + "; priced at " +
         fixed(r.interruptions_per_node_hour.value_or(prior.high), 3) + " per node-hour, the pessimistic end of a prior (" +
         basis + ": median " + fixed(prior.value, 3) + ", " + fixed(prior.low, 3) + "-" + fixed(prior.high, 3) +
         "), so the plan holds if this provider reclaims as often as any shipped trace";
}

std::string break_even_text(const Plan& p) {
  if (!p.break_even) return {};
  const SpotBreakEven& b = *p.break_even;
  const bool fallback = p.best && p.best->config().pricing == Pricing::spot_with_fallback;
  std::string text = std::string(fallback ? "the same config on pure spot" : "spot") + " costs " + usd_text(b.spot_usd) +
                     " expected at the assumed " + fixed(b.assumed_rate, 3) + " interruptions per node-hour, " +
                     (b.saving_fraction >= 0.0 ? share_text(b.saving_fraction) + " less" : share_text(-b.saving_fraction) + " more") +
                     " than the same config on demand (" + usd_text(b.on_demand_usd) + ")";
  if (!b.break_even_rate) return text + "; it stays cheaper at any rate up to 100 per node-hour";
  if (b.saving_fraction < 0.0) return text + "; it is cheaper only below " + fixed(*b.break_even_rate, 3) + " per node-hour";
  return text + "; it stays cheaper up to " + fixed(*b.break_even_rate, 3) + " per node-hour (" +
         fixed(*b.break_even_rate / std::max(b.assumed_rate, 1e-12), 1) + "x the assumed rate)";
}

std::vector<std::string> plan_row(const Scenario& s, const PlanEntry& e) {
  const StrategyConfig& c = e.config();
  const RunOutcome& o = e.run.outcome;
  const MemoryEstimate& m = e.evaluation.memory;
  const StepTime& step = *e.evaluation.step;
  return {c.instance,
          std::to_string(c.nodes),
          std::to_string(c.nodes * e.node->gpus_per_node),
          strategy_text(c),
          std::to_string(c.micro_batch) + " x " + std::to_string(c.grad_accum),
          to_string(c.pricing),
          where_text(e.run.price),
          fixed(m.peak_bytes / kGiB, 1) + "/" + fixed(m.capacity_bytes / kGiB, 0) + " GiB",
          step_cell(step.seconds(), e.evaluation.step_interval),
          share_text(step_mfu(step, *e.node, s.training())),
          fixed(o.hours.p50, 1) + "/" + fixed(o.hours.p90, 1),
          usd_text(o.usd.mean) + "/" + usd_text(o.usd.p90),
          s.constraints.deadline_hours ? fixed(o.p_meets_deadline, 3) : "-"};
}

std::vector<std::string> plan_summary(const Scenario& s, const Plan& p) {
  const TrainingJob& t = s.training();
  std::string constraints = "constraints: ";
  constraints += s.constraints.deadline_hours ? "deadline " + hours_text(*s.constraints.deadline_hours) + " h with probability >= " +
                                                    fixed(s.constraints.min_completion_probability, 2)
                                              : "no deadline";
  constraints += s.constraints.budget_usd ? ", budget " + usd_text(*s.constraints.budget_usd) : ", no budget";
  constraints += ", VRAM headroom " + share_text(s.constraints.vram_headroom);
  const ParameterCount& params = s.workload.count();
  std::string model = "model " + s.model().id + " (" + grouped_digits(params.total()) + " parameters";
  if (s.model().is_moe()) model += ", " + grouped_digits(params.active_per_token()) + " active per token";
  std::vector<std::string> lines{model + "), " + fixed(t.tokens / 1e9, 2) + "B tokens, seq " + std::to_string(t.seq_len) +
                                 ", global batch " + examples_text(t, t.global_batch_sequences) +
                                 (t.objective == TrainingObjective::sft ? "" : "; " + method_text(t))};
  for (const std::string& note : s.model_source.notes) lines.push_back("note: " + note);
  lines.push_back(constraints);
  lines.push_back(
          "searched " + thousands(p.evaluated) + " configurations on " + frameworks_text(searched_frameworks(s)) + ": " +
              thousands(p.simulated) + " step simulations, " + thousands(p.monte_carlo_runs) + " Monte Carlo runs");
  return lines;
}

std::string rejection_counts(const Plan& p) {
  const auto n = [&](Verdict v) { return thousands(p.counts[static_cast<int>(v)]); };
  return "oom " + n(Verdict::oom) + ", deadline " + n(Verdict::deadline) + ", budget " + n(Verdict::budget) +
         ", probability " + n(Verdict::probability) + ", invalid " + n(Verdict::invalid) + "; pruned unsimulated: dominated " +
         n(Verdict::dominated) + ", by cost bound " + n(Verdict::bounded);
}

}  // namespace preflight
