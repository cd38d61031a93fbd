// A torchtitan job config (TOML; torchtitan/config/job_config.py): the model flavor, the batch and
// sequence, the parallel degrees (FSDP2 shard and replicate, tensor, pipeline), activation
// checkpointing, torch.compile and float8. Both layouts of its history are read: degrees under
// [training] or [experimental] (2024) and under [parallelism] (2025-), `batch_size` and
// `local_batch_size`, `compile` as a switch and as a [compile] table.

#include <algorithm>
#include <cctype>

#include "planner/catalog/torchtitan_flavors.hpp"
#include "planner/import/foreign_object.hpp"
#include "planner/import/importers.hpp"

namespace preflight {

namespace {

const char* const kNotRead = "not modelled: does not change what fits or how fast in preflight's model";

struct Degrees {
  std::int64_t replicate = 1, shard = -1, tp = 1, pp = 1;
  std::string shard_key;
  bool reshard_never = false;
  std::string reshard_key;
};

// A degree from the first table that has it.
std::optional<std::int64_t> degree(std::vector<ForeignObject*> tables, const std::string& key, std::string& where) {
  for (ForeignObject* t : tables) {
    if (t != nullptr && t->has(key)) {
      where = t->key_of(key);
      return t->integer(key, -1, 1'000'000);
    }
  }
  return std::nullopt;
}

Degrees parallelism(ForeignObject* par, ForeignObject* training, ForeignObject* experimental, ImportedSetup& setup, const std::string& file) {
  Degrees d;
  const std::vector<ForeignObject*> tables{par, training, experimental};
  std::string key;
  if (const auto v = degree(tables, "data_parallel_replicate_degree", key)) d.replicate = *v;
  if (const auto v = degree(tables, "data_parallel_shard_degree", key)) {
    d.shard = *v;
    d.shard_key = key;
  } else if (const auto old = degree(tables, "data_parallel_degree", key)) {
    d.shard = *old;
    d.shard_key = key;
  }
  if (const auto v = degree(tables, "tensor_parallel_degree", key)) {
    d.tp = *v;
    setup.set("config.parallelism.tp", *v, file, key);
    // torchtitan's tensor parallelism shards norms and dropout over the sequence (SequenceParallel).
    setup.set("config.parallelism.sequence_parallel", *v > 1, file, key);
  }
  if (const auto v = degree(tables, "pipeline_parallel_degree", key)) {
    d.pp = *v;
    setup.set("config.parallelism.pp", *v, file, key);
  }
  if (par != nullptr) {
    // FSDP2 keeping the gathered parameters until backward is ZeRO-2-like sharding.
    if (const std::optional<std::string> reshard = par->string("fsdp_reshard_after_forward"); reshard && *reshard == "never") {
      d.reshard_never = true;
      d.reshard_key = par->key_of("fsdp_reshard_after_forward");
    }
    if (const std::optional<std::string> schedule = par->string("pipeline_parallel_schedule")) {
      if (schedule->starts_with("Interleaved")) {
        setup.set("config.parallelism.interleave", 2, file, par->key_of("pipeline_parallel_schedule"));
        setup.note(file + ": " + *schedule + " read as two model chunks per pipeline stage");
      }
    }
  }
  const std::int64_t cp = degree(tables, "context_parallel_degree", key).value_or(1);
  if (cp > 1) setup.set("config.parallelism.cp", cp, file, key);
  for (const std::int64_t v : {d.replicate, d.tp, d.pp, cp}) {
    if (v < 1) throw InputError(file, key, std::to_string(v), "a degree of at least 1");
  }
  if (d.shard == 0 || d.shard < -1) throw InputError(file, d.shard_key, std::to_string(d.shard), "-1 (every rank left) or a degree of at least 1");
  // FSDP2 over the shard group, replicated across the replicate group (HSDP when both are > 1).
  const std::string where = d.shard_key.empty() ? "data_parallel_shard_degree (default -1)" : d.shard_key;
  if (d.shard == 1) {
    setup.set("config.sharding", "ddp", file, where);
  } else if (d.reshard_never && d.replicate == 1) {
    setup.set("config.sharding", "fsdp_grad_op", file, d.reshard_key);
  } else {
    setup.set("config.sharding", d.replicate > 1 ? "fsdp_hybrid" : "fsdp_full", file, where);
  }
  if (d.shard > 0) setup.world_gpus(d.replicate * d.shard * cp * d.tp * d.pp, file, "the product of the parallel degrees");
  return d;
}

void batch(ForeignObject& training, ForeignObject* par, const Degrees& d, ImportedSetup& setup) {
  const std::string file = training.file();
  std::optional<std::int64_t> local;
  std::string local_key;
  for (const char* key : {"local_batch_size", "batch_size"}) {
    if (training.has(key)) {
      local = training.integer(key, 1, 1'000'000);
      local_key = training.key_of(key);
    }
  }
  const std::optional<std::int64_t> global = training.integer("global_batch_size", -1, 100'000'000);
  std::optional<std::int64_t> pp_micro;
  if (par != nullptr) pp_micro = par->integer("pipeline_parallel_microbatch_size", 1, 1'000'000);
  if (global && *global > 0) setup.set("training.global_batch_size", *global, file, training.key_of("global_batch_size"));
  if (!local) return;
  // Without a global batch there is no accumulation: the global batch is the local one on every
  // data-parallel rank.
  const bool accumulates = global && *global > 0;
  if (!accumulates) {
    if (d.shard > 0) {
      setup.set("training.global_batch_size", *local * d.replicate * d.shard, file, local_key + " x the data-parallel degrees");
    } else {
      setup.batch_per_rank(*local, file, local_key + " (no global_batch_size: times the data-parallel ranks)");
    }
    if (d.pp == 1) setup.set("config.grad_accum", 1, file, local_key + " (no global_batch_size: no accumulation)");
  }
  if (d.pp > 1) {
    // Pipeline stages run the local batch in micro-batches of pipeline_parallel_microbatch_size (default 1).
    setup.set("config.micro_batch", pp_micro.value_or(1), file, "parallelism.pipeline_parallel_microbatch_size");
  } else {
    setup.set("config.micro_batch", *local, file, local_key);
  }
}

void recompute(ForeignObject& doc, ImportedSetup& setup) {
  std::optional<ForeignObject> ac = doc.object("activation_checkpoint");
  if (!ac) return;
  const std::optional<std::string> mode = ac->string("mode");
  if (mode) {
    if (*mode != "none" && *mode != "selective" && *mode != "full") ac->fail("mode", "none, selective or full (memory_budget is not modelled)");
    setup.set("config.activation_checkpointing", *mode, ac->file(), ac->key_of("mode"));
  }
  // A number N checkpoints every N-th layer and keeps all of the others' activations (torchtitan:
  // use_layer_sac = selective_ac_option.isdigit()); read as op-level selective it would undercount
  // them, the unsafe direction, so it is refused.
  if (const nlohmann::json* option = ac->take("selective_ac_option"); option != nullptr && !option->is_null() && mode == "selective") {
    const std::string text = option->is_string() ? option->get<std::string>() : option->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const bool every_nth = !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
    if (every_nth && text != "1") {
      ac->fail("selective_ac_option", "\"op\" or 1 (checkpointing every " + text + "-th layer is not modelled: use mode full, or op)");
    }
    // Every layer checkpointed whole: full recompute.
    if (every_nth && setup.has("config.activation_checkpointing")) {
      setup.replace("config.activation_checkpointing", "full", ac->file(), ac->key_of("selective_ac_option"));
    }
  }
  ac->ignore(setup, {"per_op_sac_force_recompute_mm_shapes_by_fqns", "early_stop", "preserve_rng_state"},
             "which operations selective recompute keeps: preflight's op policy keeps every other matmul's output");
  ac->finish(setup, kNotRead);
}

void compile(ForeignObject& doc, ForeignObject& training, ImportedSetup& setup) {
  if (training.has("compile")) {
    if (const std::optional<bool> on = training.boolean("compile")) setup.set("training.torch_compile", *on, training.file(), training.key_of("compile"));
  }
  if (std::optional<ForeignObject> c = doc.object("compile")) {
    const std::optional<bool> on = c->boolean("enable");
    // components: "model" compiles each block, "loss" the loss (both by default).
    bool model = true;
    bool loss = true;
    if (const nlohmann::json* list = c->take("components"); list != nullptr && !list->is_null()) {
      if (!list->is_array()) c->fail("components", "a list of \"model\" and \"loss\"");
      model = std::find(list->begin(), list->end(), nlohmann::json("model")) != list->end();
      loss = std::find(list->begin(), list->end(), nlohmann::json("loss")) != list->end();
      if (on && *on) setup.set("training.compile_loss", loss, c->file(), c->key_of("components"));
    }
    if (on) setup.set("training.torch_compile", *on && model, c->file(), c->key_of("enable"));
    c->ignore(setup, {"backend"}, "Inductor or another backend: preflight models Inductor's fusion");
    c->finish(setup, kNotRead);
  }
}

// float8: [model] converters = ["float8"] (or the string "float8"; "quantize.linear.float8" in later
// torchtitan), or [float8] enable_float8_linear in the first layouts. Its recipe tables tune what the
// converter does: details when float8 is on, nothing when it is off.
void float8(ForeignObject& doc, ForeignObject* model, ForeignObject& training, ImportedSetup& setup) {
  bool on = false;
  if (const std::optional<bool> old = training.boolean("enable_fp8_linear"); old && *old) {
    setup.set("training.precision", "fp8", training.file(), training.key_of("enable_fp8_linear"));
    on = true;
  }
  if (model != nullptr) {
    if (const nlohmann::json* converters = model->take("converters"); converters != nullptr && !converters->is_null()) {
      const nlohmann::json list = converters->is_array() ? *converters : nlohmann::json::array({*converters});
      for (const nlohmann::json& c : list) {
        const std::string name = c.is_string() ? c.get<std::string>() : c.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (name == "float8" || name == "quantize.linear.float8") {
          setup.set("training.precision", "fp8", model->file(), model->key_of("converters"));
          on = true;
        } else {
          setup.ignore(model->file(), model->key_of("converters"),
                       "not modelled: the " + name + " converter (MX formats, quantized grouped GEMMs): read as bf16 GEMMs");
        }
      }
    }
  }
  if (std::optional<ForeignObject> f = doc.object("float8")) {
    if (const std::optional<bool> enabled = f->boolean("enable_float8_linear"); enabled && *enabled) {
      setup.set("training.precision", "fp8", f->file(), f->key_of("enable_float8_linear"));
      on = true;
    }
    f->finish(setup, on ? "float8 recipe details: preflight models tensorwise-scaled float8 GEMMs"
                        : "float8 settings with float8 off (no float8 converter): the GEMMs are bf16");
  }
  if (std::optional<ForeignObject> q = doc.object("quantize")) {
    q->finish(setup, on ? "float8 recipe details: preflight models tensorwise-scaled float8 GEMMs"
                        : "quantization settings with no converter using them: the GEMMs are bf16");
  }
}

}  // namespace

void import_torchtitan(const nlohmann::json& json, const std::string& file, ImportedSetup& setup, const ImportContext& context) {
  ForeignObject doc(json, file, "");
  setup.set("training.framework", "torchtitan", file, "(a torchtitan job config)");
  std::optional<ForeignObject> model = doc.object("model");
  std::optional<ForeignObject> training = doc.object("training");
  std::optional<ForeignObject> par = doc.object("parallelism");
  std::optional<ForeignObject> experimental = doc.object("experimental");
  static const nlohmann::json kNoTraining = nlohmann::json::object();
  ForeignObject empty(kNoTraining, file, "training");
  ForeignObject& t = training ? *training : empty;
  if (model) {
    const std::optional<std::string> name = model->string("name");
    const std::optional<std::string> flavor = model->string("flavor");
    if (name && flavor && flavor->empty()) {
      setup.note(file + ": model.flavor is empty: the model comes from the scenario");
    } else if (name && flavor) {
      // Variants of a flavor ("70B_flex_flash": FlexAttention) keep its architecture.
      const std::string base = flavor->substr(0, flavor->find('_'));
      if (base != *flavor) setup.note(file + ": model.flavor " + *flavor + " read as " + *name + " " + base + " (the same architecture)");
      const std::optional<std::string> id = catalog_model_of_flavor(*name, base);
      if (!id) model->fail("flavor", "a flavor in preflight's catalog: llama3 8B, 70B or 405B; llama2 7B, 13B or 70B");
      set_model(setup, *id, file, model->key_of("flavor"), context);
    }
  }
  const Degrees d = parallelism(par ? &*par : nullptr, training ? &*training : nullptr, experimental ? &*experimental : nullptr, setup, file);
  batch(t, par ? &*par : nullptr, d, setup);
  if (const auto len = t.integer("seq_len", 1, 10'000'000)) setup.set("training.seq_len", *len, file, t.key_of("seq_len"));
  if (const auto steps = t.integer("steps", 1, 1'000'000'000'000)) setup.set("training.steps", *steps, file, t.key_of("steps"));
  float8(doc, model ? &*model : nullptr, t, setup);
  if (const std::optional<bool> offload = t.boolean("enable_cpu_offload"); offload && *offload) {
    // FSDP2's CPUOffloadPolicy: parameters, gradients and the optimizer step on the host.
    setup.set("config.offload.params", "cpu", file, t.key_of("enable_cpu_offload"));
    setup.set("config.offload.optimizer", "cpu", file, t.key_of("enable_cpu_offload"));
  }
  t.ignore(setup, {"mixed_precision_reduce"}, "gradients are reduced in the training precision in preflight's model");
  if (const std::optional<std::string> mp = t.string("mixed_precision_param")) {
    if (*mp != "bfloat16" && *mp != "float32") t.fail("mixed_precision_param", "bfloat16 or float32");
    if (!setup.has("training.precision")) setup.set("training.precision", *mp == "bfloat16" ? "bf16" : "fp32", file, t.key_of("mixed_precision_param"));
  }
  recompute(doc, setup);
  compile(doc, t, setup);
  if (std::optional<ForeignObject> o = doc.object("optimizer")) {
    if (const std::optional<std::string> name = o->string("name")) set_optimizer(setup, *name, file, o->key_of("name"));
    o->finish(setup, "learning rate and betas: no effect on memory or step time");
  }
  for (std::optional<ForeignObject>* table : {&model, &training, &par, &experimental}) {
    if (*table) (*table)->finish(setup, kNotRead);
  }
  doc.ignore(setup, {"job", "profiling", "metrics", "checkpoint", "lr_scheduler", "comm", "memory_estimation", "validation", "fault_tolerance"},
             "no effect on memory or step time");
  doc.finish(setup, kNotRead);
}

}  // namespace preflight
