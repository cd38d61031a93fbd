#pragma once
// The optimizer step, once every gradient collective has ended: a fused Adam/SGD kernel on the GPU
// over this rank's partition, or under optimizer offload (ZeRO-Offload, ZeRO-Infinity, FSDP
// CPUOffload) the gradients copied to the host, the CPU optimizer (swapping its state through NVMe
// under ZeRO-Infinity) and the updated 16-bit parameters copied back.

#include <vector>

#include "simulator/step/graph_writer.hpp"
#include "simulator/step/step_context.hpp"

namespace preflight {

// Returns the task that ends the update (the kernel, or the copy back to the device).
engine::TaskId add_optimizer_step(const StepContext& context, GraphWriter& graph, engine::TaskId end_of_backward,
                                  const std::vector<engine::TaskId>& gradient_syncs);

}  // namespace preflight
