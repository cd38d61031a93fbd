#include "planner/here/local_node.hpp"

#include <algorithm>

#include "planner/here/catalog_gpu.hpp"
#include "planner/text/number_text.hpp"
#include "simulator/spec/units.hpp"

namespace preflight::here {

namespace {

// PCIe gen4 x16 per direction (16 GT/s x 16 lanes, 128b/130b encoding: 31.5 GB/s), the figure the
// catalog's workstations use (catalogs/instances/local.json): the slowest slot a training GPU of
// the catalog sits in, so the conservative choice where the link is not known.
constexpr double kPcieGen4X16BytesPerSecond = 32e9;

std::string gpu_label(const ProbedGpu& gpu) { return "GPU " + std::to_string(gpu.ordinal) + " (" + gpu.name + ")"; }

// A node has one GPU model; the caller can narrow a mixed machine with CUDA_VISIBLE_DEVICES.
std::string mixed_models(const std::vector<ProbedGpu>& gpus) {
  for (const ProbedGpu& g : gpus) {
    if (g.name != gpus.front().name) {
      return "GPUs of different models (" + gpu_label(gpus.front()) + ", " + gpu_label(g) +
             "): a node has one model; CUDA_VISIBLE_DEVICES chooses the GPUs the job runs on";
    }
  }
  return "";
}

// The GPU-to-GPU link is not probed (NVML's topology would tell, `nvidia-smi topo -m` shows it).
void set_intra_node_link(NodeSpec& n, std::vector<std::string>& assumptions) {
  n.intra_node_link = IntraNodeLink::pcie;
  n.intra_node_bytes_per_second_per_gpu = kPcieGen4X16BytesPerSecond;
  if (n.gpus_per_node == 1) return;  // no GPU-to-GPU traffic: the figure only carries host copies
  const bool bridged = nvlink_bridged_in_pairs(n.gpu);
  if (n.gpu.nvlink_bytes_per_second_bidirectional > 0.0 && (!bridged || n.gpus_per_node == 2)) {
    n.intra_node_link = IntraNodeLink::nvlink;
    n.intra_node_bytes_per_second_per_gpu = n.gpu.nvlink_bytes_per_second_bidirectional / 2.0;
    assumptions.push_back("GPU-to-GPU: NVLink at the catalog's " +
                          fixed(n.intra_node_bytes_per_second_per_gpu / 1e9, 0) + " GB/s per direction for " +
                          n.gpu.id + " (" + n.gpu.source +
                          "), not probed: `nvidia-smi topo -m` shows whether every pair is linked (PCIe boards "
                          "need bridges)");
    return;
  }
  const std::string why = bridged && n.gpu.nvlink_bytes_per_second_bidirectional > 0.0
                              ? " (NVLink bridges join " + n.gpu.id + " boards in pairs, so a ring over " +
                                    std::to_string(n.gpus_per_node) + " crosses PCIe)"
                              : "";
  assumptions.push_back("GPU-to-GPU: PCIe gen4 x16 at " + fixed(kPcieGen4X16BytesPerSecond / 1e9, 0) +
                        " GB/s per direction" + why +
                        " (PCIe 4.0: 16 GT/s x 16 lanes), not probed: an x8 slot halves it");
}

// The least any GPU has is what every rank of a data-parallel job can count on.
void set_gpu_capacity(NodeSpec& n, const std::vector<ProbedGpu>& gpus, std::vector<std::string>& assumptions) {
  const auto tightest = std::min_element(gpus.begin(), gpus.end(), [](const ProbedGpu& a, const ProbedGpu& b) {
    return usable_gpu_bytes(a) < usable_gpu_bytes(b);
  });
  const double catalog_bytes = n.gpu.memory_bytes;
  n.gpu.memory_bytes = usable_gpu_bytes(*tightest);
  for (const ProbedGpu& g : gpus) {
    if (!g.free_bytes) {
      assumptions.push_back(gpu_label(g) + ": free memory unknown (" + g.free_bytes.unavailable_because() +
                            "); its total, " + gib(g.total_bytes) + ", taken");
    }
  }
  assumptions.push_back("GPU memory: " + gib(n.gpu.memory_bytes) + " per GPU, what " + gpu_label(*tightest) +
                        " leaves (the least of " + std::to_string(gpus.size()) + "), in place of the catalog's " +
                        gib(catalog_bytes) + " for " + n.gpu.id);
}

void set_host(NodeSpec& n, const LocalMachine& m, std::vector<std::string>& assumptions) {
  const HostMemory& memory = *m.host_memory;
  n.host_memory_bytes = memory.available_bytes;
  n.vcpus = *m.cpus;
  assumptions.push_back("host memory: " + gib(memory.available_bytes) + " available of " +
                        gib(memory.total_bytes) + " (the kernel's MemAvailable" +
                        (memory.limited_by.empty() ? "" : ", capped by the cgroup limit in " + memory.limited_by) +
                        ")");
  // NVMe offload needs a local NVMe drive; the probe does not see what the disk is, so none is assumed.
  n.local_nvme_bytes = 0.0;
  const std::string disk = m.free_disk_bytes
                               ? "it has " + fixed(*m.free_disk_bytes / 1e9, 0) + " GB free for checkpoints"
                               : "its free space is unknown (" + m.free_disk_bytes.unavailable_because() + ")";
  assumptions.push_back("local NVMe: none assumed (what the disk under " + m.work_dir.string() +
                        " is, is not probed); " + disk);
}

}  // namespace

double usable_gpu_bytes(const ProbedGpu& gpu) {
  return gpu.free_bytes ? std::min(*gpu.free_bytes, gpu.total_bytes) : gpu.total_bytes;
}

std::string gpu_memory_text(const ProbedGpu& gpu) {
  if (!gpu.free_bytes) {
    return gpu_label(gpu) + ": " + gib(gpu.total_bytes) + ", free memory unknown (" +
           gpu.free_bytes.unavailable_because() + ")";
  }
  return gpu_label(gpu) + ": " + gib(*gpu.free_bytes) + " of " + gib(gpu.total_bytes) + " free";
}

Probed<LocalNode> local_node(const LocalMachine& machine, std::span<const GpuSpec> catalog) {
  using Node = Probed<LocalNode>;
  if (!machine.gpus) return Node::unavailable("no GPU found (" + machine.gpus.unavailable_because() + ")");
  const std::vector<ProbedGpu>& gpus = *machine.gpus;
  if (const std::string mixed = mixed_models(gpus); !mixed.empty()) return Node::unavailable(mixed);
  Probed<GpuSpec> entry = catalog_gpu_for(gpus.front(), catalog);
  if (!entry) return Node::unavailable(entry.unavailable_because());
  if (!machine.host_memory) {
    return Node::unavailable("host memory unknown (" + machine.host_memory.unavailable_because() + ")");
  }
  if (!machine.cpus) return Node::unavailable("CPU count unknown (" + machine.cpus.unavailable_because() + ")");

  LocalNode local;
  NodeSpec& n = local.node;
  n.id = "local";
  n.provider = "local";
  n.gpu = *entry;
  n.gpus_per_node = static_cast<int>(gpus.size());
  n.max_nodes = 1;
  n.inter_node_bits_per_second = 0.0;  // this machine alone: the probe knows nothing of a cluster
  set_gpu_capacity(n, gpus, local.assumptions);
  set_intra_node_link(n, local.assumptions);
  set_host(n, machine, local.assumptions);
  // Empty prices: owned hardware (or rented already), priced at 0 unless the user gives a figure.
  n.source = "this machine, probed " + machine.date + ": " + std::to_string(gpus.size()) + " x " + gpus.front().name +
             " (compute capability " + std::to_string(gpus.front().compute_capability_major) + "." +
             std::to_string(gpus.front().compute_capability_minor) + ", CUDA driver), " + n.gpu.id + " in the catalog";
  n.price_source = "none: the machine preflight runs on, priced as owned hardware";
  n.as_of = machine.date;
  return Node::found(std::move(local));
}

}  // namespace preflight::here
