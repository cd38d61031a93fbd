#include <string>

#include "planner/export/export_plan.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

// Accelerate's own launcher for FSDP: its config file carries the FSDP settings, the command line
// the machine's rank and node 0.
std::string accelerate_launch(const ExportPlan& p, const Rendezvous& r, const std::string& machine_rank) {
  const StrategyConfig& c = p.config;
  std::string s = "accelerate launch --config_file accelerate_config.yaml --num_machines " + std::to_string(c.nodes) +
                  " --num_processes " + std::to_string(c.nodes * p.node->gpus_per_node);
  if (c.nodes > 1) {
    const std::string endpoint = r.endpoint.substr(0, r.endpoint.rfind(':')) + "\"";
    s += " --machine_rank " + machine_rank + " --main_process_ip " + endpoint + " --main_process_port 29500";
  }
  return s + " \\\n";
}

}  // namespace

LaunchBody launch_body(const ExportPlan& p, const Rendezvous& r, const std::string& machine_rank, const std::string& checkpoint_dir) {
  const StrategyConfig& c = p.config;
  const int gpn = p.node->gpus_per_node;
  LaunchBody body;
  switch (c.framework) {
    case Framework::megatron:
      body.command = torchrun_launcher(c.nodes, gpn, r) + megatron_arguments(p);
      return body;
    case Framework::torchtitan:
      body.files.emplace_back("job.toml", torchtitan_config_toml(p));
      body.command = torchrun_launcher(c.nodes, gpn, r) + "  -m torchtitan.train --job.config_file job.toml --checkpoint.folder " +
                     checkpoint_dir + "\n";
      return body;
    case Framework::llm_foundry:
      throw InvalidConfig("framework", "an llm-foundry config is launched with Composer: export llm-foundry for its YAML");
    case Framework::unsloth:
      throw InvalidConfig("framework", "an Unsloth job is a Python script (FastLanguageModel with a TRL trainer), not a launcher "
                                       "file preflight writes; export a transformers config instead");
    case Framework::transformers: break;
  }
  switch (sharding_scheme(c.sharding).engine) {
    case Engine::deepspeed:
      body.files.emplace_back(kDeepSpeedConfigFile, deepspeed_config_json(p));
      body.command = torchrun_launcher(c.nodes, gpn, r) + trainer_arguments(p, checkpoint_dir);
      break;
    case Engine::fsdp:
      body.files.emplace_back("accelerate_config.yaml", accelerate_config_yaml(p));
      body.command = accelerate_launch(p, r, machine_rank) + trainer_arguments(p, checkpoint_dir);
      break;
    case Engine::pytorch_ddp:
      body.command = torchrun_launcher(c.nodes, gpn, r) + trainer_arguments(p, checkpoint_dir);
      break;
  }
  return body;
}

}  // namespace preflight
