#include <algorithm>
#include <string>

#include "planner/catalog/torchtitan_flavors.hpp"
#include "planner/export/export_plan.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string quoted(const std::string& s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// The layers per stage that give pp x interleave stages: ceil((layers + 2) / n) of them.
std::int64_t torchtitan_layers_per_stage(const ExportPlan& p) {
  const Parallelism& par = p.config.parallelism;
  const std::int64_t weighted = p.scenario->model().layers + 2, stages = static_cast<std::int64_t>(par.pp) * par.interleave;
  for (std::int64_t n = 1; n <= weighted; ++n) {
    if ((weighted + n - 1) / n == stages) return n;
  }
  throw InvalidConfig("parallelism.interleave", "torchtitan splits the " + std::to_string(weighted - 2) +
                                                    " layers and its embedding and output into stages of equal layers: no stage size gives pp x " +
                                                    std::to_string(par.interleave) + " = " + std::to_string(stages) +
                                                    " stages (interleave 2 runs as torchtitan's default)");
}

// FSDP2's reshard_after_forward: ZeRO-2-like sharding keeps the gathered parameters until backward.
std::string reshard_after_forward(Sharding s) { return s == Sharding::fsdp_grad_op ? "never" : "default"; }

}  // namespace

// A torchtitan job config (TOML, torchtitan/config/job_config.py) with the layout preflight simulated:
// FSDP2 sharding (and its replicas for HSDP or DDP), tensor and pipeline degrees, activation
// checkpointing, batch sizes, steps, checkpoint interval, torch.compile and float8. The model
// flavor stays the user's: torchtitan defines its own (llama3 "8B", "70B", ...).
std::string torchtitan_config_toml(const ExportPlan& p) {
  const StrategyConfig& c = p.config;
  const TrainingJob& t = p.scenario->training();
  const Parallelism& par = c.parallelism;
  if (t.method != Method::full) {
    throw InvalidConfig("method", "torchtitan trains full weights; export LoRA/QLoRA configs with deepspeed, accelerate or torchrun");
  }
  if (t.precision == Precision::fp16) throw InvalidConfig("precision", "torchtitan trains in bf16 (or float8), not fp16");
  const int gpus = c.nodes * p.node->gpus_per_node;
  const std::int64_t dp = data_parallel_degree(par, gpus);
  // DDP replicates over every data-parallel rank; HSDP shards inside a node and replicates across nodes.
  // torchtitan's FSDP mesh takes the context-parallel ranks beside data_parallel_shard_degree.
  std::int64_t shard = dp;
  if (c.sharding == Sharding::ddp) shard = 1;
  if (c.sharding == Sharding::fsdp_hybrid) {
    shard = std::max<std::int64_t>(1, std::min<std::int64_t>(dp, p.node->gpus_per_node / (par.tp * par.pp * par.cp)));
  }
  const std::int64_t replicate = dp / shard;
  const bool offload = c.offload.optimizer != OffloadTarget::none || c.offload.params != OffloadTarget::none;

  std::string s = "# torchtitan job config for " + p.scenario->name + ": " + std::to_string(c.nodes) + " x " + c.instance + " (" +
                  std::to_string(gpus) + " GPUs), as preflight simulated it.\n";
  s += "# Run: torchrun --nnodes " + std::to_string(c.nodes) + " --nproc_per_node " + std::to_string(p.node->gpus_per_node) +
       " -m torchtitan.train --job.config_file this.toml\n";
  const std::optional<TorchtitanFlavor> flavor = torchtitan_flavor_of_model(p.scenario->model().id);
  s += flavor ? "# Set [model] hf_assets_path to the tokenizer's folder.\n\n"
              : "# Set [model] flavor and hf_assets_path to torchtitan's definition of " + p.scenario->model().id + ".\n\n";
  s += "[job]\ndescription = " + quoted(p.scenario->name) + "\n\n";
  if (flavor) {
    s += "[model]\nname = " + quoted(std::string(flavor->name)) + "\nflavor = " + quoted(std::string(flavor->flavor)) + "  # " +
         p.scenario->model().id + "\n";
  } else {
    s += "[model]\nname = \"llama3\"\nflavor = \"\"  # torchtitan's flavor for " + p.scenario->model().id + "\n";
  }
  s += t.precision == Precision::fp8 ? "converters = [\"float8\"]\n\n" : "\n";
  s += "[training]\n";
  if (par.pp > 1) {
    // A pipeline's micro-batches come from the local batch (pipeline_parallel_microbatch_size splits
    // it, torchtitan's build_pipeline_schedule), so the schedule runs all of them in one step.
    s += "local_batch_size = " + std::to_string(c.micro_batch * c.grad_accum) + "  # " + std::to_string(c.grad_accum) +
         " pipeline micro-batches of " + std::to_string(c.micro_batch) + "\n";
    s += "global_batch_size = " + std::to_string(c.micro_batch * c.grad_accum * dp) + "\n";
  } else {
    s += "local_batch_size = " + std::to_string(c.micro_batch) + "\n";
    s += "global_batch_size = " + std::to_string(c.micro_batch * c.grad_accum * dp) + "  # " + std::to_string(c.grad_accum) +
         " gradient accumulation steps\n";
  }
  s += "seq_len = " + std::to_string(t.seq_len) + "\n";
  s += "steps = " + std::to_string(p.steps) + "\n";
  s += "mixed_precision_param = \"bfloat16\"\n";
  s += "mixed_precision_reduce = \"float32\"\n";
  if (offload) s += "enable_cpu_offload = true  # FSDP2's CPUOffloadPolicy: parameters, gradients and optimizer on the host\n";
  s += "\n";
  s += "[parallelism]\n";
  s += "data_parallel_replicate_degree = " + std::to_string(replicate) + "\n";
  s += "data_parallel_shard_degree = " + std::to_string(shard) + "\n";
  s += "fsdp_reshard_after_forward = " + quoted(reshard_after_forward(c.sharding)) + "\n";
  s += "tensor_parallel_degree = " + std::to_string(par.tp) + "\n";
  s += "pipeline_parallel_degree = " + std::to_string(par.pp) + "\n";
  if (par.cp > 1) {
    s += "context_parallel_degree = " + std::to_string(par.cp) + "\n";
    s += "# preflight simulated the keys and values passed around a ring (context_parallel_rotate_method = \"alltoall\");\n"
         "# torchtitan's default, \"allgather\", gathers them before each attention instead\n";
  }
  if (par.pp > 1) {
    s += std::string("pipeline_parallel_schedule = ") + (par.interleave > 1 ? "\"Interleaved1F1B\"" : "\"1F1B\"") + "\n";
    s += "pipeline_parallel_microbatch_size = " + std::to_string(c.micro_batch) + "\n";
    // torchtitan gives a looped schedule two stages a rank unless told how many layers a stage holds:
    // ceil((layers + 2) / layers_per_stage) stages, the embedding and the output weighing a layer each
    // (pipeline_parallel_first/last_stage_less_layers, default 1).
    if (par.interleave > 2) s += "pipeline_parallel_layers_per_stage = " + std::to_string(torchtitan_layers_per_stage(p)) + "\n";
  }
  s += "\n[activation_checkpoint]\nmode = " + quoted(to_string(c.recompute)) + "\n";
  if (c.recompute == Recompute::selective) s += "selective_ac_option = \"op\"\n";
  s += "\n[compile]\nenable = " + std::string(t.torch_compile ? "true" : "false") + "\n";
  s += "\n[checkpoint]\nenable = " + std::string(p.checkpoint_interval_steps > 0 ? "true" : "false") + "\n";
  if (p.checkpoint_interval_steps > 0) s += "interval = " + std::to_string(p.checkpoint_interval_steps) + "\n";
  return s;
}

}  // namespace preflight
