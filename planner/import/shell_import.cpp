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
             !w[i + 1].starts_with("-")) {
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
  const std::int64_t n = integer_text(o.value, file, o.name, 1, 1'000'000);
  if (o.name == per_node) setup.world_gpus_per_node(n, file, o.name);
  if (o.name == nodes) setup.set("config.nodes", n, file, o.name);
}

// torchrun / python -m torch.distributed.run: its options, then the script.
std::optional<Launcher> torchrun(const Words& w, std::size_t i, const std::string& file, ImportedSetup& setup) {
  while (i < w.size() && w[i].starts_with("-")) {
    const Option o = option_at(w, i, {"--standalone", "--no-python", "--no_python", "--run-path", "--run_path", "-m", "--module"});
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

std::optional<Launcher> accelerate_launch(const Words& w, std::size_t i, const std::string& file, ImportedSetup& setup,
                                          const ImportContext& context) {
  while (i < w.size() && w[i].starts_with("-")) {
    const Option o = option_at(w, i, {"--multi-gpu", "--multi_gpu", "--use-deepspeed", "--use_deepspeed", "--use-fsdp", "--use_fsdp",
                                      "-m", "--module", "--cpu", "--no-python", "--no_python"});
    if (o.name == "-m" || o.name == "--module") return Launcher{i, true};
    if (o.name == "--config-file" && o.has_value) setup.merge(import_reference(o.value, file, o.name, context));
    if (o.name == "--deepspeed-config-file" && o.has_value) setup.merge(import_reference(o.value, file, o.name, context));
    if (o.name == "--num-processes" && o.has_value && !unresolved(o.value)) {
      setup.world_gpus(integer_text(o.value, file, o.name, 1, 10'000'000), file, o.name);
    }
    if (o.name == "--num-machines") world_from(o, "", "--num-machines", file, setup);
    if (!o.has_value || unresolved(o.value)) continue;
    if (o.name == "--gradient-accumulation-steps") {
      setup.set("config.grad_accum", integer_text(o.value, file, o.name, 1, 1'000'000), file, o.name);
    } else if (o.name == "--mixed-precision") {
      static const std::map<std::string, std::string> kPrecision{{"no", "fp32"}, {"fp16", "fp16"}, {"bf16", "bf16"}, {"fp8", "fp8"}};
      const auto it = kPrecision.find(o.value);
      if (it == kPrecision.end()) throw InputError(file, o.name, "\"" + o.value + "\"", "no, fp16, bf16 or fp8");
      setup.set("training.precision", it->second, file, o.name);
    } else if (o.name == "--zero-stage") {
      static const char* const kSharding[] = {"ddp", "zero1", "zero2", "zero3"};
      setup.set("config.sharding", kSharding[integer_text(o.value, file, o.name, 0, 3)], file, o.name);
    }
  }
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
    if (!args.empty()) setup.note(file + ": the overrides of the torchtitan command line are not applied to " + toml.name + ", given as its own --from");
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

// Reads what the script runs; false when the command launches no training.
bool launch(const Words& w, const std::string& file, ImportedSetup& setup, const ImportContext& context) {
  // The launcher is the command, or follows a wrapper (srun and its options, env, exec, ...).
  static const std::vector<std::string> kWrappers{"srun", "exec", "env", "time", "nohup", "numactl", "stdbuf", "mpirun", "uv"};
  const auto is_launcher = [&](const std::string& word) {
    const std::string b = base_name(word);
    return b == "torchrun" || b.starts_with("python") || b == "deepspeed" || b == "accelerate" || b == "axolotl" || b == "bash" || b == "sh";
  };
  if (w.empty()) return false;
  std::size_t i = 0;
  const bool srun = base_name(w[0]) == "srun";
  if (std::find(kWrappers.begin(), kWrappers.end(), base_name(w[0])) != kWrappers.end()) {
    while (i < w.size() && !is_launcher(w[i])) ++i;
  }
  if (i >= w.size() || !is_launcher(w[i])) return false;
  const std::string cmd = base_name(w[i]);
  std::optional<Launcher> l;
  if (cmd == "torchrun") {
    l = torchrun(w, i + 1, file, setup);
  } else if (cmd.starts_with("python")) {
    if (i + 2 < w.size() && w[i + 1] == "-m" && (w[i + 2] == "torch.distributed.run" || w[i + 2] == "torch.distributed.launch")) {
      l = torchrun(w, i + 3, file, setup);
    } else if (i + 1 < w.size() && w[i + 1] == "-m") {
      l = Launcher{i + 2, true};
    } else {
      l = Launcher{i + 1, false};
    }
    // srun starting one Python process per task: the tasks of a node are its ranks.
    if (const auto tasks = context.environment.find("SLURM_NTASKS_PER_NODE"); srun && tasks != context.environment.end()) {
      world_from(Option{"--ntasks-per-node", tasks->second, true}, "--ntasks-per-node", "", file, setup);
    }
  } else if (cmd == "deepspeed") {
    l = deepspeed_launcher(w, i + 1, file, setup);
  } else if (cmd == "accelerate" && i + 1 < w.size() && w[i + 1] == "launch") {
    l = accelerate_launch(w, i + 2, file, setup, context);
  } else if ((cmd == "bash" || cmd == "sh") && i + 2 < w.size() && w[i + 1] == "-c") {
    // bash -c "$LAUNCHER $CMD": the string is itself a script.
    if (context.depth >= 4) return false;
    ImportContext inner = context;
    ++inner.depth;
    ImportedSetup probe;
    import_shell(w[i + 2], file, probe, inner);
    const bool found = std::none_of(probe.notes().begin(), probe.notes().end(),
                                    [](const std::string& n) { return n.find("no training launch found") != std::string::npos; });
    if (found) setup.merge(probe);
    return found;
  } else if (cmd == "axolotl" && i + 2 < w.size() && w[i + 1] == "train") {
    setup.merge(import_reference(w[i + 2], file, "axolotl train", context));
    return true;
  } else {
    return false;
  }
  if (!l || l->script >= w.size()) return false;
  const std::string script = l->module ? w[l->script] : base_name(w[l->script]);
  const std::size_t args = l->script + 1;
  if (script == "torchtitan.train" || (script == "train.py" && w[l->script].find("torchtitan") != std::string::npos)) {
    torchtitan_run(w, args, file, setup, context);
  } else if (script.starts_with("axolotl.cli.train")) {
    if (args < w.size()) setup.merge(import_reference(w[args], file, script, context));
  } else if (script.starts_with("pretrain_")) {
    if (script != "pretrain_gpt.py") {
      throw InputError(file, w[l->script], "\"" + script + "\"",
                       "pretrain_gpt.py (decoder-only transformers; BERT, T5 and Mamba are not supported)");
    }
    import_megatron_args(script_arguments(w, args, false), file, setup, context);
  } else if (script.ends_with(".py") || l->module) {
    import_training_args(script_arguments(w, args, true), file, "--", setup, context);
  } else {
    return false;
  }
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
    } else if (o.name == "--ntasks-per-node") {
      context.environment["SLURM_NTASKS_PER_NODE"] = o.value;
    } else {
      setup.ignore(file, key, "the scheduler's settings (time, partition, output, requeue): no effect on memory or step time");
    }
  }
}

}  // namespace

void import_shell(const std::string& text, const std::string& file, ImportedSetup& setup, const ImportContext& outer) {
  ImportContext context = outer;
  sbatch(text, file, setup, context);
  const ShellScript script = parse_shell(text, file, context.environment);
  for (const auto& [name, body] : script.heredocs) context.inline_files[name] = body;
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
}

}  // namespace preflight
