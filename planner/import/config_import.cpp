#include "planner/import/config_import.hpp"

#include <algorithm>

#include "planner/import/foreign_document.hpp"
#include "planner/import/importers.hpp"
#include "planner/import/shell_script.hpp"
#include "planner/io/input_file.hpp"
#include "planner/io/json_reader.hpp"

namespace preflight {

namespace fs = std::filesystem;

namespace {

bool has_any(const nlohmann::json& doc, std::initializer_list<const char*> keys) {
  return doc.is_object() && std::any_of(keys.begin(), keys.end(), [&](const char* k) { return doc.contains(k); });
}

std::string extension_of(const std::string& file) {
  std::string ext = fs::path(file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

[[noreturn]] void unknown(const std::string& file, const std::string& what) {
  throw InputError(file, "", what, kImportFormats);
}

void import_json(const std::string& text, const std::string& file, ImportedSetup& setup, const ImportContext& context) {
  const nlohmann::json doc = io::parse_json(text, file);
  if (has_any(doc, {"zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size", "zero_allow_untested_optimizer"}) ||
      (doc.is_object() && ((doc.contains("bf16") && doc["bf16"].is_object()) || (doc.contains("fp16") && doc["fp16"].is_object())))) {
    setup.read(file, "DeepSpeed config");
    import_deepspeed(doc, file, setup, context);
  } else if (has_any(doc, {"per_device_train_batch_size", "output_dir", "model_name_or_path", "gradient_checkpointing",
                           "max_steps", "num_train_epochs"})) {
    setup.read(file, "Hugging Face TrainingArguments");
    import_training_args(doc, file, "", setup, context);
  } else {
    unknown(file, "a JSON file that is neither a DeepSpeed config nor TrainingArguments");
  }
}

void import_yaml(const std::string& text, const std::string& file, ImportedSetup& setup, const ImportContext& context) {
  const nlohmann::json doc = yaml_document(text, file);
  if (has_any(doc, {"compute_environment", "distributed_type"})) {
    setup.read(file, "Accelerate config");
    import_accelerate(doc, file, setup, context);
  } else if (has_any(doc, {"base_model", "base_model_config", "sequence_len", "micro_batch_size", "adapter", "datasets"})) {
    setup.read(file, "axolotl config");
    import_axolotl(doc, file, setup, context);
  } else if (has_any(doc, {"per_device_train_batch_size", "model_name_or_path", "gradient_accumulation_steps"})) {
    setup.read(file, "Hugging Face TrainingArguments (YAML recipe)");
    import_training_args(doc, file, "", setup, context);
  } else if (has_any(doc, {"resources", "run", "setup", "num_nodes", "file_mounts"})) {
    setup.read(file, "SkyPilot task");
    import_skypilot(doc, file, setup, context);
  } else {
    unknown(file, "a YAML file that is none of an Accelerate, axolotl, TrainingArguments or SkyPilot file");
  }
}

bool looks_like_shell(const std::string& text, const std::string& ext) {
  if (ext == ".sh" || ext == ".bash" || ext == ".sbatch" || ext == ".slurm") return true;
  return text.starts_with("#!") || text.find("#SBATCH") != std::string::npos || text.find("torchrun") != std::string::npos ||
         text.find("pretrain_gpt") != std::string::npos;
}

}  // namespace

ImportedSetup import_text(const std::string& text, const std::string& file, const ImportContext& context,
                          const std::string& file_name) {
  if (text.size() > kMaxForeignBytes) {
    throw InputError(file, "", std::to_string(text.size()) + " bytes",
                     "a training config of at most " + std::to_string(kMaxForeignBytes) + " bytes");
  }
  ImportedSetup setup;
  const std::string ext = extension_of(file_name.empty() ? file : file_name);
  if (ext == ".json") {
    import_json(text, file, setup, context);
  } else if (ext == ".yaml" || ext == ".yml") {
    import_yaml(text, file, setup, context);
  } else if (ext == ".toml") {
    setup.read(file, "torchtitan job config");
    import_torchtitan(toml_document(text, file), file, setup, context);
  } else if (looks_like_shell(text, ext)) {
    setup.read(file, "launch script");
    import_shell(text, file, setup, context);
  } else {
    const std::size_t first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (first != std::string::npos && text[first] == '{') {
      import_json(text, file, setup, context);
    } else {
      unknown(file, "a file whose format preflight cannot tell (name it .json, .yaml, .toml or .sh)");
    }
  }
  return setup;
}

ReferencedFile read_reference(const std::string& name, const std::string& file, const std::string& key, const ImportContext& context) {
  if (context.depth >= kMaxReferenceDepth) {
    throw InputError(file, key, "\"" + name + "\"", "files referring to files at most " + std::to_string(kMaxReferenceDepth) + " deep");
  }
  const fs::path given = name;
  if (const auto it = context.inline_files.find(given.filename().string()); it != context.inline_files.end()) {
    return {it->second, file + " (" + it->first + ")", false, it->first};
  }
  for (const std::string& g : context.given) {
    if (fs::path(g).filename() == given.filename()) return {"", g, true, g};
  }
  std::vector<fs::path> candidates;
  if (given.is_relative()) candidates.push_back(fs::path(file).parent_path() / given);
  candidates.push_back(given);
  for (const fs::path& p : candidates) {
    if (io::input_file_problem(p).empty()) return {io::read_input_file(p, "a training config"), p.string(), false, p.string()};
  }
  const fs::path folder = fs::path(file).parent_path();
  throw InputError(file, key, "\"" + name + "\"",
                   "a readable file, relative to " + (folder.empty() ? std::string(".") : folder.string()) + " or the current folder (" +
                       candidates.front().string() + " is " + io::input_file_problem(candidates.front()) + "); or give it as another --from");
}

ImportedSetup import_reference(const std::string& name, const std::string& file, const std::string& key, const ImportContext& context,
                               const std::string& expected) {
  if (unresolved(name)) {
    // A launch script's path the script leaves to its caller: nothing to read, said so.
    ImportedSetup setup;
    setup.ignore(file, key, "names " + name + ", which the script does not set: give that file as another --from");
    return setup;
  }
  const ReferencedFile f = read_reference(name, file, key, context);
  std::error_code ec;
  if (f.name == file || fs::equivalent(f.name, file, ec)) {
    throw InputError(file, key, "\"" + name + "\"", expected.empty() ? std::string("another file than this one") : "a " + expected + ", not this file");
  }
  if (f.given) return {};
  ImportContext inner = context;
  ++inner.depth;
  ImportedSetup setup = import_text(f.text, f.name, inner, f.file_name);
  if (!expected.empty() && (setup.files().empty() || !setup.files().front().format.starts_with(expected))) {
    throw InputError(file, key, "\"" + name + "\"",
                     "a " + expected + " (" + f.name + " is " + (setup.files().empty() ? std::string("not one") : "a " + setup.files().front().format) + ")");
  }
  return setup;
}

ImportedSetup import_files(const std::vector<std::string>& files, const Catalog& catalog) {
  ImportContext context;
  context.catalog = &catalog;
  context.given = files;
  ImportedSetup all;
  for (const std::string& f : files) all.merge(import_text(io::read_input_file(f, "a training config"), f, context));
  // A model loaded in 16 bits trains in 16 bits only where no sharding engine keeps fp32 master
  // weights: DeepSpeed's bf16/fp16 optimizers and Accelerate's FSDP (which upcasts its flat parameters
  // under mixed precision) do, whichever file names them.
  const ImportedFact* pure = all.fact("training.master_weights");
  const ImportedFact* sharding = all.fact("config.sharding");
  if (pure != nullptr && pure->value == false && pure->key.ends_with("dtype") && sharding != nullptr && sharding->value != "ddp") {
    all.retract("training.master_weights", "the load dtype: " + sharding->value.get<std::string>() +
                                               " keeps fp32 master weights whatever the weights are loaded in");
  }
  return all;
}

}  // namespace preflight
