#pragma once
// One scenario of a sweep, in one row: the plan chosen (machine, strategy, cost, hours, probability,
// VRAM headroom) or why nothing is feasible. Rows are what a sweep writes, what `merge` joins and what
// a baseline is compared with, so they round-trip through JSON unchanged.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "planner/search/plan_search.hpp"

namespace preflight {

struct SweepRow {
  std::string file;  // as given on the command line (or found in a folder given)
  std::string name;
  bool feasible = false;
  std::optional<double> budget_usd;
  std::optional<double> deadline_hours;
  // The chosen plan (feasible rows).
  std::string instance;
  int nodes = 0;
  int gpus = 0;
  std::string strategy;
  std::int64_t micro_batch = 0;
  std::int64_t grad_accum = 0;
  std::string pricing;
  // Where and when the plan's price was quoted (rows of an older preflight have none: empty).
  std::string region;
  std::string zone;
  std::string price_as_of;
  std::string price_source;
  std::string price_term;  // "list" or the price book's term (rows of an older preflight: empty, read as list)
  double cost_mean_usd = 0.0;
  double cost_p90_usd = 0.0;
  double hours_p50 = 0.0;
  double hours_p90 = 0.0;
  double p_meets_deadline = 0.0;
  double vram_headroom = 0.0;  // 1 - simulated peak / capacity
  // The plan's expected energy and CO2e (energy_use.hpp); empty in rows of an older preflight.
  std::optional<double> energy_kwh;
  std::optional<double> co2e_kg;
  nlohmann::json config;  // the contract's config object (keys sorted, as it reads back), null when infeasible
  // Infeasible rows: the nearest misses and what would make it feasible.
  std::string why;
  bool over_budget = false;  // infeasible because every plan that meets the rest costs more than the budget
};

SweepRow sweep_row(const std::string& file, const Scenario& scenario, const Plan& plan);

nlohmann::ordered_json row_json(const SweepRow& row);
// Reads a row written by row_json; `where` names the file and JSON path for errors.
SweepRow row_from_json(const nlohmann::json& value, const std::string& file, const std::string& path);

}  // namespace preflight
