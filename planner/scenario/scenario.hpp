#pragma once
// A scenario file (contract "Scenario"): the model, the training job, the constraints and the search
// space, plus an optional inline config. Reading it validates everything a later stage relies on,
// so the simulator and planner never see an impossible value.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/catalog/catalog.hpp"
#include "planner/catalog/price_book.hpp"
#include "planner/scenario/fixed_choices.hpp"
#include "simulator/economics/checkpoint_plan.hpp"
#include "simulator/economics/pricing.hpp"
#include "simulator/economics/spot_trace.hpp"
#include "simulator/spec/node_spec.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

// constraints.quota: at most `gpus` GPUs of a provider (in one region, on one pricing, where given)
// at once, as the team's cloud account allows.
struct GpuQuota {
  std::string provider;
  std::optional<std::string> region;
  std::optional<Pricing> pricing;  // spot_with_fallback counts against spot and on-demand quotas alike
  int gpus = 0;
};

struct Constraints {
  std::optional<double> deadline_hours;
  std::optional<double> budget_usd;
  double min_completion_probability = 0.9;
  double vram_headroom = 0.05;
  std::vector<GpuQuota> quota;
  // What an hour of wall time is worth to the team: set, the plan minimises cost + value x expected
  // hours among the feasible plans (plan_ranking.cpp).
  std::optional<double> value_of_time_usd_per_hour;
  // The most energy the run may draw (kWh with the site's PUE): a plan over it is refused.
  std::optional<double> max_kwh;
};

// What `plan` minimises among the feasible plans: the expected cost (with the value of time where
// set), or the expected energy (kWh, ties broken by cost).
enum class Objective { cost, energy };
inline constexpr EnumNames<Objective, 2> kObjectiveNames{{{Objective::cost, "cost"}, {Objective::energy, "energy"}}};

struct SearchSpace {
  std::vector<std::string> instances;  // empty: the whole catalog (or the GPUs below)
  std::vector<std::string> gpus;
  int max_nodes = 16;
  // spot_with_fallback needs a deadline (its slack is what it spends): searched only with one.
  std::vector<Pricing> pricing{Pricing::on_demand, Pricing::spot, Pricing::spot_with_fallback};
  // The software stacks plan may choose among (search.frameworks); empty: the scenario's
  // training.framework, else what users of its training method run (searched_frameworks()).
  std::vector<Framework> frameworks;
  FixedChoices fixed;  // search.fixed: what every searched config keeps
};

struct CheckpointSpec {
  CheckpointSettings settings;  // its storage is what `storage` resolves to for each pricing
  // Where checkpoints go; empty ("auto"): wherever each config's run costs least among the machine's
  // local NVMe, the provider's network file system and its object store (run_estimate.cpp; local
  // disks go with a reclaimed instance).
  std::optional<CheckpointStorage> storage;
  // sync or async as given; empty ("auto"): whichever stalls training less for each config, async only
  // where its host snapshot fits (run_estimate.cpp).
  std::optional<CheckpointMode> mode;
};

// How spot interruptions are modelled; empty fields take the traces' figures for the machine's class.
struct PreemptionSpec {
  std::optional<double> interruptions_per_node_hour;
  std::optional<std::string> bucket;
  std::optional<SpotTrace> trace;
  std::optional<double> reclaim_fraction;  // share of the job's nodes one reclaim takes (0: independent)
  std::optional<double> reacquire_hours;   // mean wait for capacity after a reclaim
};

struct PriceOverride {
  std::optional<double> on_demand_usd_per_hour;
  std::optional<double> spot_usd_per_hour;
};

struct PriceSpec {
  PricePolicy policy;  // regions, zones, the spot rule and the discount (overrides per instance below)
  std::map<std::string, PriceOverride> overrides;  // by instance id
  std::optional<double> electricity_usd_per_kwh;   // owned machines: their GPUs' power, priced
  std::optional<double> storage_usd_per_gb_month;  // replaces the provider's checkpoint-storage price
  std::optional<double> egress_usd_per_gb;         // replaces the provider's egress tiers
  int max_age_days = 120;  // a quote older than this is warned about (its age from the catalog's as_of)
  std::optional<PriceBook> book;  // the team's own rates (prices.book)
};

// Data leaving the cloud when the run ends: the final weights (16-bit, or the adapters) and more.
struct EgressSpec {
  bool final_weights = false;
  double extra_gb = 0.0;
};

struct ModelSource {
  std::string description;  // "catalog llama-2-7b", "file path/config.json", "inline"
  std::string source;
  std::vector<std::string> notes;  // what the config reader could not take as written (hf_model_config.hpp)
};

struct Scenario {
  std::filesystem::path file;
  std::string name;
  Workload workload;  // the model and the training job, resolved once
  ModelSource model_source;
  Constraints constraints;
  SearchSpace search;
  CheckpointSpec checkpoint;
  PreemptionSpec preemption;
  PriceSpec prices;
  EgressSpec egress;
  std::vector<NodeSpec> clusters;            // inline machines, usable wherever an instance id is
  std::optional<nlohmann::json> config_json;  // the inline "config", parsed against a machine later
  std::optional<Framework> framework;         // training.framework: the stack every config runs unless it says
  Objective objective = Objective::cost;

  const ModelSpec& model() const { return workload.model(); }
  const TrainingJob& training() const { return workload.job(); }
};

// `patch`: a JSON merge patch (RFC 7386) applied to the file's document before it is read (what
// `--from` files say about the job); null: none.
Scenario load_scenario(const std::filesystem::path& file, const Catalog& catalog, const nlohmann::json& patch = nullptr);
// A scenario document already in memory; `file` names it in errors and anchors its relative paths
// (a model's config.json, a price book, a spot trace).
Scenario read_scenario(const nlohmann::json& doc, const std::filesystem::path& file, const Catalog& catalog);

// The stack a config runs when it names none: the scenario's training.framework, else Megatron-LM for
// tensor/pipeline layouts and Hugging Face transformers for the rest.
Framework default_framework(const Scenario& scenario, const Parallelism& layout);

// The stacks `plan` searches: search.frameworks; else the scenario's training.framework; else, for
// full training, Hugging Face transformers (DDP, DeepSpeed ZeRO, FSDP) and Megatron-LM (tensor and
// pipeline parallelism, its distributed optimizer), and for LoRA/QLoRA transformers alone (PEFT).
std::vector<Framework> searched_frameworks(const Scenario& scenario);

// The config on its own framework when that ships its layout, else on the first searched stack that
// does (then any): what a reason or a remedy that changes the sharding or layout runs on.
StrategyConfig with_offering_framework(StrategyConfig config, const Scenario& scenario);

// A machine by id: an inline cluster of the scenario first, then the catalog.
const NodeSpec* find_node(const Scenario& scenario, const Catalog& catalog, const std::string& id);

}  // namespace preflight
