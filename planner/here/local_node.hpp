#pragma once
// This machine as a node the planner can check a config on: id "local", provider "local", its GPUs
// (one catalog model) with the memory they have free as the capacity, its available host memory and
// CPUs, one node without a network, priced as owned hardware. What the probe cannot see (the
// GPU-to-GPU link, whether the disk is NVMe) is a stated assumption with its source.

#include <span>
#include <string>
#include <vector>

#include "planner/here/local_machine.hpp"
#include "planner/here/probed.hpp"
#include "simulator/spec/gpu_spec.hpp"
#include "simulator/spec/node_spec.hpp"

namespace preflight::here {

struct LocalNode {
  NodeSpec node;
  // One sentence each: the figure taken where the probe gave none or the catalog's was replaced.
  std::vector<std::string> assumptions;
};

// The bytes a job can have on `gpu`: what is free, or its total where that is unknown.
double usable_gpu_bytes(const ProbedGpu& gpu);

// "GPU 0 (NVIDIA H100 80GB HBM3): 61.2 of 79.6 GiB free", or why the free figure is unknown.
std::string gpu_memory_text(const ProbedGpu& gpu);

// Unavailable, with why, when the machine has no GPU the catalog knows, GPUs of different models, or
// no host memory or CPU figures.
Probed<LocalNode> local_node(const LocalMachine& machine, std::span<const GpuSpec> catalog);

}  // namespace preflight::here
