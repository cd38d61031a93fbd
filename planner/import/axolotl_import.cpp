// An axolotl config (docs.axolotl.ai/docs/config.html): the base model, the sequence length, the
// batch terms, LoRA/QLoRA adapters, precision, recompute, attention, and the DeepSpeed or FSDP
// settings it hands to Accelerate.

#include "planner/import/foreign_object.hpp"
#include "planner/import/fsdp_import.hpp"
#include "planner/import/importers.hpp"
#include "planner/import/preference_import.hpp"
#include "planner/io/json_reader.hpp"

namespace preflight {

namespace {

const char* const kNotRead = "not modelled: does not change what fits or how fast in preflight's model";

// `method`: where the weights trained go (training.method, or training.adapter beside `rl`).
void adapter(ForeignObject& a, ImportedSetup& setup, const std::string& method) {
  const std::optional<std::string> kind = a.string("adapter");
  const std::optional<bool> four_bit = a.boolean("load_in_4bit");
  const std::optional<bool> eight_bit = a.boolean("load_in_8bit");
  if (!kind || kind->empty()) {
    if (a.has("adapter")) setup.set(method, "full", a.file(), "adapter");
    return;
  }
  if (*kind != "lora" && *kind != "qlora") a.fail("adapter", "lora or qlora (or none for full fine-tuning)");
  // axolotl's own rule: QLoRA loads the base model in 4 bits.
  if (*kind == "qlora" && !(four_bit && *four_bit)) a.fail("load_in_4bit", "true with adapter: qlora (axolotl refuses QLoRA without it)");
  setup.set(method, *kind, a.file(), "adapter");
  // axolotl runs PEFT's k-bit preparation, then casts the norms and embeddings back to the training
  // dtype for every adapter (its model loader's should_convert: "LlamaRMSNorm layers are in fp32 after
  // kbit_training ... convert them back to fp16/bf16 for flash-attn compatibility").
  if (*kind == "qlora") setup.set("training.lora.upcast", "none", a.file(), "adapter");
  if (*kind == "lora" && eight_bit && *eight_bit) {
    setup.ignore(a.file(), "load_in_8bit", "not modelled: 8-bit base weights (counted at 16 bits: memory is overestimated)");
  }
  if (const auto r = a.integer("lora_r", 1, 65536)) setup.set("training.lora.rank", *r, a.file(), "lora_r");
  if (const nlohmann::json* d = a.take("lora_dropout"); d != nullptr && d->is_number()) {
    setup.set("training.lora.dropout", *d, a.file(), "lora_dropout");
  }
  const std::optional<bool> linear = a.boolean("lora_target_linear");
  if (linear && *linear) {
    setup.set("training.lora.targets", nlohmann::json::array({"all-linear"}), a.file(), "lora_target_linear");
  } else if (const nlohmann::json* t = a.take("lora_target_modules"); t != nullptr && !t->is_null()) {
    setup.set("training.lora.targets", t->is_string() ? nlohmann::json::array({*t}) : *t, a.file(), "lora_target_modules");
  }
  a.ignore(setup, {"lora_alpha", "lora_fan_in_fan_out", "peft_use_rslora"}, "scales the adapters' update: no effect on memory or step time");
  a.ignore(setup, {"peft_use_dora"}, "not modelled: DoRA's magnitude vectors (a vector per adapted layer: a few MB)");
  if (const nlohmann::json* m = a.take("lora_modules_to_save"); m != nullptr && !m->is_null()) {
    setup.set("training.lora.modules_to_save", m->is_string() ? nlohmann::json::array({*m}) : *m, a.file(), "lora_modules_to_save");
  }
}

void precision(ForeignObject& a, ImportedSetup& setup) {
  // bf16: auto lets axolotl pick bf16 where the GPU has it: left to the scenario.
  const std::optional<bool> bf16 = a.boolean("bf16");
  const std::optional<bool> fp16 = a.boolean("fp16");
  if (bf16 && fp16 && *bf16 && *fp16) a.fail("fp16", "false when bf16 is true");
  if (bf16 && *bf16) setup.set("training.precision", "bf16", a.file(), "bf16");
  if (fp16 && *fp16) setup.set("training.precision", "fp16", a.file(), "fp16");
  a.ignore(setup, {"tf32", "bfloat16", "float16"}, "the training precision is bf16 or fp16 as above");
}

void attention(ForeignObject& a, ImportedSetup& setup) {
  const std::optional<bool> flash = a.boolean("flash_attention");
  const std::optional<bool> sdp = a.boolean("sdp_attention");
  if (flash && *flash) {
    setup.set("training.attention", "flash2", a.file(), "flash_attention");
  } else if (sdp && *sdp) {
    setup.set("training.attention", "auto", a.file(), "sdp_attention");
  } else if (flash) {
    setup.set("training.attention", "eager", a.file(), "flash_attention");
  }
  a.ignore(setup, {"xformers_attention", "flex_attention", "s2_attention"}, "not modelled: read as the stack's default attention kernel");
  a.ignore(setup, {"flash_attn_cross_entropy", "flash_attn_rms_norm", "flash_attn_fuse_qkv", "flash_attn_fuse_mlp"},
           "not modelled: fused kernels beside attention");
}

}  // namespace

void import_axolotl(const nlohmann::json& json, const std::string& file, ImportedSetup& setup, const ImportContext& context) {
  ForeignObject a(json, file, "");
  const std::optional<std::string> config = a.string("base_model_config");
  const std::optional<std::string> base = a.string("base_model");
  if (config || base) set_model(setup, config ? *config : *base, file, config ? "base_model_config" : "base_model", context);
  if (config && base) setup.ignore(file, "base_model", "the architecture comes from base_model_config");
  if (const auto len = a.integer("sequence_len", 1, 10'000'000)) setup.set("training.seq_len", *len, file, "sequence_len");
  if (const auto mb = a.integer("micro_batch_size", 1, 1'000'000)) setup.set("config.micro_batch", *mb, file, "micro_batch_size");
  if (const auto accum = a.integer("gradient_accumulation_steps", 1, 1'000'000)) {
    setup.set("config.grad_accum", *accum, file, "gradient_accumulation_steps");
  } else if (setup.has("config.micro_batch") && !a.has("gradient_accumulation_steps")) {
    setup.set("config.grad_accum", 1, file, "gradient_accumulation_steps (not given: axolotl's default, 1)");
  }
  setup.set("training.framework", "transformers", file, "(an axolotl config: transformers under Accelerate)");
  for (const char* key : {"context_parallel_size", "sequence_parallel_degree"}) {
    if (const auto cp = a.integer(key, 1, 1024); cp && *cp > 1) a.fail(key, "1 (axolotl's ring-flash-attn context parallelism is not modelled; megatron's and torchtitan's are)");
  }
  if (const nlohmann::json* tp = a.take("tensor_parallel"); tp != nullptr && !tp->is_null() && *tp != false && *tp != 1) {
    setup.ignore(file, "tensor_parallel",
                 "not modelled: axolotl's tensor parallelism (DTensor); checked without it, so memory per GPU is overestimated");
  }
  // fp8 GEMMs in bf16 training: what preflight's fp8 precision is.
  if (const std::optional<bool> fp8 = a.boolean("fp8"); fp8 && *fp8) setup.replace("training.precision", "fp8", file, "fp8");
  a.ignore(setup, {"plugins", "liger_fused_linear_cross_entropy", "liger_rope", "liger_rms_norm", "liger_glu_activation", "liger_layer_norm",
                   "cut_cross_entropy"},
           "not modelled: fused kernels (Liger, Cut Cross-Entropy); the eager loss keeps its logits: memory is overestimated");
  if (const auto steps = a.integer("max_steps", 1, 1'000'000'000'000)) setup.set("training.steps", *steps, file, "max_steps");
  // The model config's rope_scaling axolotl writes ({type or rope_type, factor}): read as preflight's.
  if (const nlohmann::json* rope = a.take("rope_scaling"); rope != nullptr && !rope->is_null()) {
    if (!rope->is_object()) a.fail("rope_scaling", "a mapping {type, factor}");
    nlohmann::json scaling = nlohmann::json::object();
    if (rope->contains("type")) scaling["type"] = rope->at("type");
    if (rope->contains("rope_type")) scaling["type"] = rope->at("rope_type");
    if (rope->contains("factor")) scaling["factor"] = rope->at("factor");
    setup.set("training.rope_scaling", scaling, file, "rope_scaling");
  }
  // rl: a preference trainer; the adapter then says the weights it trains (all of them without one).
  const std::optional<std::string> objective = import_axolotl_rl(a, setup);
  adapter(a, setup, adapter_target(objective));
  if (objective && !setup.has("training.adapter")) setup.set("training.adapter", "full", file, "adapter (not given: full fine-tuning)");
  precision(a, setup);
  attention(a, setup);
  if (const nlohmann::json* gc = a.take("gradient_checkpointing"); gc != nullptr && !gc->is_null()) {
    if (gc->is_boolean()) {
      setup.set("config.activation_checkpointing", gc->get<bool>() ? "full" : "none", file, "gradient_checkpointing");
    } else {
      // "offload" / "unsloth": every layer checkpointed, the inputs it keeps moved to the host.
      setup.set("config.activation_checkpointing", "full", file, "gradient_checkpointing");
      if (gc->is_string() && (*gc == "offload" || *gc == "unsloth")) {
        setup.set("config.offload.activations", "cpu", file, "gradient_checkpointing");
      } else {
        setup.note(file + ": gradient_checkpointing " + io::describe(*gc) + " read as full recompute (the saved layer inputs kept on the GPU)");
      }
    }
  }
  if (const std::optional<std::string> ds = a.string("deepspeed")) setup.merge(import_reference(*ds, file, "deepspeed", context, "DeepSpeed config"));
  if (const nlohmann::json* fsdp = a.take("fsdp")) import_fsdp_options(*fsdp, file, "fsdp", setup);
  if (std::optional<ForeignObject> c = a.object("fsdp_config")) import_fsdp_config(*c, setup);
  a.ignore(setup, {"fsdp_version"}, "FSDP1 or FSDP2: the same sharding in preflight's model");
  if (const std::optional<std::string> optim = a.string("optimizer")) set_optimizer(setup, *optim, file, "optimizer");
  if (const std::optional<bool> compile = a.boolean("torch_compile")) setup.set("training.torch_compile", *compile, file, "torch_compile");
  a.ignore(setup, {"num_epochs"}, "epochs without the dataset's size: how much to train comes from max_steps or the scenario");
  a.ignore(setup, {"sample_packing", "pad_to_sequence_len", "eval_sample_packing"},
           "packing fills each sequence up to sequence_len: a step's tokens are what preflight counts");
  a.ignore(setup, {"model_type", "tokenizer_type", "tokenizer_config", "trust_remote_code", "is_llama_derived_model"},
           "the architecture comes from the model's config");
  a.finish(setup, kNotRead);
}

}  // namespace preflight
