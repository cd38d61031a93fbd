#include "planner/search/plan_ranking.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

#include <tbb/parallel_for.h>

#include "planner/text/number_text.hpp"
#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/run_monte_carlo.hpp"
#include "simulator/economics/step_time_uncertainty.hpp"
#include "planner/text/candidate_text.hpp"

namespace preflight {

namespace {

// Monte Carlo runs started together; fixed, so where the bound stops does not depend on threads.
constexpr std::size_t kBatch = 8;
// Frontier points given a Monte Carlo at most; evenly spread over the closed-form frontier.
constexpr std::size_t kFrontierPoints = 16;
// A run whose closed form is only an estimate (spot_with_fallback, a replayed trace) is bounded by a
// short pilot Monte Carlo instead: one trial per step-time stratum, its mean less this many of its
// standard errors (the spread over the strata included, which only widens the margin).
constexpr int kPilotTrials = kStepTimeStrata;
// The first look of a screening Monte Carlo (five trials per step-time stratum).
constexpr int kFirstLookTrials = 5 * kStepTimeStrata;
constexpr double kPilotStandardErrors = 4.0;
// The branch and bound decides on Monte Carlo runs of kScreeningTrials (run_estimate.hpp); what the plan
// reports is run again with the full count, and chosen again until everything reported has been.

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
  Ranker(const Scenario& s, const PlanOptions& o, ScreenedEntries entries) : s_(s), o_(o) {
    r_.entries = std::move(entries);
  }

  RankingResult rank() {
    one_fallback_per_choice();
    pilot_bounds();
    // Confirming what is reported may raise the bar the search stopped at (a screening mean is an
    // estimate): search on from where it stopped until a round runs no new Monte Carlo.
    Reported reported;
    for (std::int64_t runs = -1; runs != r_.monte_carlo_runs;) {
      runs = r_.monte_carlo_runs;
      branch_and_bound();
      frontier_candidates();
      if (s_.objective == Objective::energy) energy_candidates();
      const std::int64_t before_confirming = r_.monte_carlo_runs;
      reported = confirm();
      if (r_.monte_carlo_runs == before_confirming) break;  // nothing new was confirmed: the bar stands
    }
    for (const PlanEntry& e : r_.entries) {
      if (e.verdict == Verdict::bounded || e.monte_carlo) ++r_.counts[static_cast<int>(e.verdict)];
    }
    if (reported.best) {
      r_.best = r_.entries[*reported.best];
      for (std::size_t i : reported.alternatives) r_.alternatives.push_back(r_.entries[i]);
    }
    for (std::size_t i : reported.frontier) r_.frontier.push_back(r_.entries[i]);
    if (reported.fastest_within) r_.fastest_within = r_.entries[*reported.fastest_within];
    return std::move(r_);
  }

 private:
  // What the plan shows: indices of the winner, its alternatives and the frontier.
  struct Reported {
    std::optional<std::size_t> best;
    std::vector<std::size_t> alternatives;
    std::vector<std::size_t> frontier;
    std::optional<std::size_t> fastest_within;
  };

  // The plan's objective: the expected cost, plus what its expected wall time is worth where the
  // scenario says (constraints.value_of_time_usd_per_hour). Minimising a sum of cost and time picks a
  // point of the cost-vs-time frontier, which frontier_candidates() gives a Monte Carlo.
  // Under objective "energy": the expected kWh (ties, the cost order feasible_by_cost() gives).
  double objective(std::size_t i) const {
    if (s_.objective == Objective::energy) return run_energy(r_.entries[i].run).kwh;
    const RunOutcome& o = r_.entries[i].run.outcome;
    return o.usd.mean + s_.constraints.value_of_time_usd_per_hour.value_or(0.0) * o.hours.mean;
  }

  Reported choose() const {
    Reported out;
    std::vector<std::size_t> feasible = feasible_by_cost();
    if (s_.constraints.value_of_time_usd_per_hour || s_.objective == Objective::energy) {
      std::stable_sort(feasible.begin(), feasible.end(), [&](std::size_t a, std::size_t b) { return objective(a) < objective(b); });
    }
    if (!feasible.empty()) {
      out.best = feasible.front();
      const double cap = (1.0 + kFastestWithinCost) * r_.entries[*out.best].run.outcome.usd.mean;
      for (std::size_t i : feasible) {
        const RunOutcome& o = r_.entries[i].run.outcome;
        if (o.usd.mean > cap || o.hours.mean >= r_.entries[*out.best].run.outcome.hours.mean) continue;
        if (!out.fastest_within || o.hours.mean < r_.entries[*out.fastest_within].run.outcome.hours.mean) out.fastest_within = i;
      }
      for (std::size_t i : feasible) {
        if (static_cast<int>(out.alternatives.size()) >= o_.top) break;
        const auto seen = [&](std::size_t a) { return same_choice(r_.entries[a], r_.entries[i]); };
        if (seen(*out.best) || std::any_of(out.alternatives.begin(), out.alternatives.end(), seen)) continue;
        out.alternatives.push_back(i);
      }
    }
    out.frontier = pareto(feasible, [&](std::size_t i) { return r_.entries[i].run.outcome.hours.mean; },
                          [&](std::size_t i) { return r_.entries[i].run.outcome.usd.mean; });
    return out;
  }

