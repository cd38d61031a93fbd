// A DeepSpeed config (deepspeed.ai/docs/config-json): the ZeRO stage and offload, the batch terms
// and the precision. "auto" values are what the Hugging Face integration fills in from the
// trainer's arguments: they come from another file or the scenario.

#include "planner/import/foreign_object.hpp"
#include "planner/import/importers.hpp"

namespace preflight {

namespace {

const char* const kNotModelled = "not modelled: does not change what fits or how fast in preflight's model";

void offload(ForeignObject& zero, const char* key, const char* target, ImportedSetup& setup) {
  std::optional<ForeignObject> o = zero.object(key);
  if (!o) return;
  if (const std::optional<std::string> device = o->string("device")) {
    if (*device != "cpu" && *device != "nvme" && *device != "none") o->fail("device", "\"cpu\", \"nvme\" or \"none\"");
    setup.set(target, *device, o->file(), o->key_of("device"));
  }
  o->ignore(setup, {"pin_memory", "buffer_count", "buffer_size", "max_in_cpu", "fast_init", "nvme_path", "ratio", "pipeline_read",
                    "pipeline_write"},
            "offload tuning: preflight takes the transfer rates from the machine's PCIe and disk figures");
  o->finish(setup, kNotModelled);
}

void zero_optimization(ForeignObject& doc, ImportedSetup& setup) {
  std::optional<ForeignObject> zero = doc.object("zero_optimization");
  if (!zero) return;
  if (const std::optional<std::int64_t> stage = zero->integer("stage", 0, 3)) {
    static const char* const kSharding[] = {"ddp", "zero1", "zero2", "zero3"};
    setup.set("config.sharding", kSharding[*stage], zero->file(), zero->key_of("stage"));
  }
  offload(*zero, "offload_optimizer", "config.offload.optimizer", setup);
  offload(*zero, "offload_param", "config.offload.params", setup);
  if (const std::optional<bool> legacy = zero->boolean("cpu_offload"); legacy && *legacy) {
    setup.set("config.offload.optimizer", "cpu", zero->file(), zero->key_of("cpu_offload"));
  }
  zero->ignore(setup,
               {"overlap_comm", "contiguous_gradients", "reduce_bucket_size", "allgather_bucket_size", "allgather_partitions",
                "reduce_scatter", "round_robin_gradients", "stage3_prefetch_bucket_size", "stage3_param_persistence_threshold",
                "stage3_max_live_parameters", "stage3_max_reuse_distance", "sub_group_size", "load_from_fp32_weights",
                "elastic_checkpoint", "ignore_unused_parameters", "legacy_stage1"},
               "bucket sizes and overlap: preflight models DeepSpeed's default buckets, communication overlapped with compute");
  zero->ignore(setup, {"stage3_gather_16bit_weights_on_model_save", "stage3_gather_fp16_weights_on_model_save", "gather_16bit_weights_on_model_save"},
               "how the final weights are saved: not part of a training step");
  zero->ignore(setup, {"zero_hpz_partition_size", "zero_quantized_weights", "zero_quantized_gradients", "mics_shard_size",
                       "mics_hierarchical_params_gather"},
               "not modelled: ZeRO++ and MiCS partitioning (preflight models plain ZeRO; their communication is lower)");
  zero->finish(setup, kNotModelled);
}

void precision(ForeignObject& doc, ImportedSetup& setup) {
  std::optional<bool> bf16, fp16;
  std::string bf16_key;
  for (const char* key : {"bf16", "bfloat16"}) {
    if (std::optional<ForeignObject> b = doc.object(key)) {
      if (const std::optional<bool> on = b->boolean("enabled")) {
        bf16 = on;
        bf16_key = b->key_of("enabled");
      }
      b->finish(setup, kNotModelled);
    }
  }
  if (std::optional<ForeignObject> f = doc.object("fp16")) {
    fp16 = f->boolean("enabled");
    f->ignore(setup, {"loss_scale", "initial_scale_power", "loss_scale_window", "hysteresis", "min_loss_scale", "consecutive_hysteresis",
                      "auto_cast", "fp16_master_weights_and_grads"},
              "loss scaling: no effect on memory or step time");
    f->finish(setup, kNotModelled);
    if (fp16 && *fp16 && bf16 && *bf16) f->fail("enabled", "false when bf16.enabled is true (DeepSpeed refuses both)");
    if (fp16 && *fp16) setup.set("training.precision", "fp16", f->file(), f->key_of("enabled"));
  }
  if (bf16 && *bf16) setup.set("training.precision", "bf16", doc.file(), bf16_key);
  // Both turned off: DeepSpeed trains in fp32.
  if (bf16 && fp16 && !*bf16 && !*fp16) setup.set("training.precision", "fp32", doc.file(), "fp16.enabled, " + bf16_key);
}

void batch(ForeignObject& doc, ImportedSetup& setup) {
  const std::optional<std::int64_t> global = doc.integer("train_batch_size", 1, 100'000'000);
  const std::optional<std::int64_t> micro = doc.integer("train_micro_batch_size_per_gpu", 1, 1'000'000);
  const std::optional<std::int64_t> accum = doc.integer("gradient_accumulation_steps", 1, 1'000'000);
  if (global) setup.set("training.global_batch_size", *global, doc.file(), "train_batch_size");
  if (micro) setup.set("config.micro_batch", *micro, doc.file(), "train_micro_batch_size_per_gpu");
  if (accum) setup.set("config.grad_accum", *accum, doc.file(), "gradient_accumulation_steps");
  // DeepSpeed's own rule: train_batch_size = micro-batch x accumulation x data-parallel ranks.
  if (global && micro && accum) {
    if (*global % (*micro * *accum) != 0) {
      doc.fail("train_batch_size", "a multiple of train_micro_batch_size_per_gpu x gradient_accumulation_steps = " +
                                       std::to_string(*micro * *accum) + " (the data-parallel ranks times both)");
    }
    setup.world_gpus(*global / (*micro * *accum), doc.file(), "train_batch_size / (train_micro_batch_size_per_gpu x gradient_accumulation_steps)");
  }
}

void optimizer(ForeignObject& doc, ImportedSetup& setup) {
  std::optional<ForeignObject> o = doc.object("optimizer");
  if (!o) return;
  if (const std::optional<std::string> type = o->string("type")) set_optimizer(setup, *type, o->file(), o->key_of("type"));
  o->ignore(setup, {"params"}, "learning rate and betas: no effect on memory or step time");
  o->finish(setup, kNotModelled);
}

}  // namespace

void import_deepspeed(const nlohmann::json& json, const std::string& file, ImportedSetup& setup, const ImportContext&) {
  ForeignObject doc(json, file, "");
  batch(doc, setup);
  zero_optimization(doc, setup);
  precision(doc, setup);
  optimizer(doc, setup);
  if (std::optional<ForeignObject> compile = doc.object("compile")) {
    if (const std::optional<bool> on = compile->boolean("enabled")) setup.set("training.torch_compile", *on, file, compile->key_of("enabled"));
    compile->finish(setup, kNotModelled);
  }
  doc.ignore(setup, {"activation_checkpointing"},
             "configures deepspeed.checkpointing, which only model code that calls it uses (Megatron-DeepSpeed); Hugging Face "
             "models recompute when the trainer's gradient_checkpointing is on");
  doc.ignore(setup, {"aio"}, "NVMe offload throughput comes from the machine's disk figures");
  doc.ignore(setup, {"communication_data_type", "prescale_gradients", "gradient_predivide_factor"},
             "not modelled: gradients are communicated in the training precision");
  doc.ignore(setup, {"scheduler", "gradient_clipping", "steps_per_print", "wall_clock_breakdown", "zero_allow_untested_optimizer",
                     "zero_force_ds_cpu_optimizer", "flops_profiler", "tensorboard", "wandb", "csv_monitor", "comms_logger",
                     "dump_state", "checkpoint", "data_types", "seed", "memory_breakdown"},
             "no effect on memory or step time");
  doc.finish(setup, kNotModelled);
}

}  // namespace preflight
