#pragma once
// What a user's own training files (`--from`: a DeepSpeed config, an Accelerate or axolotl YAML, a
// torchtitan TOML, a Megatron or Slurm launch, ...) say about the job, in preflight's terms: each fact
// is a key of the scenario ("training.seq_len", "model") or of the config ("config.micro_batch")
// with the file and key that state it, so a value preflight refuses is reported where the user wrote
// it. What a file says that preflight does not model is kept as an ignored key with the reason,
// never dropped in silence. Two files (or two keys of one) that disagree are an InputError naming both.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/spec/errors.hpp"

namespace preflight {

struct ImportedFact {
  nlohmann::json value;
  std::string file;
  std::string key;  // as the file writes it: "zero_optimization.stage", "--micro-batch-size"
};

struct IgnoredKey {
  std::string file;
  std::string key;
  std::string why;
};

struct ReadFile {
  std::string file;
  std::string format;  // "DeepSpeed config", "Accelerate config", ...
};

// The machine's size as a launcher states it, before the machine is known: resolved into the
// config's node count once its GPUs per node are (world GPUs / GPUs per node).
struct WorldSize {
  std::optional<ImportedFact> gpus;           // every rank of the job
  std::optional<ImportedFact> gpus_per_node;  // ranks a node launches
};

class ImportedSetup {
 public:
  // Records `target` = `value` from `file`'s `key`. The same target stated twice with different
  // values (by two files or two keys) is an InputError naming both.
  void set(const std::string& target, nlohmann::json value, const std::string& file, const std::string& key);
  // The same, replacing what a file said (a command-line option over the files), with a note.
  void replace(const std::string& target, nlohmann::json value, const std::string& file, const std::string& key);
  void ignore(const std::string& file, const std::string& key, const std::string& why);
  // Takes back what `target` was set to, the key it came from ignored with `why` (a fact another
  // file's makes untrue).
  void retract(const std::string& target, const std::string& why);
  void note(const std::string& text) { notes_.push_back(text); }
  // A GRPO config's steps_per_generation: its step's responses are this many optimizer steps' batches
  // (over gradient_accumulation_steps); empty: one generation per optimizer step.
  std::optional<std::int64_t> rl_generation_steps;
  // A key an importer read, whether or not it set anything ("auto", a switch left off): with the
  // facts and the ignored keys, every key of a file is accounted for.
  void considered(const std::string& file, const std::string& key) { considered_.push_back(file + ": " + key); }
  const std::vector<std::string>& considered() const { return considered_; }
  void read(const std::string& file, const std::string& format) { files_.push_back({file, format}); }
  void world_gpus(nlohmann::json value, const std::string& file, const std::string& key);
  void world_gpus_per_node(nlohmann::json value, const std::string& file, const std::string& key);
  // A batch per data-parallel rank without accumulation (torchtitan's local_batch_size with no
  // global one): the global batch is it times the ranks, known once the machine and nodes are.
  void batch_per_rank(nlohmann::json value, const std::string& file, const std::string& key);
  const std::optional<ImportedFact>& batch_per_rank() const { return batch_per_rank_; }

  // Another file's facts, ignored keys and notes, checked against these.
  void merge(const ImportedSetup& other);
  // The same, but where both say something `winner`'s value stands (a command line over the config
  // file it names), with a note.
  void override_with(const ImportedSetup& winner);

  const ImportedFact* fact(const std::string& target) const;
  bool has(const std::string& target) const { return fact(target) != nullptr; }
  const std::map<std::string, ImportedFact>& facts() const { return facts_; }
  const std::vector<IgnoredKey>& ignored() const { return ignored_; }
  const std::vector<std::string>& notes() const { return notes_; }
  const std::vector<ReadFile>& files() const { return files_; }
  const WorldSize& world() const { return world_; }
  bool empty() const { return files_.empty(); }

  // The scenario keys as a JSON merge patch (RFC 7386) of the scenario document: values set, and the
  // alternatives they replace removed (a batch in sequences removes one in tokens).
  // `machine_known`: the batch terms will be completed on a config's machine (check, simulate), so a
  // GRPO config's prompts a step may wait for it; a plan's search has no one machine.
  nlohmann::json scenario_patch(bool machine_known = true) const;
  // The config keys as a (partial) config object.
  nlohmann::json config_object() const;

  // The fact behind a scenario path ("$.training.seq_len") or a config key ("config.micro_batch"),
  // if a file states it.
  const ImportedFact* origin_of_scenario_path(const std::string& json_path) const;

 private:
  void set_world(std::optional<ImportedFact>& slot, const std::string& what, nlohmann::json value,
                 const std::string& file, const std::string& key);

  std::map<std::string, ImportedFact> facts_;
  std::vector<IgnoredKey> ignored_;
  std::vector<std::string> notes_;
  std::vector<std::string> considered_;
  std::vector<ReadFile> files_;
  WorldSize world_;
  std::optional<ImportedFact> batch_per_rank_;
};

// An InputError raised while reading the patched scenario or the imported config, moved to the file
// and key the offending value came from (unchanged when no imported fact is behind it).
[[noreturn]] void rethrow_at_origin(const InputError& error, const ImportedSetup& setup, const std::string& scenario_file,
                                    const std::string& config_file, const std::string& config_path);

}  // namespace preflight
