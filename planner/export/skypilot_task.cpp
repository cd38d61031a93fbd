// A SkyPilot task for a config (docs.skypilot.co, reference/yaml-spec): `sky jobs launch` runs it as
// a managed job, which SkyPilot restarts from the last checkpoint after a spot reclaim; the
// checkpoints go to a bucket, since a reclaimed instance takes its local disks with it.

#include <cctype>
#include <string>

#include "planner/catalog/skypilot_accelerators.hpp"
#include "planner/export/export_plan.hpp"

namespace preflight {

namespace {

// The object store each cloud's SkyPilot storage uses.
std::string store_of(const std::string& provider) {
  if (provider == "gcp") return "gcs";
  if (provider == "azure") return "azure";
  return "s3";
}

// The scenario's name in lower case, digits and dashes: what S3, GCS and SkyPilot's task names allow.
std::string slug_of(const std::string& name) {
  std::string b;
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    b += std::isalnum(c) ? static_cast<char>(std::tolower(c)) : '-';
  }
  b = b.substr(0, 40);
  while (b.ends_with("-")) b.pop_back();
  return b.empty() ? "job" : b;
}

std::string indented(const std::string& text, const std::string& by) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    out += (line.empty() ? "" : by) + line + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string skypilot_task_yaml(const ExportPlan& p) {
  const StrategyConfig& c = p.config;
  const NodeSpec& node = *p.node;
  const std::string type = c.instance.substr(c.instance.find('/') + 1);
  const std::string slug = slug_of(p.scenario->name);
  const std::string bucket = "preflight-" + slug + "-checkpoints";
  Rendezvous r;
  r.node_rank = "\"$SKYPILOT_NODE_RANK\"";
  r.endpoint = "\"$MASTER_ADDR:29500\"";
  const LaunchBody body = launch_body(p, r, "\"$SKYPILOT_NODE_RANK\"", "\"$CHECKPOINT_DIR\"");

  std::string y = "# SkyPilot task written by preflight for " + p.scenario->name + ": " + std::to_string(c.nodes) + " x " + c.instance +
                  " (" + std::to_string(c.nodes * node.gpus_per_node) + " GPUs), " + to_string(c.sharding) + ", micro-batch " +
                  std::to_string(c.micro_batch) + " x accumulation " + std::to_string(c.grad_accum) + ", " + to_string(c.pricing) + ".\n";
  y += "# Launch it as a managed job, which restarts from the last checkpoint after a spot reclaim: sky jobs launch THIS.yaml\n";
  if (!c.region && !p.price.region.empty()) {
    y += "# preflight priced it in " + p.price.region + (p.price.zone.empty() ? "" : " (" + p.price.zone + ")") +
         ": add the region to infra to be billed there.\n";
  }
  y += "name: " + slug + "\n";
  y += "num_nodes: " + std::to_string(c.nodes) + "\n";
  y += "resources:\n";
  y += "  infra: " + node.provider + (c.region ? "/" + *c.region : "") + "\n";
  y += "  instance_type: " + type + "\n";
  if (const std::string a = skypilot_name_of(node.gpu.id); !a.empty()) y += "  accelerators: " + a + ":" + std::to_string(node.gpus_per_node) + "\n";
  if (c.pricing == Pricing::spot) {
    y += "  use_spot: true\n";
  } else if (c.pricing == Pricing::spot_with_fallback) {
    y += "  # Spot first, on-demand when spot is gone (preflight's spot_with_fallback)\n";
    y += "  ordered:\n    - use_spot: true\n    - use_spot: false\n";
  }
  if (on_spot(c.pricing)) {
    y += "  job_recovery:\n    strategy: EAGER_NEXT_REGION\n    max_restarts_on_errors: 0\n";
  }
  y += "file_mounts:\n";
  y += "  /checkpoints:  # a bucket: checkpoints outlive a reclaimed instance (bucket names are global: make it yours)\n";
  y += "    name: " + bucket + "\n    store: " + store_of(node.provider) + "\n    mode: MOUNT\n";
  y += "envs:\n  CHECKPOINT_DIR: /checkpoints\n";
  if (c.framework == Framework::megatron) y += "  DATA_PATH: \"\"  # a Megatron .bin/.idx prefix\n  TOKENIZER: \"\"  # a Hugging Face tokenizer id or path\n";
  y += "setup: |\n";
  y += "  # Install the training stack here (the same versions on every node).\n";
  for (const auto& [name, text] : body.files) {
    y += "  cat > " + name + " <<'EOF'\n" + indented(text, "  ") + "  EOF\n";
  }
  y += "run: |\n";
  y += "  set -e\n";
  y += "  # A step-0 check before a GPU-hour is spent, where preflight is installed:\n";
  y += "  #   preflight check --here SCENARIO.json --from THIS.yaml || exit 1\n";
  y += "  MASTER_ADDR=$(echo \"$SKYPILOT_NODE_IPS\" | head -n1)\n";
  if (c.framework == Framework::transformers) {
    y += "  # train.py resumes from the newest checkpoint in $CHECKPOINT_DIR (transformers' get_last_checkpoint).\n";
  }
  y += indented(body.command, "  ");
  return y;
}

}  // namespace preflight
