#include "planner/search/plan_ranking.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include <tbb/parallel_for.h>

#include "planner/text/number_text.hpp"
#include "planner/text/candidate_text.hpp"

namespace preflight {

namespace {

// Monte Carlo runs started together; fixed, so where the bound stops does not depend on threads.
constexpr std::size_t kBatch = 8;
// Frontier points given a Monte Carlo at most; evenly spread over the closed-form frontier.
constexpr std::size_t kFrontierPoints = 16;

// How much machinery a config asks of the engine; on a tie the simpler one wins (less to go wrong).
int complexity(const StrategyConfig& c) {
  return 100 * sharding_scheme(c.sharding).stage + 10 * (static_cast<int>(c.offload.optimizer) + static_cast<int>(c.offload.params)) +
         static_cast<int>(c.recompute);
}

bool cheaper(const PlanEntry& a, const PlanEntry& b) {
  const Distribution &ua = a.run.outcome.usd, &ub = b.run.outcome.usd;
  if (ua.mean != ub.mean) return ua.mean < ub.mean;
  if (ua.p90 != ub.p90) return ua.p90 < ub.p90;
  if (a.run.outcome.hours.mean != b.run.outcome.hours.mean) return a.run.outcome.hours.mean < b.run.outcome.hours.mean;
  return complexity(a.config()) < complexity(b.config());
}

class Ranker {
 public:
  Ranker(const Scenario& s, const PlanOptions& o, std::vector<PlanEntry> entries) : s_(s), o_(o) {
    r_.entries = std::move(entries);
  }

  RankingResult rank() {
    branch_and_bound();
    frontier();
    for (const PlanEntry& e : r_.entries) {
      if (e.verdict == Verdict::bounded || e.monte_carlo) ++r_.counts[static_cast<int>(e.verdict)];
    }
    std::vector<std::size_t> feasible = feasible_by_cost();
    if (!feasible.empty()) {
      r_.best = r_.entries[feasible.front()];
      for (std::size_t i : feasible) {
        const PlanEntry& e = r_.entries[i];
        if (static_cast<int>(r_.alternatives.size()) >= o_.top) break;
        const auto seen = [&](const PlanEntry& a) { return same_choice(a, e); };
        if (seen(*r_.best) || std::any_of(r_.alternatives.begin(), r_.alternatives.end(), seen)) continue;
        r_.alternatives.push_back(e);
      }
    }
    return std::move(r_);
  }

 private:
  void monte_carlo(const std::vector<std::size_t>& which) {
    tbb::parallel_for(std::size_t{0}, which.size(), [&](std::size_t k) {
      PlanEntry& e = r_.entries[which[k]];
      e.run.outcome = simulate_run(e.run.inputs);
      e.monte_carlo = true;
    });
    r_.monte_carlo_runs += static_cast<std::int64_t>(which.size());
    for (std::size_t i : which) classify(r_.entries[i]);
  }

  void classify(PlanEntry& e) {
    const RunOutcome& o = e.run.outcome;
    const auto label = [&] { return candidate_text(*e.node, e.config()); };
    const double need = s_.constraints.min_completion_probability;
    if (s_.constraints.deadline_hours && o.p_meets_deadline < need) {
      e.verdict = Verdict::probability;
      keep_nearest(r_.misses, Verdict::probability, need - o.p_meets_deadline, false, [&] { return label() + ": meets the " + hours_text(*s_.constraints.deadline_hours) + " h deadline with probability " +
                                   fixed(o.p_meets_deadline, 3) + " (" + fixed(need, 2) + " required; " +
                                   fixed(o.hours_at_target, 1) + " h at that probability)"; });
    } else if (s_.constraints.budget_usd && o.usd.mean > *s_.constraints.budget_usd) {
      e.verdict = Verdict::budget;
      keep_nearest(r_.misses, Verdict::budget, o.usd.mean / *s_.constraints.budget_usd - 1.0, false, [&] { return label() + ": expected cost " + usd_text(o.usd.mean) + " with interruptions"; });
    } else {
      e.verdict = Verdict::feasible;
    }
  }

  std::vector<std::size_t> pending_by_lower_bound() const {
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < r_.entries.size(); ++i) {
      if (r_.entries[i].verdict == Verdict::bounded) pending.push_back(i);
    }
    std::stable_sort(pending.begin(), pending.end(), [&](std::size_t a, std::size_t b) {
      const PlanEntry &ea = r_.entries[a], &eb = r_.entries[b];
      if (ea.lower_bound_usd() != eb.lower_bound_usd()) return ea.lower_bound_usd() < eb.lower_bound_usd();
      return ea.expected_usd() < eb.expected_usd();
    });
    return pending;
  }