  // Everything reported runs with the full trial count; a confirmed figure may reorder the choice,
  // so choose again until nothing reported is left unconfirmed (each round confirms at least one).
  Reported confirm() {
    for (;;) {
      Reported out = choose();
      std::vector<std::size_t> todo;
      const auto need = [&](std::size_t i) {
        if (!r_.entries[i].confirmed && std::find(todo.begin(), todo.end(), i) == todo.end()) todo.push_back(i);
      };
      if (out.best) need(*out.best);
      for (std::size_t i : out.alternatives) need(i);
      for (std::size_t i : out.frontier) need(i);
      if (out.fastest_within) need(*out.fastest_within);
      if (todo.empty()) return out;
      monte_carlo(todo, true);
    }
  }

  void monte_carlo(const std::vector<std::size_t>& which, bool full = false) {
    const double need = s_.constraints.min_completion_probability;
    tbb::parallel_for(std::size_t{0}, which.size(), [&](std::size_t k) {
      PlanEntry& e = r_.entries[which[k]];
      RunInputs in = e.run.inputs;
      if (!full) {
        // A short run first: a config that misses its deadline probability by more than four of that
        // run's standard errors is out, and the screening run is spent only on the rest (its first
        // trials are the short run's).
        in.trials = std::min(in.trials, kFirstLookTrials);
        RunMonteCarlo monte_carlo(in);
        monte_carlo.extend_to(in.trials);
        const RunOutcome first = monte_carlo.outcome();
        const double error = std::sqrt(need * (1.0 - need) / static_cast<double>(in.trials));
        const bool out = s_.constraints.deadline_hours && first.p_meets_deadline < need - 4.0 * error;
        in.trials = std::min(e.run.inputs.trials, kScreeningTrials);
        if (out) {
          e.run.outcome = first;
          in.trials = kFirstLookTrials;
        } else {
          monte_carlo.extend_to(in.trials);
          e.run.outcome = monte_carlo.outcome();
        }
      } else {
        e.run.outcome = simulate_run(in);
      }
      e.monte_carlo = true;
      e.confirmed = in.trials == e.run.inputs.trials;
    });
    r_.monte_carlo_runs += static_cast<std::int64_t>(which.size());
    for (std::size_t i : which) classify(r_.entries[i]);
  }

  void classify(PlanEntry& e) {
    const RunOutcome& o = e.run.outcome;
    const auto label = [&] { return candidate_text(*e.node, e.config()); };
    const double need = s_.constraints.min_completion_probability;
    if (o.unfinished_probability > 1.0 - need && (!s_.constraints.deadline_hours || o.p_meets_deadline < need)) {
      // Without a deadline a run must still finish: histories cut off at the horizon never do.
      e.verdict = Verdict::probability;
      keep_nearest(r_.misses, Verdict::probability, o.unfinished_probability - (1.0 - need), false, [&] {
        return label() + ": never finishes in " + share_text(o.unfinished_probability) +
               " of the Monte Carlo's histories (its interruptions outpace its checkpoints)";
      });
    } else if (s_.constraints.deadline_hours && o.p_meets_deadline < need) {
      e.verdict = Verdict::probability;
      keep_nearest(r_.misses, Verdict::probability, need - o.p_meets_deadline, false, [&] { return label() + ": meets the " + hours_text(*s_.constraints.deadline_hours) + " h deadline with probability " +
                                   fixed(o.p_meets_deadline, 3) + " (" + fixed(need, 2) + " required; " +
                                   fixed(o.hours_at_target, 1) + " h at that probability)"; });
    } else if (s_.constraints.budget_usd && o.usd.mean > *s_.constraints.budget_usd) {
      e.verdict = Verdict::budget;
      keep_nearest(r_.misses, Verdict::budget, o.usd.mean / *s_.constraints.budget_usd - 1.0, false, [&] { return label() + ": expected cost " + usd_text(o.usd.mean) + " with interruptions"; });
    } else if (const double kwh = run_energy(e.run).kwh; s_.constraints.max_kwh && kwh > *s_.constraints.max_kwh) {
      // An energy budget: counted with the budget's.
      e.verdict = Verdict::budget;
      keep_nearest(r_.misses, Verdict::budget, kwh / *s_.constraints.max_kwh - 1.0, false, [&] {
        return label() + ": expected energy " + fixed(kwh, 0) + " kWh, over constraints.max_kwh (" + fixed(*s_.constraints.max_kwh, 0) + " kWh)";
      });
    } else {
      e.verdict = Verdict::feasible;
    }
  }

