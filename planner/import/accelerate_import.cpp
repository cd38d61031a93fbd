// An Accelerate config (`accelerate config` writes it; huggingface.co/docs/accelerate): how many
// machines and processes, and the DeepSpeed plugin, FSDP or Megatron-LM settings of its
// distributed type.

#include "planner/import/foreign_object.hpp"
#include "planner/import/fsdp_import.hpp"
#include "planner/import/importers.hpp"

namespace preflight {

namespace {

const char* const kNotModelled = "not modelled: does not change what fits or how fast in preflight's model";

void deepspeed_plugin(ForeignObject& doc, ImportedSetup& setup, const ImportContext& context) {
  std::optional<ForeignObject> ds = doc.object("deepspeed_config");
  if (!ds) return;
  if (const std::optional<std::string> file = ds->string("deepspeed_config_file")) {
    setup.merge(import_reference(*file, ds->file(), ds->key_of("deepspeed_config_file"), context, "DeepSpeed config"));
  }
  if (const std::optional<std::int64_t> stage = ds->integer("zero_stage", 0, 3)) {
    static const char* const kSharding[] = {"ddp", "zero1", "zero2", "zero3"};
    setup.set("config.sharding", kSharding[*stage], ds->file(), ds->key_of("zero_stage"));
  }
  for (const auto& [key, target] : {std::pair{"offload_optimizer_device", "config.offload.optimizer"},
                                    std::pair{"offload_param_device", "config.offload.params"}}) {
    if (const std::optional<std::string> device = ds->string(key)) {
      if (*device != "cpu" && *device != "nvme" && *device != "none") ds->fail(key, "cpu, nvme or none");
      setup.set(target, *device, ds->file(), ds->key_of(key));
    }
  }
  if (const std::optional<std::int64_t> accum = ds->integer("gradient_accumulation_steps", 1, 1'000'000)) {
    setup.set("config.grad_accum", *accum, ds->file(), ds->key_of("gradient_accumulation_steps"));
  }
  // zero3_init_flag: DeepSpeed's zero.Init, building the model already sharded.
  if (const std::optional<bool> init = ds->boolean("zero3_init_flag")) setup.set("config.zero_init", *init, ds->file(), ds->key_of("zero3_init_flag"));
  ds->ignore(setup, {"gradient_clipping", "zero3_save_16bit_model", "deepspeed_multinode_launcher", "deepspeed_hostfile",
                     "deepspeed_exclusion_filter", "deepspeed_inclusion_filter", "deepspeed_moe_layer_cls_names"},
             "no effect on memory or step time");
  ds->finish(setup, kNotModelled);
}

void megatron_plugin(ForeignObject& doc, ImportedSetup& setup) {
  std::optional<ForeignObject> m = doc.object("megatron_lm_config");
  if (!m) return;
  setup.set("training.framework", "megatron", doc.file(), "distributed_type");
  if (const auto tp = m->integer("megatron_lm_tp_degree", 1, 64)) setup.set("config.parallelism.tp", *tp, m->file(), m->key_of("megatron_lm_tp_degree"));
  if (const auto pp = m->integer("megatron_lm_pp_degree", 1, 1024)) setup.set("config.parallelism.pp", *pp, m->file(), m->key_of("megatron_lm_pp_degree"));
  if (const auto sp = m->boolean("megatron_lm_sequence_parallelism")) {
    setup.set("config.parallelism.sequence_parallel", *sp, m->file(), m->key_of("megatron_lm_sequence_parallelism"));
  }
  if (const auto r = m->boolean("megatron_lm_recompute_activations")) {
    setup.set("config.activation_checkpointing", *r ? "selective" : "none", m->file(), m->key_of("megatron_lm_recompute_activations"));
  }
  if (const auto d = m->boolean("megatron_lm_use_distributed_optimizer")) {
    setup.set("config.sharding", *d ? "zero1" : "ddp", m->file(), m->key_of("megatron_lm_use_distributed_optimizer"));
  }
  m->ignore(setup, {"megatron_lm_num_micro_batches", "megatron_lm_gradient_clipping"}, "accumulation comes from the batch terms");
  m->finish(setup, kNotModelled);
}

void distributed_type(ForeignObject& doc, ImportedSetup& setup) {
  const std::optional<std::string> type = doc.string("distributed_type");
  // Accelerate runs Hugging Face's stack, but for its Megatron-LM plugin.
  if (!type || *type != "MEGATRON_LM") setup.set("training.framework", "transformers", doc.file(), "(an Accelerate config)");
  if (!type) return;
  if (*type == "NO") {
    setup.world_gpus(1, doc.file(), "distributed_type");
  } else if (*type == "MULTI_GPU") {
    setup.set("config.sharding", "ddp", doc.file(), "distributed_type");
  } else if (*type != "DEEPSPEED" && *type != "FSDP" && *type != "MEGATRON_LM") {
    doc.fail("distributed_type", "NO, MULTI_GPU, DEEPSPEED, FSDP or MEGATRON_LM (preflight models NVIDIA GPUs)");
  }
}

}  // namespace

void import_accelerate(const nlohmann::json& json, const std::string& file, ImportedSetup& setup, const ImportContext& context) {
  ForeignObject doc(json, file, "");
  distributed_type(doc, setup);
  deepspeed_plugin(doc, setup, context);
  if (std::optional<ForeignObject> fsdp = doc.object("fsdp_config")) import_fsdp_config(*fsdp, setup);
  megatron_plugin(doc, setup);
  if (const std::optional<std::string> mp = doc.string("mixed_precision")) {
    static const std::map<std::string, std::string> kPrecision{{"no", "fp32"}, {"fp16", "fp16"}, {"bf16", "bf16"}, {"fp8", "fp8"}};
    const auto it = kPrecision.find(*mp);
    if (it == kPrecision.end()) doc.fail("mixed_precision", "no, fp16, bf16 or fp8");
    setup.set("training.precision", it->second, file, "mixed_precision");
  }
  if (const auto machines = doc.integer("num_machines", 1, 100'000)) setup.set("config.nodes", *machines, file, "num_machines");
  if (const auto processes = doc.integer("num_processes", 1, 10'000'000)) setup.world_gpus(*processes, file, "num_processes");
  if (const std::optional<bool> cpu = doc.boolean("use_cpu"); cpu && *cpu) doc.fail("use_cpu", "false (preflight models GPU training)");
  if (std::optional<ForeignObject> dynamo = doc.object("dynamo_config")) {
    if (const std::optional<std::string> backend = dynamo->string("dynamo_backend")) {
      setup.set("training.torch_compile", *backend != "NO", dynamo->file(), dynamo->key_of("dynamo_backend"));
    }
    dynamo->finish(setup, "torch.compile's mode and graph options: preflight models the default mode");
  }
  if (const std::optional<std::string> backend = doc.string("dynamo_backend")) {
    setup.set("training.torch_compile", *backend != "NO", file, "dynamo_backend");
  }
  doc.ignore(setup, {"compute_environment", "machine_rank", "main_process_ip", "main_process_port", "main_training_function",
                     "rdzv_backend", "same_network", "gpu_ids", "debug", "enable_cpu_affinity", "downcast_bf16", "tpu_env",
                     "tpu_use_cluster", "tpu_use_sudo", "num_cpu_threads_per_process"},
             "where and how the processes start: no effect on memory or step time");
  doc.finish(setup, kNotModelled);
}

}  // namespace preflight
