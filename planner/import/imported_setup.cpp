#include "planner/import/imported_setup.hpp"

#include "planner/io/json_reader.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

namespace {

std::string where(const ImportedFact& f) { return f.file + ": " + f.key; }

// Keys of training that each say how much to train or how large a batch is: setting one removes the
// others the scenario may have, since it takes exactly one of each.
const std::map<std::string, std::vector<std::string>>& alternatives() {
  static const std::map<std::string, std::vector<std::string>> a{
      {"training.tokens", {"samples", "dataset_tokens", "epochs", "steps"}},
      {"training.samples", {"tokens", "dataset_tokens", "epochs", "steps"}},
      {"training.steps", {"tokens", "samples", "dataset_tokens", "epochs"}},
      {"training.global_batch_size", {"global_batch_tokens"}},
      {"training.global_batch_tokens", {"global_batch_size"}},
  };
  return a;
}

void put(nlohmann::json& root, const std::string& dotted, const nlohmann::json& value) {
  nlohmann::json* at = &root;
  std::size_t start = 0;
  for (std::size_t dot = dotted.find('.'); dot != std::string::npos; dot = dotted.find('.', start)) {
    at = &(*at)[dotted.substr(start, dot - start)];
    start = dot + 1;
  }
  (*at)[dotted.substr(start)] = value;
}

}  // namespace

void ImportedSetup::set(const std::string& target, nlohmann::json value, const std::string& file, const std::string& key) {
  const auto [it, inserted] = facts_.try_emplace(target, ImportedFact{value, file, key});
  if (!inserted && it->second.value != value) {
    throw InputError(file, key, io::describe(value),
                     "the same " + target + " as " + where(it->second) + " (" + io::describe(it->second.value) +
                         "): the two disagree");
  }
}

void ImportedSetup::replace(const std::string& target, nlohmann::json value, const std::string& file, const std::string& key) {
  if (const auto it = facts_.find(target); it != facts_.end()) {
    if (it->second.value != value) note(file + " " + key + " replaces " + where(it->second) + " (" + io::describe(it->second.value) + ")");
    facts_.erase(it);
  }
  set(target, std::move(value), file, key);
}

void ImportedSetup::ignore(const std::string& file, const std::string& key, const std::string& why) {
  ignored_.push_back({file, key, why});
}

void ImportedSetup::set_world(std::optional<ImportedFact>& slot, const std::string& what, nlohmann::json value,
                              const std::string& file, const std::string& key) {
  if (slot && slot->value != value) {
    throw InputError(file, key, io::describe(value),
                     "the same " + what + " as " + where(*slot) + " (" + io::describe(slot->value) + "): the two disagree");
  }
  if (!slot) slot = ImportedFact{std::move(value), file, key};
}

void ImportedSetup::world_gpus(nlohmann::json value, const std::string& file, const std::string& key) {
  set_world(world_.gpus, "number of GPUs in the job", std::move(value), file, key);
}

void ImportedSetup::world_gpus_per_node(nlohmann::json value, const std::string& file, const std::string& key) {
  set_world(world_.gpus_per_node, "number of GPUs per node", std::move(value), file, key);
}

void ImportedSetup::batch_per_rank(nlohmann::json value, const std::string& file, const std::string& key) {
  set_world(batch_per_rank_, "batch per data-parallel rank", std::move(value), file, key);
}

void ImportedSetup::merge(const ImportedSetup& other) {
  for (const auto& [target, f] : other.facts_) set(target, f.value, f.file, f.key);
  if (other.world_.gpus) world_gpus(other.world_.gpus->value, other.world_.gpus->file, other.world_.gpus->key);
  if (other.world_.gpus_per_node) {
    const ImportedFact& g = *other.world_.gpus_per_node;
    world_gpus_per_node(g.value, g.file, g.key);
  }
  if (other.batch_per_rank_) batch_per_rank(other.batch_per_rank_->value, other.batch_per_rank_->file, other.batch_per_rank_->key);
  ignored_.insert(ignored_.end(), other.ignored_.begin(), other.ignored_.end());
  notes_.insert(notes_.end(), other.notes_.begin(), other.notes_.end());
  considered_.insert(considered_.end(), other.considered_.begin(), other.considered_.end());
  files_.insert(files_.end(), other.files_.begin(), other.files_.end());
}

void ImportedSetup::override_with(const ImportedSetup& winner) {
  for (const auto& [target, f] : winner.facts_) replace(target, f.value, f.file, f.key);
  for (const auto& [mine, theirs] : {std::pair{&world_.gpus, &winner.world_.gpus}, std::pair{&world_.gpus_per_node, &winner.world_.gpus_per_node},
                                     std::pair{&batch_per_rank_, &winner.batch_per_rank_}}) {
    if (!*theirs) continue;
    if (*mine && (*mine)->value != (*theirs)->value) note((*theirs)->file + " " + (*theirs)->key + " replaces " + where(**mine));
    *mine = *theirs;
  }
  ignored_.insert(ignored_.end(), winner.ignored_.begin(), winner.ignored_.end());
  notes_.insert(notes_.end(), winner.notes_.begin(), winner.notes_.end());
  considered_.insert(considered_.end(), winner.considered_.begin(), winner.considered_.end());
  files_.insert(files_.end(), winner.files_.begin(), winner.files_.end());
}

