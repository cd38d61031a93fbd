#include "planner/search/plan_suggestions.hpp"

#include <algorithm>

#include "planner/search/candidate_search.hpp"
#include "planner/search/search_space.hpp"
#include "planner/text/candidate_text.hpp"
#include "planner/text/number_text.hpp"

namespace preflight {

namespace {

PlanEntry with_monte_carlo(PlanEntry e) {
  if (!e.monte_carlo) e.run.outcome = simulate_run(e.run.inputs);
  e.monte_carlo = true;
  return e;
}

// A later deadline and a bigger budget, from the same search without either, each offered only when
// it is what binds: the quickest plan within the budget sets the deadline (the fastest plan overall
// is no answer when it costs more than the budget), the cheapest that meets the deadline sets the
// budget.
void relaxed_constraints(const Scenario& s, const Catalog& catalog, const Plan& plan, const PlanOptions& options,
                         std::vector<std::string>& out) {
  if (s.constraints.deadline_hours || s.constraints.budget_usd) {
    Scenario open = s;
    open.constraints.deadline_hours.reset();
    open.constraints.budget_usd.reset();
    const Plan unconstrained = search_candidates(open, catalog, options);
    const ScreenedEntries& fit = unconstrained.screened;
    if (s.constraints.deadline_hours) {
      const PlanEntry* quickest = nullptr;
      for (const PlanEntry& e : fit) {
        if (s.constraints.budget_usd && e.lower_bound_usd() > *s.constraints.budget_usd) continue;
        if (quickest == nullptr || e.run.outcome.failure_free_hours < quickest->run.outcome.failure_free_hours) quickest = &e;
      }
      if (quickest != nullptr) {
        const PlanEntry e = with_monte_carlo(*quickest);
        const bool affordable = !s.constraints.budget_usd || e.run.outcome.usd.mean <= *s.constraints.budget_usd;
        if (affordable && e.run.outcome.hours_at_target > *s.constraints.deadline_hours) {
          out.push_back("a deadline of " + fixed(e.run.outcome.hours_at_target, 1) + " h: the quickest plan " +
                        (s.constraints.budget_usd ? "within the budget" : "that fits") + ", " + candidate_text(*e.node, e.config()) +
                        ", finishes by then with probability " + fixed(s.constraints.min_completion_probability, 2) + " for " +
                        usd_text(e.run.outcome.usd.mean) + " expected");
        }
      }
    }
    if (s.constraints.budget_usd) {
      const PlanEntry* cheapest = nullptr;
      for (const PlanEntry& e : fit) {
        if (s.constraints.deadline_hours && e.run.outcome.failure_free_hours > *s.constraints.deadline_hours) continue;
        if (cheapest == nullptr || e.expected_usd() < cheapest->expected_usd()) cheapest = &e;
      }
      if (cheapest != nullptr) {
        const PlanEntry e = with_monte_carlo(*cheapest);
        if (e.run.outcome.usd.mean > *s.constraints.budget_usd) {
          out.push_back("a budget of " + usd_text(e.run.outcome.usd.mean) + ": " + candidate_text(*e.node, e.config()) +
                        ", P(deadline) " + fixed(e.run.outcome.p_meets_deadline, 3));
        }
      }
    }
  }
  bool lost_checkpoints = false;
  const PlanEntry* likeliest = nullptr;
  for (const PlanEntry& e : plan.screened) {
    if (e.verdict != Verdict::probability) continue;
    lost_checkpoints = lost_checkpoints || (on_spot(e.config().pricing) && e.run.checkpoint.interval_steps == 0);
    if (!(e.run.outcome.p_meets_deadline > 0.0)) continue;  // a run that never finishes is no offer
    if (likeliest == nullptr || e.run.outcome.p_meets_deadline > likeliest->run.outcome.p_meets_deadline) likeliest = &e;
  }
  if (lost_checkpoints) {
    out.push_back(s.checkpoint.settings.resumable
                      ? "checkpoints that survive a reclaim (checkpoint.storage object_store or network): on local NVMe a reclaim "
                        "takes them, and every interruption restarts spot from step 0"
                      : "resumable checkpoints (checkpoint.resumable true): weights alone cannot resume a run, so every spot "
                        "interruption restarts it from step 0");
  }
  if (likeliest != nullptr) {
    const PlanEntry e = with_monte_carlo(*likeliest);
    out.push_back("accepting a completion probability of " + fixed(e.run.outcome.p_meets_deadline, 3) + ": " +
                  candidate_text(*e.node, e.config()) + " for " + usd_text(e.run.outcome.usd.mean) + " expected");
  }
}

// The winner of the same search with one thing relaxed, in words; empty when that finds nothing either.
std::string relaxed_search(const Scenario& changed, const Catalog& catalog, const PlanOptions& options) {
  const Plan p = search_candidates(changed, catalog, options);
  if (!p.best) return {};
  const RunOutcome& r = p.best->run.outcome;
  return candidate_text(*p.best->node, p.best->config()) + ": " + usd_text(r.usd.mean) + " expected, " +
         fixed(r.hours.mean, 1) + " h, P(deadline) " + fixed(r.p_meets_deadline, 3);
}

}  // namespace

std::vector<std::string> suggest_changes(const Scenario& s, const Catalog& catalog, const Plan& plan,
                                         const PlanOptions& options) {
  std::vector<std::string> out;
  relaxed_constraints(s, catalog, plan, options, out);
  bool more_nodes_possible = false;
  for (const NodeSpec* node : searched_machines(s, catalog)) more_nodes_possible |= node->node_limit() > s.search.max_nodes;
  if (more_nodes_possible) {
    Scenario more = s;
    more.search.max_nodes = std::min(4096, s.search.max_nodes * 4);
    if (std::string w = relaxed_search(more, catalog, options); !w.empty()) {
      out.push_back("allowing up to " + std::to_string(more.search.max_nodes) + " nodes: " + w);
    }
  }
  if (!s.search.instances.empty() || !s.search.gpus.empty()) {
    Scenario anywhere = s;
    anywhere.search.instances.clear();
    anywhere.search.gpus.clear();
    if (std::string w = relaxed_search(anywhere, catalog, options); !w.empty()) {
      out.push_back("any machine in the catalog (up to " + std::to_string(s.search.max_nodes) + " nodes): " + w);
    }
  }
  if (out.empty()) out.push_back("no relaxation searched (more nodes, any machine) finds a feasible plan either");
  return out;
}

}  // namespace preflight
