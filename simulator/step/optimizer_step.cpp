#include "simulator/step/optimizer_step.hpp"

#include <functional>

#include "simulator/hardware/host_defaults.hpp"

namespace preflight {

namespace {

engine::TaskId offloaded_step(const StepContext& c, GraphWriter& g, double partition,
                              const std::function<void(engine::TaskId)>& after_syncs) {
  const StepResources& r = g.resources();
  const engine::TaskId down = g.add(TaskKind::copy, "grads to host", -1, r.d2h,
                                    c.bytes.grads * partition / c.machine.device_to_host_bytes_per_second());
  after_syncs(down);
  const double ranks = c.machine.node().gpus_per_node;
  double cpu_seconds = partition * ranks / c.machine.cpu_adam_params_per_second();
  if (c.config.offload.optimizer == OffloadTarget::nvme) {
    // ZeRO-Infinity swaps the partition's optimizer state and fp32 gradients in and out.
    const double swapped = (c.bytes.optimizer() + 4.0) * partition * ranks;
    cpu_seconds += 2.0 * swapped / host_defaults::kNvmeBytesPerSecond;
  }
  const engine::TaskId adam = g.add(TaskKind::optimizer, "optimizer step (cpu)", -1, r.cpu, cpu_seconds);
  g.after(adam, down);
  const engine::TaskId up = g.add(TaskKind::copy, "params to device", -1, r.h2d,
                                  c.bytes.weights * partition / c.machine.host_to_device_bytes_per_second());
  g.after(up, adam);
  return up;
}

}  // namespace

engine::TaskId add_optimizer_step(const StepContext& c, GraphWriter& g, engine::TaskId end_of_backward,
                                  const std::vector<engine::TaskId>& syncs) {
  const double partition = c.footprint.trainable / (c.scheme.stage >= 1 ? c.in.memory.shard_degree : 1.0);
  const auto after_syncs = [&](engine::TaskId t) {
    g.after(t, end_of_backward);
    for (engine::TaskId s : syncs) g.graph().graph.depends(t, s);
  };
  if (c.config.offload.optimizer != OffloadTarget::none) return offloaded_step(c, g, partition, after_syncs);
  const engine::TaskId step = g.add(TaskKind::optimizer, "optimizer step", -1, g.resources().compute,
                                    optimizer_step_seconds(partition, c.bytes, c.machine.rates()));
  if (const double paged = c.in.memory.paged_out_bytes; paged > 0.0) {
    // A paged optimizer's evicted states: prefetched back for the step (bitsandbytes prefetches them
    // before its kernel), and evicted again when the next forward's activations need the room.
    const engine::TaskId in = g.add(TaskKind::copy, "paged optimizer states in and out", -1, g.resources().h2d,
                                    2.0 * paged / c.machine.host_to_device_bytes_per_second());
    after_syncs(in);
    g.after(step, in);
    return step;
  }
  after_syncs(step);
  return step;
}

}  // namespace preflight
