#include "planner/cli/check_here.hpp"

#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "planner/cli/common_options.hpp"
#include "planner/here/local_machine.hpp"
#include "planner/here/local_node.hpp"
#include "planner/here/model_folder.hpp"
#include "planner/text/number_text.hpp"
#include "simulator/economics/checkpoint_plan.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::cli {

namespace fs = std::filesystem;

void add_here_options(CLI::App& command, HereOptions& options) {
  command.add_flag("--here", options.here,
                   "Check on this machine: its GPUs and their free memory (CUDA driver), host memory and disk; without a "
                   "GPU the catalog knows, the scenario's machine (say so). A launcher's first line: exit 1 before a GPU-hour is spent");
  command.add_option("--model", options.model_dir, "A local Hugging Face model folder (its config.json; its tokenizer is checked for a pad token)")
      ->check(not_empty());
}

void add_model_folder(const HereOptions& options, ImportedSetup& imported, std::ostream& err) {
  if (options.model_dir.empty()) return;
  fs::path dir = options.model_dir;
  if (dir.filename() == "config.json") dir = dir.parent_path();
  const here::ModelFolder folder = here::read_model_folder(dir);
  imported.read(dir.string(), "model folder");
  imported.replace("model", fs::absolute(dir / "config.json").lexically_normal().string(), "--model", dir.string());
  if (folder.pad_token.status == here::PadToken::missing) err << "warning: " << printable(folder.pad_token.message) << "\n";
  if (folder.pad_token.status == here::PadToken::unchecked) err << "note: " << printable(folder.pad_token.message) << "\n";
}

nlohmann::ordered_json use_this_machine(const HereOptions& options, JobInput& job, ConfigSource& source, const Catalog& catalog,
                                        std::ostream& err) {
  nlohmann::ordered_json report;
  if (!options.here) return report;
  // PREFLIGHT_CUDA_DRIVER: another driver library to load (an unusual install, or a test's stand-in).
  here::ProbeSources sources;
  if (const char* driver = std::getenv("PREFLIGHT_CUDA_DRIVER"); driver != nullptr && *driver != '\0') sources.cuda_driver = driver;
  const here::LocalMachine machine = here::probe_local_machine(here::SystemProbe(sources), fs::current_path());
  report["gpus"] = nlohmann::ordered_json::array();
  if (machine.gpus) {
    for (const here::ProbedGpu& g : *machine.gpus) {
      report["gpus"].push_back({{"name", g.name}, {"total_bytes", g.total_bytes},
                                {"free_bytes", g.free_bytes ? nlohmann::ordered_json(*g.free_bytes) : nlohmann::ordered_json(nullptr)}});
      err << "here: " << printable(here::gpu_memory_text(g)) << "\n";
    }
  }
  if (machine.free_disk_bytes) {
    // The checkpoints the run keeps, all ranks' shards together, against the disk of the folder it runs in.
    const CheckpointSettings& c = job.scenario.checkpoint.settings;
    const double one = checkpoint_bytes(job.scenario.workload.footprint(), job.scenario.workload.state_bytes(), c.resumable);
    const double kept = one * c.keep;
    report["free_disk_bytes"] = *machine.free_disk_bytes;
    report["checkpoint_bytes_kept"] = kept;
    err << "here: " << fixed(*machine.free_disk_bytes / 1e9, 1) << " GB free on " << printable(machine.work_dir.string()) << "\n";
    if (kept > *machine.free_disk_bytes) {
      err << "warning: the run keeps " << c.keep << " checkpoints of " << fixed(one / 1e9, 1) << " GB (" << fixed(kept / 1e9, 1)
          << " GB), more than the " << fixed(*machine.free_disk_bytes / 1e9, 1) << " GB free here: write them elsewhere (a shared "
          << "file system or a bucket) or keep fewer\n";
    }
  }
  const here::Probed<here::LocalNode> local = here::local_node(machine, catalog.gpus());
  const std::string instance = source.json.is_object() && source.json.contains("instance") && source.json["instance"].is_string()
                                   ? source.json["instance"].get<std::string>()
                                   : "";
  if (!local) {
    report["used"] = false;
    report["why"] = local.unavailable_because();
    err << "here: no GPU preflight can check on (" << printable(local.unavailable_because()) << "): checking on the scenario's machine"
        << (instance.empty() ? std::string() : " " + printable(instance)) << " instead\n";
    return report;
  }
  NodeSpec node = local->node;
  // A multi-node job is checked on nodes like this one; their network is the scenario's machine's.
  std::int64_t nodes = source.json.is_object() && source.json.contains("nodes") && source.json["nodes"].is_number_integer()
                           ? source.json["nodes"].get<std::int64_t>()
                           : 1;
  if (const ImportedFact* n = job.imported.fact("config.nodes"); n != nullptr && n->value.is_number_integer()) nodes = n->value.get<std::int64_t>();
  if (const auto& g = job.imported.world().gpus; g && g->value.is_number_integer() && g->value.get<std::int64_t>() % node.gpus_per_node == 0) {
    nodes = std::max<std::int64_t>(nodes, g->value.get<std::int64_t>() / node.gpus_per_node);
  }
  std::vector<std::string> assumptions = local->assumptions;
  if (nodes > 1) {
    node.max_nodes = static_cast<int>(nodes);
    if (const NodeSpec* like = instance.empty() ? nullptr : find_node(job.scenario, catalog, instance)) {
      node.inter_node_bits_per_second = like->inter_node_bits_per_second;
      assumptions.push_back("network between the " + std::to_string(nodes) + " nodes: " + instance + "'s (" +
                            fixed(like->inter_node_bits_per_second / 1e9, 0) + " Gb/s), which the probe cannot see from one node");
    }
  }
  job.scenario.clusters.push_back(node);
  source.json["instance"] = node.id;
  report["used"] = true;
  report["machine"] = {{"gpu", node.gpu.id}, {"gpus_per_node", node.gpus_per_node}, {"usable_bytes_per_gpu", node.gpu.memory_bytes},
                       {"host_memory_bytes", node.host_memory_bytes}};
  report["assumptions"] = assumptions;
  err << "here: checking on this machine: " << node.gpus_per_node << " x " << node.gpu.id << "\n";
  for (const std::string& a : assumptions) err << "here: assumed " << printable(a) << "\n";
  return report;
}

}  // namespace preflight::cli
