#include <nlohmann/json.hpp>

#include "planner/export/export_plan.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/memory/memory_defaults.hpp"

namespace preflight {

namespace {

// Buffer counts and sizes are DeepSpeed's documented defaults (DeepSpeed config JSON docs,
// offload_param / offload_optimizer), written out so a change of default cannot change the run.
nlohmann::ordered_json offload_json(OffloadTarget target, bool params) {
  nlohmann::ordered_json j;
  j["device"] = to_string(target);
  if (target == OffloadTarget::none) return j;
  j["pin_memory"] = true;
  if (target == OffloadTarget::nvme) {
    j["nvme_path"] = "/local_nvme";
    j["buffer_count"] = params ? 5 : 4;
  }
  if (params) {
    j["buffer_size"] = 100'000'000;
    j["max_in_cpu"] = 1'000'000'000;
  } else {
    j["ratio"] = 1.0;
  }
  return j;
}

nlohmann::ordered_json zero_json(const StrategyConfig& c) {
  const int stage = sharding_scheme(c.sharding).stage;
  // ZeRO-1/2 with overlap_comm keeps about 4.5 x (reduce + allgather bucket) in flight (DeepSpeed's
  // and Hugging Face's ZeRO docs: 9 GB at the 5e8 defaults). The memory model budgets one reduce
  // bucket of kDeepSpeedReduceBucketElements, so ZeRO-1/2 buckets are cut to keep the real footprint
  // within it; smaller buckets only overlap more than simulated. ZeRO-3 keeps the default sizes.
  constexpr double kOverlapFootprintBuckets = 4.5 * 2.0;
  const double elements = memory_defaults::kDeepSpeedReduceBucketElements / (stage == 3 ? 1.0 : kOverlapFootprintBuckets);
  const auto bucket = static_cast<std::int64_t>(elements);
  nlohmann::ordered_json z;
  z["stage"] = stage;
  // The simulator overlaps gradient reduction with backward and uses these bucket sizes.
  z["overlap_comm"] = stage > 0;
  z["contiguous_gradients"] = stage > 0;
  z["reduce_scatter"] = true;
  z["reduce_bucket_size"] = bucket;
  z["allgather_partitions"] = true;
  z["allgather_bucket_size"] = bucket;
  z["round_robin_gradients"] = false;
  z["offload_optimizer"] = offload_json(c.offload.optimizer, false);
  z["offload_param"] = offload_json(c.offload.params, true);
  if (stage == 3) {
    // The prefetch bucket is the memory model's; the rest are DeepSpeed's documented defaults.
    z["stage3_prefetch_bucket_size"] = static_cast<std::int64_t>(memory_defaults::kDeepSpeedPrefetchBucketElements);
    z["stage3_param_persistence_threshold"] = 100'000;
    z["stage3_max_live_parameters"] = 1'000'000'000;
    z["stage3_max_reuse_distance"] = 1'000'000'000;
    z["sub_group_size"] = 1'000'000'000;
    z["stage3_gather_16bit_weights_on_model_save"] = true;
  }
  return z;
}

}  // namespace

std::string deepspeed_config_json(const ExportPlan& p) {
  const StrategyConfig& c = p.config;
  if (sharding_scheme(c.sharding).engine == Engine::fsdp) {
    throw InvalidConfig("sharding", to_string(c.sharding) + " is PyTorch FSDP, not DeepSpeed: export `accelerate` for it, "
                                    "or plan with a zero* sharding");
  }
  const TrainingJob& t = p.scenario->training();
  nlohmann::ordered_json j;
  j["train_batch_size"] = t.global_batch_sequences;
  j["train_micro_batch_size_per_gpu"] = c.micro_batch;
  j["gradient_accumulation_steps"] = c.grad_accum;
  j["gradient_clipping"] = 1.0;  // the usual LLM setting (Llama 2 paper, section 2.2: clipping 1.0)
  j["steps_per_print"] = 10;
  j["wall_clock_breakdown"] = false;
  // fp8 (Transformer Engine) runs on a bf16 base.
  j["bf16"] = {{"enabled", t.precision == Precision::bf16 || t.precision == Precision::fp8}};
  j["fp16"] = {{"enabled", t.precision == Precision::fp16}, {"loss_scale", 0},  {"initial_scale_power", 16},
               {"loss_scale_window", 1000}, {"hysteresis", 2}, {"min_loss_scale", 1}};
  j["zero_optimization"] = zero_json(c);
  j["zero_allow_untested_optimizer"] = false;
  return j.dump(2) + "\n";
}

}  // namespace preflight