  // The mean cost the next candidate must beat to change the answer: the (top+1)-th distinct choice's
  // best, once that many choices are feasible.
  std::optional<double> cost_to_beat() const {
    std::vector<const PlanEntry*> best_per_choice;
    for (std::size_t i : feasible_by_cost()) {
      const PlanEntry& e = r_.entries[i];
      const auto seen = [&](const PlanEntry* a) { return same_choice(*a, e); };
      if (std::none_of(best_per_choice.begin(), best_per_choice.end(), seen)) best_per_choice.push_back(&e);
    }
    const std::size_t need = static_cast<std::size_t>(o_.top) + 1;
    if (best_per_choice.size() < need) return std::nullopt;
    return best_per_choice[need - 1]->run.outcome.usd.mean;
  }

  using Choice = std::tuple<const NodeSpec*, int, Pricing>;
  static Choice choice(const PlanEntry& e) { return {e.node, e.config().nodes, e.config().pricing}; }

  // Pending entries in ascending lower bound; a batch skips those that cannot improve their own
  // choice's best, and the search stops where none left can enter the winner and its alternatives.
  void branch_and_bound() {
    const std::vector<std::size_t> pending = pending_by_lower_bound();
    std::map<Choice, double> best_of_choice;  // the best feasible mean cost found per choice
    std::size_t pos = 0;
    while (pos < pending.size()) {
      if (const std::optional<double> bar = cost_to_beat(); bar && r_.entries[pending[pos]].lower_bound_usd() > *bar) break;
      std::vector<std::size_t> batch;
      for (; pos < pending.size() && batch.size() < kBatch; ++pos) {
        const PlanEntry& e = r_.entries[pending[pos]];
        const auto own = best_of_choice.find(choice(e));
        if (own == best_of_choice.end() || e.lower_bound_usd() <= own->second) batch.push_back(pending[pos]);
      }
      monte_carlo(batch);
      for (std::size_t i : batch) {
        const PlanEntry& e = r_.entries[i];
        if (e.verdict != Verdict::feasible) continue;
        const auto [it, inserted] = best_of_choice.emplace(choice(e), e.run.outcome.usd.mean);
        if (!inserted) it->second = std::min(it->second, e.run.outcome.usd.mean);
      }
    }
  }

  // Pareto over (expected hours, expected cost) in closed form, a Monte Carlo for up to
  // kFrontierPoints of it, then the frontier of what is feasible after the Monte Carlo.
  void frontier() {
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < r_.entries.size(); ++i) {
      const Verdict v = r_.entries[i].verdict;
      if (v == Verdict::bounded || v == Verdict::feasible) open.push_back(i);
    }
    const auto hours = [&](std::size_t i) {
      const PlanEntry& e = r_.entries[i];
      return e.monte_carlo ? e.run.outcome.hours.mean : e.run.expected_hours;
    };
    const auto usd = [&](std::size_t i) {
      const PlanEntry& e = r_.entries[i];
      return e.monte_carlo ? e.run.outcome.usd.mean : e.expected_usd();
    };
    std::vector<std::size_t> front = pareto(open, hours, usd);
    if (front.size() > kFrontierPoints) {
      std::vector<std::size_t> spread;
      for (std::size_t k = 0; k < kFrontierPoints; ++k) spread.push_back(front[k * (front.size() - 1) / (kFrontierPoints - 1)]);
      front = spread;
    }
    std::vector<std::size_t> todo;
    for (std::size_t i : front) {
      if (!r_.entries[i].monte_carlo) todo.push_back(i);
    }
    monte_carlo(todo);
    std::vector<std::size_t> feasible;
    for (std::size_t i : open) {
      if (r_.entries[i].verdict == Verdict::feasible) feasible.push_back(i);
    }
    for (std::size_t i : pareto(feasible, hours, usd)) r_.frontier.push_back(r_.entries[i]);
  }

  template <class Hours, class Usd>
  static std::vector<std::size_t> pareto(std::vector<std::size_t> candidates, Hours hours, Usd usd) {
    std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
      return hours(a) != hours(b) ? hours(a) < hours(b) : usd(a) < usd(b);
    });
    std::vector<std::size_t> front;
    for (std::size_t i : candidates) {
      if (front.empty() || usd(i) < usd(front.back())) front.push_back(i);
    }
    return front;
  }

  std::vector<std::size_t> feasible_by_cost() const {
    std::vector<std::size_t> f;
    for (std::size_t i = 0; i < r_.entries.size(); ++i) {
      if (r_.entries[i].verdict == Verdict::feasible) f.push_back(i);
    }
    std::stable_sort(f.begin(), f.end(), [&](std::size_t a, std::size_t b) { return cheaper(r_.entries[a], r_.entries[b]); });
    return f;
  }

  const Scenario& s_;
  const PlanOptions& o_;
  RankingResult r_;
};

}  // namespace

bool same_choice(const PlanEntry& a, const PlanEntry& b) {
  return a.node == b.node && a.config().nodes == b.config().nodes && a.config().pricing == b.config().pricing;
}

RankingResult rank_plans(const Scenario& scenario, std::vector<PlanEntry> fitting, const PlanOptions& options) {
  return Ranker(scenario, options, std::move(fitting)).rank();
}

}  // namespace preflight
