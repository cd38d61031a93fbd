#pragma once
// `search.fixed`: the choices every config `plan` searches keeps, written as the config keys they
// fix ({"sharding": "zero3", "micro_batch": 4, "offload": {"optimizer": "cpu"}}). What a user's own
// training files say (`plan --from ds_config.json`) arrives here: the search then answers "with my
// config as it is, which machines and how many?".

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/io/json_reader.hpp"
#include "simulator/economics/pricing.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

struct FixedChoices {
  std::optional<std::string> instance;  // moved into search.instances when read
  std::optional<Pricing> pricing;       // moved into search.pricing
  std::optional<std::string> region;    // moved into the price policy's regions
  std::optional<int> nodes;
  std::optional<int> gpus;           // the job's GPUs, whatever the machine (a launcher's world size)
  std::optional<int> gpus_per_node;  // machines with this many GPUs only
  std::optional<Framework> framework;
  std::optional<int> tp, pp, interleave, ep, cp, etp;
  std::optional<bool> sequence_parallel, ep_comm_overlap, tp_comm_overlap;
  std::optional<Sharding> sharding;
  std::optional<OffloadTarget> offload_optimizer, offload_params;
  std::optional<Recompute> recompute;
  std::optional<std::int64_t> micro_batch, grad_accum;
  std::optional<bool> flash_attention, zero_init;  // applied to every searched config

  bool allows_machine(int machine_gpus_per_node) const { return !gpus_per_node || *gpus_per_node == machine_gpus_per_node; }
  bool allows_group(int nodes, int gpus, const Parallelism& layout, Sharding sharding, Framework framework) const;
  bool allows_batch(std::int64_t micro_batch, std::int64_t grad_accum) const;
  bool allows_variant(const Offload& offload, Recompute recompute) const;
  // The applied values (flash_attention, zero_init) set on a searched config.
  void apply(StrategyConfig& config) const;
  // "sharding zero3, micro-batch 4": for the plan's header.
  std::string text() const;
  bool empty() const;
};

FixedChoices read_fixed_choices(io::ObjectReader& fixed);

}  // namespace preflight
