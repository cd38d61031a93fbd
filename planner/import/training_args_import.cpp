// Hugging Face TrainingArguments (huggingface.co/docs/transformers/main_classes/trainer), with the
// keys TRL's SFTConfig and ModelConfig add (max_seq_length/max_length, use_peft, lora_r, ...) and
// the model arguments scripts parse beside them (model_name_or_path): as a JSON file
// (HfArgumentParser.parse_json_file), a YAML recipe (alignment-handbook, TRL) or a command line.

#include <algorithm>

#include "planner/import/foreign_object.hpp"
#include "planner/import/fsdp_import.hpp"
#include "planner/import/importers.hpp"
#include "planner/import/preference_import.hpp"
#include "planner/io/json_reader.hpp"

namespace preflight {

namespace {

const char* const kNotRead = "not modelled: does not change what fits or how fast in preflight's model";

void precision(ForeignObject& a, ImportedSetup& setup) {
  const std::optional<bool> bf16 = a.boolean("bf16");
  const std::optional<bool> fp16 = a.boolean("fp16");
  if (bf16 && fp16 && *bf16 && *fp16) a.fail("fp16", "false when bf16 is true (Trainer refuses both)");
  if (bf16 && *bf16) {
    setup.set("training.precision", "bf16", a.file(), a.key_of("bf16"));
  } else if (fp16 && *fp16) {
    setup.set("training.precision", "fp16", a.file(), a.key_of("fp16"));
  } else if (bf16 || fp16) {
    // Neither on: the Trainer trains in the model's fp32 weights.
    setup.set("training.precision", "fp32", a.file(), a.key_of(bf16 ? "bf16" : "fp16"));
  }
}

void batch(ForeignObject& a, ImportedSetup& setup) {
  for (const char* key : {"per_device_train_batch_size", "per_gpu_train_batch_size"}) {
    if (const auto mb = a.integer(key, 1, 1'000'000)) setup.set("config.micro_batch", *mb, a.file(), a.key_of(key));
  }
  if (const auto accum = a.integer("gradient_accumulation_steps", 1, 1'000'000)) {
    setup.set("config.grad_accum", *accum, a.file(), a.key_of("gradient_accumulation_steps"));
  } else if (setup.has("config.micro_batch") && !a.has("gradient_accumulation_steps")) {
    // TrainingArguments' default: no accumulation.
    setup.set("config.grad_accum", 1, a.file(), a.key_of("gradient_accumulation_steps") + " (not given: the Trainer's default, 1)");
  }
  // max_steps -1 (the default) means "train num_train_epochs".
  if (const auto steps = a.integer("max_steps", -1, 1'000'000'000'000); steps && *steps > 0) {
    setup.set("training.steps", *steps, a.file(), a.key_of("max_steps"));
  }
  // TRL's SFTConfig: max_seq_length before 0.20, max_length after; scripts' block_size and model_max_length.
  for (const char* key : {"max_seq_length", "max_length", "block_size", "model_max_length", "cutoff_len"}) {
    if (const auto len = a.integer(key, 1, 10'000'000)) setup.set("training.seq_len", *len, a.file(), a.key_of(key));
  }
}

void sharding(ForeignObject& a, ImportedSetup& setup, const ImportContext& context) {
  if (const nlohmann::json* fsdp = a.take("fsdp")) import_fsdp_options(*fsdp, a.file(), a.key_of("fsdp"), setup);
  if (const nlohmann::json* config = a.take("fsdp_config"); config != nullptr && !config->is_null()) {
    if (config->is_string()) {
      // A JSON of FSDP keys (TrainingArguments reads it with json.load).
      const ReferencedFile f = read_reference(config->get<std::string>(), a.file(), a.key_of("fsdp_config"), context);
      if (!f.given) {
        const nlohmann::json doc = io::parse_json(f.text, f.name);
        ForeignObject c(doc, f.name, "");
        import_fsdp_config(c, setup);
      }
    } else {
      ForeignObject c(*config, a.file(), a.key_of("fsdp_config"));
      import_fsdp_config(c, setup);
    }
  }
  if (const nlohmann::json* ds = a.take("deepspeed"); ds != nullptr && !ds->is_null()) {
    if (ds->is_string()) {
      setup.merge(import_reference(ds->get<std::string>(), a.file(), a.key_of("deepspeed"), context, "DeepSpeed config"));
    } else {
      import_deepspeed(*ds, a.file() + " (" + a.key_of("deepspeed") + ")", setup, context);
    }
  }
}

// TRL's ModelConfig torch_dtype (dtype in newer transformers): a model loaded in 16 bits trains in
// 16 bits, its AdamW states in bf16 (the Trainer's autocast does not upcast the weights), unless a
// sharding engine keeps fp32 master weights: import_files takes it back then.
void load_dtype(ForeignObject& a, ImportedSetup& setup) {
  for (const char* key : {"torch_dtype", "dtype"}) {
    const std::optional<std::string> dtype = a.string(key);
    if (!dtype) continue;
    const bool sixteen_bit = *dtype == "bfloat16" || *dtype == "bf16" || *dtype == "float16" || *dtype == "fp16";
    if (sixteen_bit) {
      setup.set("training.master_weights", false, a.file(), a.key_of(key));  // unless sharded (import_files)
    } else {
      setup.ignore(a.file(), a.key_of(key), "the training precision is bf16, fp16 or fp32 as above");
    }
  }
}

// TRL's ModelConfig: PEFT adapters and 4-bit loading.
// `method`: where the weights trained go (training.method, or training.adapter beside a preference objective).
void adapters(ForeignObject& a, ImportedSetup& setup, const std::string& method) {
  const std::optional<bool> peft = a.boolean("use_peft");
  const std::optional<bool> four_bit = a.boolean("load_in_4bit");
  if (peft && *peft) {
    setup.set(method, four_bit && *four_bit ? "qlora" : "lora", a.file(), a.key_of("use_peft"));
    // TRL's trainers run PEFT's prepare_model_for_kbit_training (every 16-bit weight to fp32), then
    // under bf16 cast the adapters, embeddings and head back to bf16 and keep the norms fp32
    // (peft_module_casting_to_bf16). Without bf16 in the file the default decides from the scenario's
    // precision; a sharded QLoRA is prepared by no stack (kbit_upcast), whichever file says so.
    const ImportedFact* precision = setup.fact("training.precision");
    if (four_bit && *four_bit && precision != nullptr && precision->value == "bf16") {
      setup.set("training.lora.upcast", "norms", a.file(), a.key_of("load_in_4bit"));
    }
    if (const auto r = a.integer("lora_r", 1, 65536)) setup.set("training.lora.rank", *r, a.file(), a.key_of("lora_r"));
    if (const nlohmann::json* t = a.take("lora_target_modules"); t != nullptr && !t->is_null()) {
      setup.set("training.lora.targets", t->is_string() ? nlohmann::json::array({*t}) : *t, a.file(), a.key_of("lora_target_modules"));
    }
    if (const nlohmann::json* m = a.take("lora_modules_to_save"); m != nullptr && !m->is_null()) {
      setup.set("training.lora.modules_to_save", m->is_string() ? nlohmann::json::array({*m}) : *m, a.file(),
                a.key_of("lora_modules_to_save"));
    }
    a.ignore(setup, {"lora_alpha"}, "scales the adapters' update: no effect on memory or step time");
  } else if (peft) {
    setup.set(method, "full", a.file(), a.key_of("use_peft"));
  }
  a.ignore(setup, {"load_in_8bit"}, "not modelled: 8-bit base weights (counted at 16 bits: memory is overestimated)");
}

// LLaMA-Factory's arguments (its FinetuningArguments and ModelArguments, read with the Trainer's).
void llama_factory(ForeignObject& a, ImportedSetup& setup, const std::string& method) {
  // LLaMA-Factory checkpoints gradients unless told not to (its model loader calls
  // gradient_checkpointing_enable when disable_gradient_checkpointing is false, the default).
  const bool llama_factory_file = a.has("finetuning_type") || a.has("cutoff_len") || a.has("template") || a.has("stage");
  if (llama_factory_file && !setup.has("config.activation_checkpointing")) {
    const std::optional<bool> disabled = a.boolean("disable_gradient_checkpointing");
    setup.set("config.activation_checkpointing", disabled && *disabled ? "none" : "full", a.file(),
              a.key_of("disable_gradient_checkpointing") + (disabled ? "" : " (not given: LLaMA-Factory checkpoints)"));
  }
  const std::optional<std::string> type = a.string("finetuning_type");
  const std::optional<std::int64_t> bits = a.integer("quantization_bit", 2, 16);
  if (type) {
    if (*type == "full") {
      setup.set(method, "full", a.file(), a.key_of("finetuning_type"));
    } else if (*type == "lora") {
      setup.set(method, bits && *bits == 4 ? "qlora" : "lora", a.file(), a.key_of("finetuning_type"));
      if (bits && *bits == 4) {
        // LLaMA-Factory quantizes without PEFT's k-bit preparation; upcast_layernorm (default false)
        // makes its norms fp32 (model_utils/checkpointing.py, prepare_model_for_training).
        const std::optional<bool> norms = a.boolean("upcast_layernorm");
        setup.set("training.lora.upcast", norms && *norms ? "norms" : "none", a.file(), a.key_of("quantization_bit"));
      }
      if (bits && *bits != 4) setup.ignore(a.file(), a.key_of("quantization_bit"), "not modelled: 8-bit base weights (counted at 16 bits: memory is overestimated)");
      if (const auto r = a.integer("lora_rank", 1, 65536)) setup.set("training.lora.rank", *r, a.file(), a.key_of("lora_rank"));
      if (const std::optional<std::string> t = a.string("lora_target")) {
        // "all", or module names separated by commas.
        nlohmann::json targets = nlohmann::json::array();
        for (std::size_t start = 0; start <= t->size();) {
          const std::size_t comma = std::min(t->find(',', start), t->size());
          const std::string name = t->substr(start, comma - start);
          if (!name.empty()) targets.push_back(name == "all" ? "all-linear" : name);
          start = comma + 1;
        }
        setup.set("training.lora.targets", targets, a.file(), a.key_of("lora_target"));
      }
    } else {
      a.fail("finetuning_type", "full or lora (freeze-tuning is not modelled)");
    }
  }
  a.ignore(setup, {"lora_alpha", "lora_dropout"}, "scales or drops the adapters' update: no effect on memory or step time");
  a.ignore(setup, {"max_samples"}, "a cap per dataset, without the datasets' sizes: how much to train comes from max_steps or the scenario");
}

}  // namespace

void import_training_args(const nlohmann::json& json, const std::string& file, const std::string& prefix, ImportedSetup& setup,
                          const ImportContext& context) {
  ForeignObject a(json, file, prefix);
  // The Trainer is Hugging Face transformers' (with DeepSpeed or FSDP as the sharding).
  setup.set("training.framework", "transformers", file, prefix.empty() ? "(TrainingArguments)" : "(a Trainer script's arguments)");
  batch(a, setup);
  precision(a, setup);
  if (const std::optional<bool> gc = a.boolean("gradient_checkpointing")) {
    setup.set("config.activation_checkpointing", *gc ? "full" : "none", file, a.key_of("gradient_checkpointing"));
  }
  sharding(a, setup, context);
  load_dtype(a, setup);
  // A preference trainer's config (TRL's or LLaMA-Factory's stage) says the objective; its adapter
  // choice then says the weights trained.
  // (LLaMA-Factory's own keys overlap TRL's, simpo_gamma among them: a file with a stage is its.)
  const std::optional<std::string> objective =
      a.has("stage") ? import_llama_factory_stage(a, setup) : import_trl_objective(a, setup);
  adapters(a, setup, adapter_target(objective));
  llama_factory(a, setup, adapter_target(objective));
  if (objective && !a.has("stage") && !setup.has("training.adapter")) {
    // TRL trains the whole model unless its ModelConfig's use_peft (or a peft_config in code) says otherwise.
    setup.set("training.adapter", "full", file, "use_peft (not given: TRL trains every weight)");
  }
  if (const std::optional<bool> compile = a.boolean("torch_compile")) setup.set("training.torch_compile", *compile, file, a.key_of("torch_compile"));
  if (const std::optional<std::string> optim = a.string("optim")) set_optimizer(setup, *optim, file, a.key_of("optim"));
  // The Trainer's older switch for Adafactor, beside optim.
  if (const std::optional<bool> adafactor = a.boolean("adafactor"); adafactor && *adafactor) {
    setup.set("training.optimizer", "adafactor", file, a.key_of("adafactor"));
  }
  if (const std::optional<std::string> attn = a.string("attn_implementation")) {
    static const std::map<std::string, std::string> kKernel{{"flash_attention_2", "flash2"}, {"flash_attention_3", "flash3"},
                                                            {"eager", "eager"}, {"sdpa", "auto"}};
    const auto it = kKernel.find(*attn);
    if (it == kKernel.end()) a.fail("attn_implementation", "flash_attention_2, flash_attention_3, sdpa or eager");
    setup.set("training.attention", it->second, file, a.key_of("attn_implementation"));
  }
  if (const std::optional<std::string> model = a.string("model_name_or_path")) set_model(setup, *model, file, a.key_of("model_name_or_path"), context);
  a.ignore(setup, {"num_train_epochs"}, "epochs without the dataset's size: how much to train comes from max_steps or the scenario");
  a.ignore(setup, {"packing", "group_by_length"}, "packing changes how sequences are filled, not the tokens a step trains on");
  a.ignore(setup, {"gradient_checkpointing_kwargs"}, "reentrant or not: the same recompute");
  a.ignore(setup, {"tf32"}, "the training precision is bf16, fp16 or fp32 as above");
  a.ignore(setup, {"save_steps", "save_strategy", "save_total_limit", "save_only_model"},
           "checkpoint cadence in steps: preflight sets the interval from the failure rate (Daly) and the scenario's checkpoint settings");
  a.finish(setup, kNotRead);
}

}  // namespace preflight
