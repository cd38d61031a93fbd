#pragma once
// What every importer shares: the catalog (models by Hub id, machines by accelerator), how deep in
// files referring to files it is, and what a launch script provides its commands (files it writes
// with heredocs, variables its scheduler sets).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/import/imported_setup.hpp"

namespace preflight {

// A file referring to a file referring to a file is as deep as real setups go (an axolotl YAML
// naming a DeepSpeed JSON, a script running bash -c); past that it is a loop.
inline constexpr int kMaxReferenceDepth = 4;

struct ImportContext {
  const Catalog* catalog = nullptr;
  int depth = 0;                                     // references followed to get here (< kMaxReferenceDepth)
  std::map<std::string, std::string> inline_files;   // written by the launch script (cat > f <<EOF), by name
  std::map<std::string, std::string> environment;    // set by the scheduler (SLURM_NNODES, SKYPILOT_NUM_NODES)
  std::vector<std::string> given;                    // every --from file: a reference to one of them is read once
};

struct ReferencedFile {
  std::string text;
  std::string name;      // for messages: the path, or "launch.sh (ds_config.json)" for a heredoc
  bool given = false;    // the file is one of the --from files (same name): read as that, not twice
  std::string file_name;  // the name its format is told from (a heredoc's target)
};

// The file named by `key` of `file`: one the launch script writes, else one given with --from under
// the same name, else relative to `file`'s folder, else as given. InputError naming the key when none is readable.
ReferencedFile read_reference(const std::string& name, const std::string& file, const std::string& key, const ImportContext& context);

// A file named by `key` of `file` (a DeepSpeed JSON an Accelerate config points at), read as the
// format its contents show, which must be `expected` when one is given ("DeepSpeed config"): a file
// the launch script writes, else relative to `file`'s folder, else as given. A file naming itself is
// an InputError.
ImportedSetup import_reference(const std::string& name, const std::string& file, const std::string& key, const ImportContext& context,
                               const std::string& expected = "");

// The model a file names, as the scenario's "model": a catalog id, the Hugging Face Hub id of a
// catalog model (its instruction-tuned variants share its architecture), or a local folder with
// a config.json (or the config.json itself). InputError naming the key otherwise.
void set_model(ImportedSetup& setup, const std::string& name, const std::string& file, const std::string& key,
               const ImportContext& context);

// The catalog model a Hub id names, if any.
std::optional<std::string> catalog_model_for_hub_id(const Catalog& catalog, const std::string& hub_id);

// The optimizer a Hugging Face `optim` (or axolotl `optimizer`, a torchtune component) name amounts
// to in memory: a training.optimizer name; empty when preflight does not model it.
std::optional<std::string> optimizer_for(const std::string& name);

// training.optimizer from the optimizer `name` a file's `key` gives, or the key reported as not
// modelled (the scenario's optimizer is used).
void set_optimizer(ImportedSetup& setup, const std::string& name, const std::string& file, const std::string& key);

}  // namespace preflight
