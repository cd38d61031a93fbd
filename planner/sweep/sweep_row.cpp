#include "planner/sweep/sweep_row.hpp"

#include "planner/io/json_reader.hpp"
#include "planner/scenario/strategy_config_json.hpp"
#include "planner/text/number_text.hpp"
#include "planner/text/candidate_text.hpp"

namespace preflight {

namespace {

nlohmann::ordered_json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

std::string infeasible_why(const Plan& plan) {
  std::string why;
  for (const NearestMiss& m : plan.nearest_misses) {
    if (m.reason == Verdict::invalid) continue;
    why += (why.empty() ? "" : "; ") + to_string(m.reason) + ": " + m.text;
  }
  if (!plan.suggestions.empty()) why += (why.empty() ? "" : "; ") + std::string("would be feasible with ") + plan.suggestions.front();
  return why.empty() ? "no configuration of the search space is valid" : why;
}

}  // namespace

SweepRow sweep_row(const std::string& file, const Scenario& s, const Plan& plan) {
  SweepRow r;
  r.file = file;
  r.name = s.name;
  r.budget_usd = s.constraints.budget_usd;
  r.deadline_hours = s.constraints.deadline_hours;
  r.feasible = plan.best.has_value();
  if (!r.feasible) {
    r.why = infeasible_why(plan);
    r.config = nullptr;
    // Over budget: some config fit and passed the deadline checks (they come first) and then cost too much.
    r.over_budget = plan.counts[static_cast<int>(Verdict::budget)] > 0;
    return r;
  }
  const PlanEntry& b = *plan.best;
  const StrategyConfig& c = b.config();
  const RunOutcome& o = b.run.outcome;
  r.instance = c.instance;
  r.nodes = c.nodes;
  r.gpus = c.nodes * b.node->gpus_per_node;
  r.strategy = strategy_text(c);
  r.micro_batch = c.micro_batch;
  r.grad_accum = c.grad_accum;
  r.pricing = to_string(c.pricing);
  r.region = b.run.price.region;
  r.zone = b.run.price.zone;
  r.price_as_of = b.run.price.as_of;
  r.price_source = b.run.price.source;
  r.price_term = b.run.price.term;
  r.cost_mean_usd = rounded(o.usd.mean, 2);
  r.cost_p90_usd = rounded(o.usd.p90, 2);
  r.hours_p50 = rounded(o.hours.p50, 3);
  r.hours_p90 = rounded(o.hours.p90, 3);
  r.p_meets_deadline = rounded(o.p_meets_deadline, 4);
  r.vram_headroom = rounded(1.0 - b.evaluation.memory.peak_bytes / b.evaluation.memory.capacity_bytes, 4);
  const RunEnergy energy = run_energy(b.run);
  r.energy_kwh = rounded(energy.kwh, 1);
  r.co2e_kg = rounded(energy.co2e_kg, 1);
  r.config = nlohmann::json(config_json(c));
  return r;
}

nlohmann::ordered_json row_json(const SweepRow& r) {
  nlohmann::ordered_json j;
  j["name"] = r.name;
  j["file"] = r.file;
  j["feasible"] = r.feasible;
  j["budget_usd"] = optional_number(r.budget_usd);
  j["deadline_hours"] = optional_number(r.deadline_hours);
  if (r.feasible) {
    j["instance"] = r.instance;
    j["nodes"] = r.nodes;
    j["gpus"] = r.gpus;
    j["strategy"] = r.strategy;
    j["micro_batch"] = r.micro_batch;
    j["grad_accum"] = r.grad_accum;
    j["pricing"] = r.pricing;
    j["region"] = r.region;
    j["zone"] = r.zone;
    j["price_as_of"] = r.price_as_of;
    j["price_source"] = r.price_source;
    j["price_term"] = r.price_term;
    j["cost_usd"] = {{"mean", r.cost_mean_usd}, {"p90", r.cost_p90_usd}};
    j["hours"] = {{"p50", r.hours_p50}, {"p90", r.hours_p90}};
    j["p_meets_deadline"] = r.p_meets_deadline;
    j["vram_headroom"] = r.vram_headroom;
    j["energy"] = {{"kwh", optional_number(r.energy_kwh)}, {"co2e_kg", optional_number(r.co2e_kg)}};
    j["config"] = r.config;
  } else {
    j["why"] = r.why;
    j["over_budget"] = r.over_budget;
  }
  return j;
}

SweepRow row_from_json(const nlohmann::json& value, const std::string& file, const std::string& path) {
  io::ObjectReader o(value, file, path);
  SweepRow r;
  // Rows come from files (shards, baselines) and go into pull-request comments: each text one line.
  const auto line = [&](std::string_view key) {
    std::string text = o.string(key);
    if (!io::is_one_printable_line(text)) o.fail(key, "one line of printable text (no control character or bidirectional override)");
    return text;
  };
  r.name = line("name");
  r.file = line("file");
  r.feasible = o.boolean("feasible");
  const auto optional_positive = [&](std::string_view key) -> std::optional<double> {
    if (o.raw(key).is_null()) return std::nullopt;
    return o.number(key, {0.0, 1e15, true});
  };
  r.budget_usd = optional_positive("budget_usd");
  r.deadline_hours = optional_positive("deadline_hours");
  if (r.feasible) {
    r.instance = line("instance");
    r.nodes = static_cast<int>(o.integer("nodes", 1, 100'000));
    r.gpus = static_cast<int>(o.integer("gpus", 1, 10'000'000));
    r.strategy = line("strategy");
    r.micro_batch = o.integer("micro_batch", 1, 1'000'000);
    r.grad_accum = o.integer("grad_accum", 1, 1'000'000);
    r.pricing = line("pricing");
    // Rows written before prices named their quote have none of these: read as empty.
    const auto optional_line = [&](std::string_view key) {
      const bool blank = o.has(key) && o.raw(key).is_string() && o.raw(key).get<std::string>().empty();
      return o.has(key) && !blank ? line(key) : std::string();
    };
    r.region = optional_line("region");
    r.zone = optional_line("zone");
    r.price_as_of = optional_line("price_as_of");
    r.price_source = optional_line("price_source");
    r.price_term = optional_line("price_term");
    if (r.price_term.empty()) r.price_term = "list";
    io::ObjectReader cost = o.object("cost_usd");
    r.cost_mean_usd = cost.number("mean", {0.0, 1e15});
    r.cost_p90_usd = cost.number("p90", {0.0, 1e15});
    cost.finish();
    io::ObjectReader hours = o.object("hours");
    r.hours_p50 = hours.number("p50", {0.0, 1e9});
    r.hours_p90 = hours.number("p90", {0.0, 1e9});
    hours.finish();
    r.p_meets_deadline = o.number("p_meets_deadline", {0.0, 1.0});
    r.vram_headroom = o.number("vram_headroom", {-1e6, 1.0});
    if (o.has("energy")) {  // rows of an older preflight have none
      io::ObjectReader e = o.object("energy");
      for (auto [key, field] : {std::pair{"kwh", &r.energy_kwh}, std::pair{"co2e_kg", &r.co2e_kg}}) {
        if (!e.raw(key).is_null()) *field = e.number(key, {0.0, 1e15});
      }
      e.finish();
    }
    // Read back key by key (a shard is untrusted input), and written again as config_json writes it.
    r.config = nlohmann::json(config_json(read_config_json(o.raw("config"), file, o.path_of("config"))));
  } else {
    r.why = line("why");
    r.over_budget = o.boolean("over_budget");
    r.config = nullptr;
  }
  o.finish();
  return r;
}

}  // namespace preflight
