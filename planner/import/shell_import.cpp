// A launch script: a Slurm sbatch file (#SBATCH lines), a Megatron-LM example (variables and arrays
// of flags), a SkyPilot `run:` section, a torchtitan run_train.sh. What it launches decides how its
// arguments are read: pretrain_gpt.py takes Megatron's, torchtitan's train its job config file and
// overrides, axolotl's CLI its YAML, any other Python script Hugging Face TrainingArguments.

#include <algorithm>
#include <filesystem>

#include "planner/import/foreign_document.hpp"
#include "planner/import/foreign_object.hpp"
#include "planner/import/importers.hpp"
#include "planner/import/shell_script.hpp"
#include "planner/io/input_file.hpp"

namespace preflight {

namespace fs = std::filesystem;

namespace {

using Words = std::vector<std::string>;

std::string base_name(const std::string& word) { return fs::path(word).filename().string(); }

// "--name=value" or "--name value" (value-taking unless listed as a flag), starting at words[i].
struct Option {
  std::string name;
  std::string value;
  bool has_value = false;
};

Option option_at(const Words& w, std::size_t& i, std::initializer_list<const char*> flags) {
  Option o;
  const std::string& word = w[i];
  const std::size_t eq = word.find('=');
  o.name = eq == std::string::npos ? word : word.substr(0, eq);
  if (eq != std::string::npos) {
    o.value = word.substr(eq + 1);
    o.has_value = true;
  } else if (std::none_of(flags.begin(), flags.end(), [&](const char* f) { return o.name == f; }) && i + 1 < w.size() &&
             !w[i + 1].starts_with("-") && !w[i + 1].ends_with(".py")) {  // a script is never an option's value
    o.value = w[++i];
    o.has_value = true;
  }
  ++i;
  std::replace(o.name.begin(), o.name.end(), '_', '-');  // torchrun takes both spellings
  return o;
}

// A script's arguments as an object: flag (dashes stripped) -> value, true for a bare flag, a list
// for several values; the last occurrence wins, as in argparse. Values the script left unset are
// reported and dropped.
nlohmann::json script_arguments(const Words& w, std::size_t from, bool keep_underscores) {
  nlohmann::json args = nlohmann::json::object();
  for (std::size_t i = from; i < w.size();) {
    if (!w[i].starts_with("--") || w[i].size() == 2) {
      ++i;  // a positional argument
      continue;
    }
    std::string name = w[i].substr(2);
    std::vector<std::string> values;
    if (const std::size_t eq = name.find('='); eq != std::string::npos) {
      values.push_back(name.substr(eq + 1));
      name.resize(eq);
    }
    for (++i; values.empty() && i < w.size() && !w[i].starts_with("--"); ++i) {
      values.push_back(w[i]);
      while (i + 1 < w.size() && !w[i + 1].starts_with("--")) values.push_back(w[++i]);
    }
    if (!keep_underscores) std::replace(name.begin(), name.end(), '_', '-');
    const bool unset = std::any_of(values.begin(), values.end(), [](const std::string& v) { return unresolved(v); });
    if (unset) {
      // Kept as null: the flag is there (a --vocab-file says which tokenizer), its value is not known
      // (reported, if no importer takes it, as not set in the script).
      args[name] = nullptr;
      continue;
    }
    if (values.empty()) {
      args[name] = true;
    } else if (values.size() == 1) {
      args[name] = values.front();
    } else {
      args[name] = values;
    }
  }
  return args;
}

struct Launcher {
  std::size_t script = 0;  // index of the script (or module) word
  bool module = false;     // python -m
};

void world_from(const Option& o, const std::string& per_node, const std::string& nodes, const std::string& file, ImportedSetup& setup) {
  if (o.name != per_node && o.name != nodes) return;
  if (!o.has_value || unresolved(o.value)) {
    if (o.has_value) setup.ignore(file, o.name, "its value " + o.value + " is not set in the script");
    return;
  }
  // torchrun's --nproc-per-node gpu (or auto): one process per GPU the node has.
  if (o.name == per_node && (o.value == "gpu" || o.value == "auto")) {
    setup.note(file + ": " + o.name + " " + o.value + ": one rank per GPU of the machine");
    return;
  }
  const std::int64_t n = integer_text(o.value, file, o.name, 1, 1'000'000);
  if (o.name == per_node) setup.world_gpus_per_node(n, file, o.name);
  if (o.name == nodes) setup.set("config.nodes", n, file, o.name);
}

// torchrun / python -m torch.distributed.run: its options, then the script.
std::optional<Launcher> torchrun(const Words& w, std::size_t i, const std::string& file, ImportedSetup& setup) {
  while (i < w.size() && w[i].starts_with("-")) {
    const Option o = option_at(w, i, {"--standalone", "--no-python", "--no_python", "--run-path", "--run_path", "-m", "--module",
                                      "--use-env", "--use_env"});
    if (o.name == "-m" || o.name == "--module") return Launcher{i, true};
    if (o.name == "--nnodes" && o.value.find(':') != std::string::npos) {
      // Elastic min:max: the job runs at the largest size it is allowed.
      Option max = o;
      max.value = o.value.substr(o.value.find(':') + 1);
      world_from(max, "--nproc-per-node", "--nnodes", file, setup);
      continue;
    }
    world_from(o, "--nproc-per-node", "--nnodes", file, setup);
  }
  if (i >= w.size()) return std::nullopt;
  return Launcher{i, false};
}

std::optional<Launcher> deepspeed_launcher(const Words& w, std::size_t i, const std::string& file, ImportedSetup& setup) {
  while (i < w.size() && w[i].starts_with("-")) {
    const Option o = option_at(w, i, {"--no-ssh-check", "--no_ssh_check", "--force-multi", "--force_multi", "--autotuning"});
    world_from(o, "--num-gpus", "--num-nodes", file, setup);
  }
  if (i >= w.size()) return std::nullopt;
  return Launcher{i, false};
}

// accelerate launch: its options as the config file's keys (accelerate/commands/launch.py), so one
// reader reads both; where both say something, the command line wins, as Accelerate lets it
// (_validate_launch_command fills in from the file only what the command line left unset).
std::optional<Launcher> accelerate_launch(const Words& w, std::size_t i, const std::string& file, ImportedSetup& setup,
                                          const ImportContext& context) {
  static const std::vector<std::string> kTop{"mixed-precision", "num-processes", "num-machines", "dynamo-backend"};
  static const std::vector<std::string> kDeepSpeed{"zero-stage", "offload-optimizer-device", "offload-param-device",
                                                   "gradient-accumulation-steps", "zero3-init-flag", "deepspeed-config-file"};
  ImportedSetup from_file;
  nlohmann::json cli = nlohmann::json::object();
  std::optional<Launcher> l;
  while (i < w.size() && w[i].starts_with("-")) {
    const Option o = option_at(w, i, {"--multi-gpu", "--use-deepspeed", "--use-fsdp", "--use-megatron-lm", "-m", "--module", "--cpu",
                                      "--no-python", "--debug", "--quiet", "-q", "--same-network", "--enable-cpu-affinity",
                                      "--dynamo-use-fullgraph", "--dynamo-use-dynamic", "--downcast-bf16", "--tpu", "--ipex",
                                      "--use-xpu"});
    if (o.name == "-m" || o.name == "--module") {
      l = Launcher{i, true};
      break;
    }
    const std::size_t start = o.name.find_first_not_of('-');
    if (start == std::string::npos) {
      // A word of dashes alone ("-", "--"): no option of accelerate's; what follows is the script.
      setup.ignore(file, o.name, "not an accelerate launch option");
      continue;
    }
    const std::string name = o.name.substr(start);
    if (o.has_value && unresolved(o.value)) {
      setup.ignore(file, o.name, "its value " + o.value + " is not set in the script");
      continue;
    }
    std::string config_key = name;
    std::replace(config_key.begin(), config_key.end(), '-', '_');
    if (name == "config-file") {
      from_file.merge(import_reference(o.value, file, o.name, context, "Accelerate config"));
    } else if (name == "use-fsdp") {
      cli["distributed_type"] = "FSDP";
    } else if (name == "use-deepspeed") {
      cli["distributed_type"] = "DEEPSPEED";
    } else if (name == "multi-gpu") {
      cli["distributed_type"] = "MULTI_GPU";
    } else if (name == "use-megatron-lm") {
      cli["distributed_type"] = "MEGATRON_LM";
    } else if (name == "cpu") {
      cli["use_cpu"] = true;
    } else if (std::find(kTop.begin(), kTop.end(), name) != kTop.end() && o.has_value) {
      cli[config_key] = o.value;
    } else if (std::find(kDeepSpeed.begin(), kDeepSpeed.end(), name) != kDeepSpeed.end() && o.has_value) {
      cli["deepspeed_config"][config_key] = o.value;
    } else if (name.starts_with("fsdp-") && o.has_value) {
      cli["fsdp_config"][config_key] = o.value;
    } else {
      setup.ignore(file, o.name, "where and how the processes start: no effect on memory or step time");
    }
  }
  if (!cli.empty()) {
    ImportedSetup given;
    import_accelerate(cli, file, given, context);
    from_file.override_with(given);
  }
  setup.merge(from_file);
  if (l) return l;
  if (i >= w.size()) return std::nullopt;
  return Launcher{i, false};
}

// torchtitan's trainer: --job.config_file names the TOML, other --section.key flags override it.
void torchtitan_run(const Words& w, std::size_t from, const std::string& file, ImportedSetup& setup, const ImportContext& context) {
  const nlohmann::json args = script_arguments(w, from, true);
  std::string config;
  for (const char* key : {"job.config_file", "job.config-file"}) {
    if (args.contains(key) && args[key].is_string()) config = args[key].get<std::string>();
  }
  if (config.empty()) {
    setup.ignore(file, "torchtitan.train", "no --job.config_file: the job config comes from the scenario");
    return;
  }
  // Read the TOML, apply the overrides, then read it as one job config.
  const ReferencedFile toml = read_reference(config, file, "--job.config_file", context);
  if (toml.given) {
    std::string overrides;
    for (const auto& [key, value] : args.items()) {
      if (key.find('.') != std::string::npos && !key.starts_with("job.")) overrides += (overrides.empty() ? "--" : ", --") + key;
    }
    if (!overrides.empty()) {
      setup.note(file + ": " + overrides + " on the torchtitan command line not applied to " + toml.name + ", read as its own --from");
    }
    return;
  }
  ImportContext inner = context;
  ++inner.depth;
  nlohmann::json doc = toml_document(toml.text, toml.name);  // torchtitan takes TOML whatever the name
  for (const auto& [key, value] : args.items()) {
    const std::size_t dot = key.find('.');
    if (dot == std::string::npos || key.starts_with("job.")) continue;
    nlohmann::json typed = value;
    if (value.is_string()) {
      const std::string& s = value.get_ref<const std::string&>();
      const nlohmann::json parsed = nlohmann::json::parse(s, nullptr, false);
      if (!parsed.is_discarded() && (parsed.is_number() || parsed.is_boolean())) typed = parsed;
      if (s == "True" || s == "False") typed = s == "True";
    }
    doc[key.substr(0, dot)][key.substr(dot + 1)] = typed;
    setup.note(file + ": --" + key + " overrides " + toml.name);
  }
  setup.read(toml.name, "torchtitan job config");
  import_torchtitan(doc, toml.name, setup, inner);
}

// Python's own options before the script or module (python -u -m torch.distributed.run ...).
std::size_t after_python_options(const Words& w, std::size_t i) {
  while (i < w.size() && w[i].starts_with("-") && w[i] != "-m" && w[i] != "-c") {
    i += (w[i] == "-W" || w[i] == "-X") ? 2 : 1;
  }
  return i;
}

// The keys a Hugging Face training script takes: a plain `python script.py` with none of them is a
// tool (data preparation, a download), not the training launch.
bool trains(const Words& w, std::size_t from) {
  static const std::vector<std::string> kKeys{"per_device_train_batch_size", "gradient_accumulation_steps", "deepspeed", "fsdp",
                                              "max_steps", "num_train_epochs", "per-device-train-batch-size", "micro-batch-size"};
  for (std::size_t i = from; i < w.size(); ++i) {
    std::string key = w[i].substr(0, w[i].find('='));
    if (!key.starts_with("--")) continue;
    key.erase(0, 2);
    if (std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end()) return true;
  }
  return false;
}

// Reads what the script runs into `setup`; false (and nothing read) when the command launches no
// training.
bool launch(const Words& w, const std::string& file, ImportedSetup& setup, const ImportContext& context);

// A string that is itself a script: bash -c "...", eval ...
bool launch_script(const std::string& text, const std::string& file, ImportedSetup& setup, const ImportContext& context) {
  if (context.depth >= kMaxReferenceDepth) return false;
  ImportContext inner = context;
  ++inner.depth;
  ImportedSetup probe;
  const bool found = import_shell(text, file, probe, inner);
  if (found) setup.merge(probe);
  return found;
}

bool launch(const Words& w, const std::string& file, ImportedSetup& setup, const ImportContext& context) {
  // The launcher is the command, or follows a wrapper (srun and its options, env, exec, ...).
  static const std::vector<std::string> kWrappers{"srun", "exec", "env", "time", "nohup", "numactl", "stdbuf", "mpirun", "uv"};
  const auto is_launcher = [&](const std::string& word) {
    const std::string b = base_name(word);
    return b == "torchrun" || b.starts_with("python") || b == "deepspeed" || b == "accelerate" || b == "axolotl" || b == "bash" ||
           b == "sh" || b == "llamafactory-cli" || b == "eval";
  };
  if (w.empty()) return false;
  std::size_t i = 0;
  const bool srun = base_name(w[0]) == "srun";
  if (std::find(kWrappers.begin(), kWrappers.end(), base_name(w[0])) != kWrappers.end()) {
    while (i < w.size() && !is_launcher(w[i])) ++i;
  }
  if (i >= w.size() || !is_launcher(w[i])) return false;
  const std::string cmd = base_name(w[i]);
  // What the launcher says (world size) counts only if a training script follows.
  ImportedSetup launched;
  std::optional<Launcher> l;
  bool distributed = true;  // started by a distributed launcher: whatever script it runs trains
  if (cmd == "torchrun") {
    l = torchrun(w, i + 1, file, launched);
  } else if (cmd.starts_with("python")) {
    const std::size_t at = after_python_options(w, i + 1);
    if (at + 1 < w.size() && w[at] == "-m" && (w[at + 1] == "torch.distributed.run" || w[at + 1] == "torch.distributed.launch")) {
      l = torchrun(w, at + 2, file, launched);
    } else if (at + 1 < w.size() && w[at] == "-m") {
      l = Launcher{at + 1, true};
      distributed = false;
    } else if (at < w.size() && w[at] != "-c") {
      l = Launcher{at, false};
      distributed = false;
    }
    // srun starting one Python process per task: the tasks of a node are its ranks.
    if (const auto tasks = context.environment.find("SLURM_NTASKS_PER_NODE"); l && !distributed && srun && tasks != context.environment.end()) {
      world_from(Option{"--ntasks-per-node", tasks->second, true}, "--ntasks-per-node", "", file, launched);
    }
  } else if (cmd == "deepspeed") {
    l = deepspeed_launcher(w, i + 1, file, launched);
  } else if (cmd == "accelerate" && i + 1 < w.size() && w[i + 1] == "launch") {
    l = accelerate_launch(w, i + 2, file, launched, context);
  } else if ((cmd == "bash" || cmd == "sh") && i + 2 < w.size() && w[i + 1] == "-c") {
    return launch_script(w[i + 2], file, setup, context);  // bash -c "$LAUNCHER $CMD"
  } else if (cmd == "eval" && i + 1 < w.size()) {
    std::string text;
    for (std::size_t k = i + 1; k < w.size(); ++k) text += (text.empty() ? "" : " ") + w[k];
    return launch_script(text, file, setup, context);
  } else if ((cmd == "axolotl" || cmd == "llamafactory-cli") && i + 2 < w.size() && w[i + 1] == "train") {
    setup.merge(import_reference(w[i + 2], file, cmd + " train", context));
    return true;
  } else {
    return false;
  }
  if (!l || l->script >= w.size()) return false;
  const std::string script = l->module ? w[l->script] : base_name(w[l->script]);
  const std::size_t args = l->script + 1;
  if (script == "torchtitan.train" || (script == "train.py" && w[l->script].find("torchtitan") != std::string::npos)) {
    torchtitan_run(w, args, file, launched, context);
  } else if (script.starts_with("axolotl.cli.train")) {
    if (args < w.size()) launched.merge(import_reference(w[args], file, script, context));
  } else if (script.starts_with("pretrain_")) {
    if (script != "pretrain_gpt.py") {
      throw InputError(file, w[l->script], "\"" + script + "\"",
                       "pretrain_gpt.py (decoder-only transformers; BERT, T5 and Mamba are not supported)");
    }
    import_megatron_args(script_arguments(w, args, false), file, launched, context);
  } else if ((script.ends_with(".py") && (distributed || trains(w, args))) || (l->module && distributed)) {
    import_training_args(script_arguments(w, args, true), file, "--", launched, context);
  } else {
    return false;
  }
  setup.merge(launched);
  return true;
}

// #SBATCH --nodes, --gpus-per-node (or --gres=gpu:N, --ntasks-per-node for one rank per GPU).
void sbatch(const std::string& text, const std::string& file, ImportedSetup& setup, ImportContext& context) {
  const Words d = sbatch_directives(text);
  for (std::size_t i = 0; i < d.size();) {
    if (!d[i].starts_with("-")) {
      ++i;
      continue;
    }
    const Option o = option_at(d, i, {"--requeue", "--no-requeue", "--exclusive", "--overcommit", "--contiguous", "-O"});
    const std::string key = "#SBATCH " + o.name;
    const auto count = [&](const std::string& v) {
      try {
        return integer_text(v, file, key, 1, 1'000'000);
      } catch (const InputError&) {
        throw InputError(file, key, "\"" + o.value + "\"", "a count (node ranges and GPU types without a count are not modelled)");
      }
    };
    if (o.name == "--nodes" || o.name == "-N") {
      const std::int64_t n = count(o.value);
      setup.set("config.nodes", n, file, key);
      context.environment["SLURM_NNODES"] = context.environment["SLURM_JOB_NUM_NODES"] = std::to_string(n);
    } else if (o.name == "--gpus-per-node" || o.name == "--gres") {
      // --gpus-per-node=h100:8, --gres=gpu:8, --gres=gpu:a100:8
      std::string v = o.value;
      if (o.name == "--gres" && !v.starts_with("gpu")) continue;
      const std::string n = v.substr(v.find_last_of(':') == std::string::npos ? 0 : v.find_last_of(':') + 1);
      const std::int64_t g = count(n);
      setup.world_gpus_per_node(g, file, key);
      context.environment["SLURM_GPUS_PER_NODE"] = context.environment["SLURM_GPUS_ON_NODE"] = std::to_string(g);
      const std::string typed = o.name == "--gres" ? v.substr(v.find(':') == std::string::npos ? v.size() : v.find(':') + 1) : v;
      if (const std::size_t colon = typed.find(':'); colon != std::string::npos) {
        setup.note(file + ": " + key + " asks for " + typed.substr(0, colon) + " GPUs: the machine (and its GPU) is the config's or the scenario's");
      }
    } else if (o.name == "--gpus" || o.name == "-G") {
      const std::string v = o.value.substr(o.value.find_last_of(':') == std::string::npos ? 0 : o.value.find_last_of(':') + 1);
      setup.world_gpus(count(v), file, key);
    } else if (o.name == "--comment" && o.value.starts_with("preflight:")) {
      // What preflight's own export writes: the machine the script was made for.
      setup.set("config.instance", o.value.substr(10), file, key);
    } else if (o.name == "--ntasks-per-node") {
      context.environment["SLURM_NTASKS_PER_NODE"] = o.value;
    } else {
      setup.ignore(file, key, "the scheduler's settings (time, partition, output, requeue): no effect on memory or step time");
    }
  }
}

}  // namespace

bool import_shell(const std::string& text, const std::string& file, ImportedSetup& setup, const ImportContext& outer) {
  ImportContext context = outer;
  sbatch(text, file, setup, context);
  const ShellScript script = parse_shell(text, file, context.environment);
  for (const auto& [name, body] : script.heredocs) context.inline_files[name] = body;
  const bool branches = std::any_of(script.commands.begin(), script.commands.end(), [](const ShellCommand& c) {
    return !c.words.empty() && (c.words[0] == "if" || c.words[0] == "elif" || c.words[0] == "else" || c.words[0] == "case");
  });
  if (branches) {
    setup.note(file + ": the script branches (if, case): preflight follows none, so a variable set in several branches "
               "is read as the last one sets it; check the values above");
  }
  bool launched = false;
  for (const ShellCommand& c : script.commands) {
    if (launched) {
      ImportedSetup probe;
      bool another = false;
      try {
        another = launch(c.words, file, probe, context);
      } catch (const InputError&) {
        another = true;  // a launch all the same, only not a readable one
      }
      if (another) setup.ignore(file, "line " + std::to_string(c.line), "a second launch in the script: only the first is read");
      continue;
    }
    launched = launch(c.words, file, setup, context);
  }
  if (!launched) setup.note(file + ": no training launch found (torchrun, python, deepspeed, accelerate launch, axolotl)");
  return launched;
}

}  // namespace preflight
