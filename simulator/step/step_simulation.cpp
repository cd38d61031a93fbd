// Runs a step's graph in the discrete-event engine and reads the step-time breakdown and the memory
// peak off the schedule.

#include <algorithm>
#include <optional>
#include <utility>

#include "simulator/engine/chrome_trace_writer.hpp"
#include "simulator/engine/event_engine.hpp"
#include "simulator/engine/memory_tracker.hpp"
#include "simulator/step/step_graph.hpp"

namespace preflight {

namespace {

// A simulation's graph, its schedule and the engine's lists. One per thread, kept from one
// simulation to the next: a search runs tens of thousands, and memory handed back and asked for
// again (page faults and all) cost more than the graphs' building. simulate_step runs nothing in
// parallel, so a thread never uses its scratch twice at once.
struct Scratch {
  StepGraph graph;
  engine::Schedule schedule;
  engine::Workspace engine;
};

// Splits the GPU's idle time: first on the host (what its issue time exceeds the kernels by), then
// on offload copies, the rest on collectives.
void attribute_waiting(StepTime& t, double waiting, double host_excess, double copies) {
  const double host = std::clamp(host_excess, 0.0, waiting);
  t.host_exposed_seconds += host;
  t.offload_exposed_seconds += std::min(waiting - host, copies);
  t.comm_exposed_seconds += waiting - host - std::min(waiting - host, copies);
}

// Builds and runs the step's graph in `scratch` (which holds them afterwards) and reads the result.
StepSimulation simulate_graph(const StepInputs& in, bool with_trace, Scratch& scratch) {
  scratch.graph = build_step_graph(in, std::move(scratch.graph));
  const StepGraph& g = scratch.graph;
  engine::MemoryTracker memory(false);  // the peak is read, not the timeline
  // A trace writer builds JSON as it goes: made only when a trace is asked for.
  std::optional<engine::ChromeTraceWriter> trace;
  std::vector<engine::Observer*> observers{&memory};
  if (with_trace) observers.push_back(&trace.emplace());
  engine::run(g.graph, observers, scratch.schedule, scratch.engine);
  const engine::Schedule& s = scratch.schedule;

  StepSimulation out;
  out.tasks = g.graph.task_count();
  out.peak_bytes = memory.peak_bytes();
  out.peak_seconds = memory.peak_seconds();
  if (trace) out.trace = trace->trace();
  StepTime& t = out.time;
  t.model_flops = g.model_flops;
  double copies = 0.0, host = 0.0;
  for (engine::TaskId id = 0; id < g.graph.task_count(); ++id) {
    const double seconds = g.graph.task(id).seconds;
    t.kernels += g.kernels[id];
    switch (g.kinds[id]) {
      case TaskKind::compute: t.compute_seconds += seconds; break;
      case TaskKind::reference:
        t.compute_seconds += seconds;
        t.logprob_seconds += seconds;
        break;
      case TaskKind::recompute: t.recompute_seconds += seconds; break;
      case TaskKind::optimizer: t.optimizer_seconds += seconds; break;
      case TaskKind::copy: copies += seconds; break;
      case TaskKind::bubble: t.pipeline_bubble_seconds += seconds; break;
      case TaskKind::host: host += seconds; break;
      case TaskKind::collective: break;
    }
  }
  // Whatever of the makespan is not GPU work or the optimizer is waiting: on copies first (offload),
  // then on collectives.
  const double waiting =
      std::max(0.0, s.makespan - t.compute_seconds - t.recompute_seconds - t.optimizer_seconds - t.pipeline_bubble_seconds);
  attribute_waiting(t, waiting, host - t.compute_seconds - t.recompute_seconds, copies);
  return out;
}

}  // namespace

StepSimulation simulate_step(const StepInputs& in, bool with_trace) {
  // Micro-batches between the first and the last are identical (no gradient sync, or the same
  // per-layer reduce-scatters): simulate three and repeat the middle one's cost for the rest, so a
  // step with hundreds of accumulation steps costs one simulation of three.
  constexpr std::int64_t kSimulated = 3;
  thread_local Scratch scratch;
  if (in.config.grad_accum <= kSimulated || with_trace) return simulate_graph(in, with_trace, scratch);
  StepInputs shorter = in;
  shorter.config.grad_accum = kSimulated;
  StepSimulation result = simulate_graph(shorter, false, scratch);
  const StepGraph& g = scratch.graph;
  double compute = 0.0, logprob = 0.0, recompute = 0.0, copies = 0.0, host = 0.0;
  KernelClassSeconds kernels;
  for (engine::TaskId id = 0; id < g.graph.task_count(); ++id) {
    if (g.micro_batch[id] != 1) continue;
    kernels += g.kernels[id];
    const double seconds = g.graph.task(id).seconds;
    compute += g.kinds[id] == TaskKind::compute || g.kinds[id] == TaskKind::reference ? seconds : 0.0;
    logprob += g.kinds[id] == TaskKind::reference ? seconds : 0.0;
    recompute += g.kinds[id] == TaskKind::recompute ? seconds : 0.0;
    copies += g.kinds[id] == TaskKind::copy ? seconds : 0.0;
    host += g.kinds[id] == TaskKind::host ? seconds : 0.0;
  }
  const double middle = scratch.schedule.timings[g.micro_batch_end[1]].end - scratch.schedule.timings[g.micro_batch_end[0]].end;
  const double waiting = std::max(0.0, middle - compute - recompute);
  const double extra = static_cast<double>(in.config.grad_accum - kSimulated);
  StepTime& t = result.time;
  t.compute_seconds += extra * compute;
  t.logprob_seconds += extra * logprob;
  t.recompute_seconds += extra * recompute;
  t.kernels += kernels.scaled(extra);
  StepTime middle_wait;
  attribute_waiting(middle_wait, waiting, host - compute - recompute, copies);
  t.host_exposed_seconds += extra * middle_wait.host_exposed_seconds;
  t.offload_exposed_seconds += extra * middle_wait.offload_exposed_seconds;
  t.comm_exposed_seconds += extra * middle_wait.comm_exposed_seconds;
  t.model_flops *= static_cast<double>(in.config.grad_accum) / kSimulated;
  return result;
}

}  // namespace preflight