void ImportedSetup::retract(const std::string& target, const std::string& why) {
  const auto it = facts_.find(target);
  if (it == facts_.end()) return;
  ignore(it->second.file, it->second.key, why);
  facts_.erase(it);
}

const ImportedFact* ImportedSetup::fact(const std::string& target) const {
  const auto it = facts_.find(target);
  return it == facts_.end() ? nullptr : &it->second;
}

nlohmann::json ImportedSetup::scenario_patch(bool machine_known) const {
  nlohmann::json patch = nlohmann::json::object();
  for (const auto& [target, f] : facts_) {
    if (target.starts_with("config.")) continue;
    put(patch, target, f.value);
    if (const auto a = alternatives().find(target); a != alternatives().end()) {
      for (const std::string& other : a->second) {
        if (!has("training." + other)) patch["training"][other] = nullptr;  // merge patch: remove
      }
    }
  }
  // Full training has no adapters: a LoRA block the scenario has goes with its method (or with a
  // preference objective's adapter "full", which the importers set where a file names an objective and
  // no adapter). A supervised method takes the scenario's preference objective's adapter and settings
  // with it.
  const ImportedFact* m = fact("training.method");
  const ImportedFact* adapter = fact("training.adapter");
  const bool supervised = m != nullptr && m->value.is_string() && value_of(kMethodNames, m->value.get<std::string>()).has_value();
  if ((m != nullptr && m->value == "full") || (adapter != nullptr && adapter->value == "full")) patch["training"]["lora"] = nullptr;
  if (supervised) {
    patch["training"]["adapter"] = nullptr;
    patch["training"]["preference"] = nullptr;
  }
  // RL with rollouts states its sequences in training.rl: no seq_len, batch in tokens or preference
  // block of the scenario's stays; any other method drops the scenario's rl block.
  if (m != nullptr && m->value == "rl") {
    // A GRPO config's prompts a step follow from the global batch, known once the machine is: until
    // then one prompt a step and the global batch left to its default (the step's responses), read
    // again when the machine gives the batch (complete_global_batch).
    if (machine_known && !has("training.rl.prompts_per_step") && (batch_per_rank() || has("config.micro_batch")) &&
        !has("training.global_batch_size")) {
      patch["training"]["rl"]["prompts_per_step"] = 1;
      patch["training"]["global_batch_size"] = nullptr;
    }
    patch["training"]["seq_len"] = nullptr;
    patch["training"]["global_batch_tokens"] = nullptr;
    patch["training"]["preference"] = nullptr;
    patch["training"]["dataset_tokens"] = nullptr;
    patch["training"]["epochs"] = nullptr;
  } else if (m != nullptr) {
    patch["training"]["rl"] = nullptr;
  }
  return patch;
}

nlohmann::json ImportedSetup::config_object() const {
  nlohmann::json config = nlohmann::json::object();
  for (const auto& [target, f] : facts_) {
    if (target.starts_with("config.")) put(config, target.substr(7), f.value);
  }
  return config;
}

const ImportedFact* ImportedSetup::origin_of_scenario_path(const std::string& json_path) const {
  if (!json_path.starts_with("$.")) return nullptr;
  // "$.training.lora.targets[2]" is stated by the fact for training.lora.targets.
  std::string key = json_path.substr(2);
  if (const std::size_t bracket = key.find('['); bracket != std::string::npos) key.resize(bracket);
  // A refusal of a whole object ("$.config.parallelism") is stated by the facts inside it.
  if (const auto inside = facts_.lower_bound(key + "."); inside != facts_.end() && inside->first.starts_with(key + ".")) {
    return &inside->second;
  }
  for (;;) {
    if (const ImportedFact* f = fact(key)) return f;
    const std::size_t dot = key.rfind('.');
    if (dot == std::string::npos) return nullptr;
    key.resize(dot);
  }
}

void rethrow_at_origin(const InputError& error, const ImportedSetup& setup, const std::string& scenario_file,
                       const std::string& config_file, const std::string& config_path) {
  const ImportedFact* origin = nullptr;
  if (!config_file.empty() && error.file() == config_file && error.json_path().starts_with(config_path + ".")) {
    origin = setup.origin_of_scenario_path("$.config." + error.json_path().substr(config_path.size() + 1));
  }
  if (origin == nullptr && error.file() == scenario_file) origin = setup.origin_of_scenario_path(error.json_path());
  if (origin == nullptr) throw error;
  throw InputError(origin->file, origin->key, error.value(), error.allowed());
}

}  // namespace preflight