  // spot_with_fallback's cost and risk grow with what a run must do (its failure-free hours), what an
  // interruption loses (its checkpoint interval) and costs (its restart), under the same
  // interruptions and step-time interval: a config no better than another of its machine and node
  // count in all of them is dominated by it, and only the others get a Monte Carlo.
  void one_fallback_per_choice() {
    // Its checkpoints' storage too (each config keeps its own): what it costs an hour, and a run
    // without checkpoints to resume from loses all of its work to an interruption (one segment).
    struct Key {
      double work, segment, restart, storage;
      StepTimeInterval interval;
    };
    const auto key = [&](std::size_t i) {
      const RunEstimate& run = r_.entries[i].run;
      const RunInputs& in = run.inputs;
      const double segment = in.checkpoint.interval_steps > 0 ? run_segments(in).segment_hours : run.outcome.failure_free_hours;
      return Key{run.outcome.failure_free_hours, segment, restart_hours(in), in.storage_usd_per_hour, in.step_interval};
    };
    const auto no_worse = [](const Key& a, const Key& b) {
      return a.work <= b.work && a.segment <= b.segment && a.restart <= b.restart && a.storage <= b.storage &&
             a.interval.low == b.interval.low && a.interval.high == b.interval.high;
    };
    std::map<std::pair<const NodeSpec*, int>, std::vector<std::size_t>> by_choice;
    for (std::size_t i = 0; i < r_.entries.size(); ++i) {
      const PlanEntry& e = r_.entries[i];
      if (e.verdict == Verdict::bounded && e.config().pricing == Pricing::spot_with_fallback) by_choice[{e.node, e.config().nodes}].push_back(i);
    }
    for (auto& [choice, members] : by_choice) {
      // Quickest first, so a dominating config is kept before what it dominates.
      std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) { return key(a).work < key(b).work; });
      std::vector<std::size_t> kept;
      for (std::size_t i : members) {
        const Key k = key(i);
        if (std::any_of(kept.begin(), kept.end(), [&](std::size_t j) { return no_worse(key(j), k); })) {
          r_.entries[i].verdict = Verdict::dominated;
          ++r_.counts[static_cast<int>(Verdict::dominated)];
        } else {
          kept.push_back(i);
        }
      }
    }
  }

  static bool estimated(const PlanEntry& e) {
    return e.config().pricing == Pricing::spot_with_fallback || !e.run.inputs.interruptions.memoryless();
  }

  void pilot_bounds() {
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < r_.entries.size(); ++i) {
      if (r_.entries[i].verdict == Verdict::bounded && estimated(r_.entries[i])) which.push_back(i);
    }
    tbb::parallel_for(std::size_t{0}, which.size(), [&](std::size_t k) {
      PlanEntry& e = r_.entries[which[k]];
      RunInputs pilot = e.run.inputs;
      pilot.trials = kPilotTrials;
      const Distribution usd = simulate_run(pilot).usd;
      const double bound = usd.mean - kPilotStandardErrors * usd.stddev / std::sqrt(static_cast<double>(kPilotTrials));
      e.run.lower_bound_usd = std::max(e.run.lower_bound_usd, bound);
    });
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

  // Configs that may still win: undecided, or feasible.
  std::vector<std::size_t> still_open() const {
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < r_.entries.size(); ++i) {
      const Verdict v = r_.entries[i].verdict;
      if (v == Verdict::bounded || v == Verdict::feasible) open.push_back(i);
    }
    return open;
  }

  // Under objective "energy" the cost bound does not order what can win: the kFrontierPoints open
  // configs of least closed-form energy (expected hours x the nodes' draw) get a Monte Carlo, so the
  // least-energy feasible plan is among those chosen from.
  void energy_candidates() {
    std::vector<std::size_t> open = still_open();
    const auto kwh = [&](std::size_t i) {
      const PlanEntry& e = r_.entries[i];
      return e.monte_carlo ? run_energy(e.run).kwh : e.run.expected_hours * e.run.facility_kw;
    };
    std::stable_sort(open.begin(), open.end(), [&](std::size_t a, std::size_t b) { return kwh(a) < kwh(b); });
    std::vector<std::size_t> todo;
    for (std::size_t k = 0; k < open.size() && k < kFrontierPoints; ++k) {
      if (!r_.entries[open[k]].monte_carlo) todo.push_back(open[k]);
    }
    if (!todo.empty()) monte_carlo(todo);
  }

  // Pareto over (expected hours, expected cost) in closed form and a Monte Carlo for up to
  // kFrontierPoints of it; the frontier of what is feasible after it is chosen with the rest.
  void frontier_candidates() {
    std::vector<std::size_t> open = still_open();
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

RankingResult rank_plans(const Scenario& scenario, ScreenedEntries fitting, const PlanOptions& options) {
  return Ranker(scenario, options, std::move(fitting)).rank();
}

}  // namespace preflight
