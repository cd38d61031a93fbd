#include "planner/import/import_context.hpp"

#include <algorithm>
#include <cctype>

#include "planner/io/input_file.hpp"

namespace preflight {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool strip_suffix(std::string& s, const std::string& suffix) {
  if (!s.ends_with(suffix)) return false;
  s.resize(s.size() - suffix.size());
  return true;
}

// A Hub id reduced to the base model it fine-tunes from, as far as the architecture goes: case,
// Meta's renaming (Meta-Llama-3.1-8B -> Llama-3.1-8B), the -hf suffix of converted checkpoints and
// instruction-tuned variants (-Instruct, -chat, -it) share their base's config.
// Mirrors under another organisation (NousResearch/Llama-2-7b-hf, unsloth/...) are the same model:
// only the name counts.
std::string base_of(const std::string& hub_id) {
  std::string s = lower(hub_id);
  if (const std::size_t slash = s.rfind('/'); slash != std::string::npos) s = s.substr(slash + 1);
  if (s.starts_with("meta-llama-")) s = s.substr(5);
  // Llama 3 and 3.1 share their architecture (3.1 only extends the context with RoPE scaling).
  if (s.starts_with("llama-3-")) s = "llama-3.1-" + s.substr(8);
  for (bool changed = true; changed;) {
    changed = strip_suffix(s, "-hf") || strip_suffix(s, "-chat") || strip_suffix(s, "-instruct") || strip_suffix(s, "-it") ||
              strip_suffix(s, "-fp16") || strip_suffix(s, "-bf16");
    // Mistral 7B v0.1 and v0.2 share the architecture (v0.3 grew the vocabulary to 32768).
    for (const char* v : {"-v0.1", "-v0.2"}) changed = strip_suffix(s, v) || changed;
  }
  return s;
}

// "huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json ..." -> "meta-llama/Llama-2-7b-hf".
std::optional<std::string> hub_id_of_source(const std::string& source) {
  const std::string prefix = "huggingface.co/";
  if (!source.starts_with(prefix)) return std::nullopt;
  const std::size_t org_end = source.find('/', prefix.size());
  if (org_end == std::string::npos) return std::nullopt;
  const std::size_t name_end = source.find('/', org_end + 1);
  return source.substr(prefix.size(), (name_end == std::string::npos ? source.size() : name_end) - prefix.size());
}

}  // namespace

std::optional<std::string> catalog_model_for_hub_id(const Catalog& catalog, const std::string& hub_id) {
  if (hub_id.find('/') == std::string::npos) return std::nullopt;  // a Hub id has an organisation
  const std::string wanted = base_of(hub_id);
  for (const std::string& id : catalog.model_ids()) {
    const std::optional<std::string> hub = hub_id_of_source(catalog.model(id).source);
    if (hub && (lower(*hub) == lower(hub_id) || base_of(*hub) == wanted)) return id;
  }
  return std::nullopt;
}

void set_model(ImportedSetup& setup, const std::string& name, const std::string& file, const std::string& key,
               const ImportContext& context) {
  const Catalog& catalog = *context.catalog;
  if (catalog.has_model(name)) {
    setup.set("model", name, file, key);
    return;
  }
  for (const fs::path& base : {fs::path(file).parent_path(), fs::path()}) {
    const fs::path p = fs::path(name).is_absolute() || base.empty() ? fs::path(name) : base / name;
    std::error_code ec;
    const fs::path config = fs::is_directory(p, ec) ? p / "config.json" : p;
    if (config.extension() == ".json" && io::input_file_problem(config).empty()) {
      setup.set("model", fs::absolute(config).lexically_normal().string(), file, key);
      return;
    }
  }
  if (const std::optional<std::string> id = catalog_model_for_hub_id(catalog, name)) {
    setup.set("model", *id, file, key);
    if (lower(name) != lower(*hub_id_of_source(catalog.model(*id).source))) {
      setup.note(file + ": " + key + " \"" + name + "\" read as the catalog's " + *id + " (a variant of the same architecture)");
    }
    return;
  }
  throw InputError(file, key, "\"" + name + "\"",
                   "a catalog model (" + catalog.model_ids_text() + "), its Hugging Face Hub id (" +
                       "meta-llama/Llama-2-7b-hf, Qwen/Qwen2.5-7B-Instruct, ...), or a local folder with its config.json "
                       "(preflight reads nothing from the network: download the config.json and name its folder)");
}

std::optional<std::string> optimizer_for(const std::string& raw) {
  // A Python path (torchtune's _component_: bitsandbytes.optim.PagedAdamW8bit, torch.optim.AdamW) is
  // read by its last part; the Trainer's names (paged_adamw_8bit, adamw_bnb_8bit) by their words.
  std::string name = lower(raw);
  if (const std::size_t dot = name.rfind('.'); dot != std::string::npos) name = name.substr(dot + 1);
  const bool paged = name.starts_with("paged");
  const bool eight_bit = name.find("8bit") != std::string::npos;
  // bitsandbytes' 8-bit optimizers keep their moments in 8 bits (Dettmers et al. 2022), its paged
  // ones in unified memory; a Lion keeps one moment where Adam keeps two, so read as Adam it errs high.
  if (paged) return eight_bit ? "paged_adamw8bit" : "paged_adamw32bit";
  if (eight_bit) return "adamw8bit";
  if (name.starts_with("adafactor")) return "adafactor";
  if (name.starts_with("adamw") || name.starts_with("adam") || name == "fusedadam" || name == "cpuadam" ||
      name == "deepspeedcpuadam" || name == "lamb" || name == "fusedlamb") {
    return "adamw";  // LAMB keeps Adam's two moments per parameter
  }
  if (name == "sgd") return "sgd";
  return std::nullopt;
}

void set_optimizer(ImportedSetup& setup, const std::string& name, const std::string& file, const std::string& key) {
  if (const std::optional<std::string> kind = optimizer_for(name)) {
    setup.set("training.optimizer", *kind, file, key);
  } else {
    setup.ignore(file, key, "not modelled: " + name + " (the scenario's optimizer is used)");
  }
}

}  // namespace preflight
