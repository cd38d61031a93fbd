#include "simulator/strategy/step_graph.hpp"

#include <algorithm>
#include <optional>

#include "simulator/engine/chrome_trace_writer.hpp"
#include "simulator/engine/event_engine.hpp"
#include "simulator/engine/memory_tracker.hpp"
#include "simulator/hardware/compute_model.hpp"
#include "simulator/memory/parameter_footprint.hpp"
#include "simulator/performance/step_time_defaults.hpp"

namespace preflight {

using engine::Task;
using engine::TaskId;

namespace {

class StepBuilder {
 public:
  explicit StepBuilder(const StepInputs& in)
      : in_(in),
        model_(*in.model),
        job_(*in.job),
        c_(in.config),
        scheme_(sharding_scheme(in.config.sharding)),
        rates_(device_rates(in.node->gpu, in.job->precision)),
        footprint_(parameter_footprint(*in.model, *in.job)),
        bytes_(state_bytes(in.job->precision, in.job->optimizer, in.job->method != Method::full)) {
    LayerCostInputs lc;
    lc.seq_len = job_.seq_len;
    lc.micro_batch = c_.micro_batch;
    lc.precision = job_.precision;
    lc.flash_attention = c_.flash_attention;
    lc.frozen_weights = job_.method != Method::full;
    lc.lora = job_.method == Method::full ? nullptr : &job_.lora;
    layer_ = layer_cost(model_, lc, rates_);
    head_ = head_cost(model_, lc, rates_);
    compute_ = add_resource("gpu compute");
    comm_ = add_resource("collectives");
    h2d_ = add_resource("host-to-device copy");
    d2h_ = add_resource("device-to-host copy");
    cpu_ = add_resource("cpu");

    activations_ = activation_memory(model_, activation_inputs(job_, c_));

    const MemoryBreakdown& g = in.memory.gpu;
    // The timeline allocates activations, logits and gathered parameters itself; the rest is resident.
    out_.graph.resident_bytes = g.total() - g.activations - g.logits - g.gathered_params;
    const double dp = in.memory.dp_degree;
    world_ = {static_cast<int>(dp), std::min(static_cast<int>(dp), in.node->gpus_per_node)};
    shard_ = {static_cast<int>(in.memory.shard_degree), std::min(static_cast<int>(in.memory.shard_degree), in.node->gpus_per_node)};
  }

  StepGraph build() {
    std::optional<TaskId> previous;
    const bool sharded = scheme_.stage == 3;
    for (std::int64_t mb = 0; mb < c_.grad_accum; ++mb) {
      const bool last = mb + 1 == c_.grad_accum;
      previous = micro_batch(previous, static_cast<int>(mb), last, sharded);
    }
    optimizer_step(*previous);
    const double tokens = static_cast<double>(c_.micro_batch * c_.grad_accum);
    out_.model_flops = tokens * (static_cast<double>(model_.layers) * (layer_.forward.flops + layer_.backward.flops) +
                                 head_.forward.flops + head_.backward.flops);
    return std::move(out_);
  }

 private:
  engine::ResourceId add_resource(const char* name) { return out_.graph.add_resource(name); }

  TaskId add(TaskKind kind, std::string_view name, int index, engine::ResourceId resource, double seconds,
             double alloc = 0.0, double free = 0.0) {
    out_.kinds.push_back(kind);
    return out_.graph.add_task(Task{name, index, resource, seconds, alloc, free});
  }

  void after(TaskId later, std::optional<TaskId> earlier) {
    if (earlier) out_.graph.depends(later, *earlier);
  }

  // One block's weights as gathered for compute (trainable and frozen alike, in the compute dtype).
  double layer_weight_bytes() const { return footprint_.compute_weight_bytes * footprint_.layer_params; }

  // Gradients of one layer as they leave backward (the trainable parameters of one block).
  double layer_grad_bytes() const {
    return bytes_.grads * footprint_.trainable / static_cast<double>(model_.layers);
  }

  // Forward and backward of one micro-batch; returns its last task.
  TaskId micro_batch(std::optional<TaskId> previous, int mb, bool last, bool sharded) {
    const int layers = static_cast<int>(model_.layers);
    const double gather_seconds =
        sharded ? in_.collectives->seconds(CollectiveOp::all_gather, layer_weight_bytes(), shard_) : 0.0;
    std::optional<TaskId> gather_prev;
    std::optional<TaskId> chain = previous;
    std::vector<TaskId> computed;  // compute tasks in order, to bound the prefetch to one layer ahead
    for (int l = 0; l < layers; ++l) {
      std::optional<TaskId> gathered;
      if (c_.offload.params != OffloadTarget::none) {
        const TaskId copy = add(TaskKind::copy, "params in", l, h2d_,
                                layer_weight_bytes() / in_.memory.shard_degree / step_time_defaults::kHostLinkBytesPerSecond);
        after(copy, previous);
        gathered = copy;
      }
      if (sharded) {
        // Prefetch: the next layer's gather runs while this layer computes (the stream is the limit).
        const TaskId ag = add(TaskKind::collective, "all-gather fwd", l, comm_, gather_seconds, gathered_bytes());
        after(ag, gathered);
        after(ag, gather_prev ? gather_prev : previous);
        if (computed.size() >= 2) after(ag, computed[computed.size() - 2]);
        gather_prev = ag;
        gathered = ag;
      }
      const TaskId fwd = add(TaskKind::compute, "forward", l, compute_, layer_.forward.seconds,
                             activations_.per_layer_stored, sharded ? gathered_bytes() : 0.0);
      after(fwd, chain);
      after(fwd, gathered);
      chain = fwd;
      computed.push_back(fwd);
    }
    const double head_memory = activations_.logits + activations_.outside_layers;
    const TaskId head_fwd = add(TaskKind::compute, "head forward", mb, compute_, head_.forward.seconds, head_memory);
    after(head_fwd, chain);
    const TaskId head_bwd = add(TaskKind::compute, "head backward", mb, compute_, head_.backward.seconds, 0.0, head_memory);
    after(head_bwd, head_fwd);
    chain = head_bwd;

    Bucketing buckets(*this, last && !sharded);
    for (int l = layers - 1; l >= 0; --l) {
      std::optional<TaskId> gathered;
      if (sharded) {
        const TaskId ag = add(TaskKind::collective, "all-gather bwd", l, comm_, gather_seconds, gathered_bytes());
        after(ag, gather_prev ? gather_prev : head_fwd);
        if (computed.size() >= 2) after(ag, computed[computed.size() - 2]);
        gather_prev = ag;
        gathered = ag;
      }
      std::optional<TaskId> rec;
      if (c_.recompute != Recompute::none) {
        const bool full = c_.recompute == Recompute::full;
        const double seconds = full ? layer_.forward.seconds : (c_.flash_attention ? 0.0 : layer_.attention_core_forward.seconds);
        if (seconds > 0.0) {
          rec = add(TaskKind::recompute, "recompute", l, compute_, seconds, full ? activations_.recompute_working : 0.0);
          after(*rec, chain);
          after(*rec, gathered);
        }
      }
      const double freed = activations_.per_layer_stored +
                           (c_.recompute == Recompute::full ? activations_.recompute_working : 0.0) +
                           (sharded ? gathered_bytes() : 0.0);
      const TaskId bwd = add(TaskKind::compute, "backward", l, compute_, layer_.backward.seconds, 0.0, freed);
      after(bwd, rec ? rec : chain);
      after(bwd, gathered);
      chain = bwd;
      computed.push_back(bwd);
      if (sharded) {
        const TaskId rs = add(TaskKind::collective, "reduce-scatter", l, comm_,
                              in_.collectives->seconds(CollectiveOp::reduce_scatter, layer_grad_bytes(), shard_));
        after(rs, bwd);
        buckets.sync_tasks.push_back(rs);
        if (last && hybrid_replicas() > 1) {
          // HYBRID_SHARD: the node's shards are then all-reduced across the replicas (nodes); the
          // node's GPUs do so at once, sharing its network.
          const double node_bytes = layer_grad_bytes() / in_.memory.shard_degree * in_.node->gpus_per_node;
          const TaskId ar = add(TaskKind::collective, "all-reduce replicas", l, comm_,
                                in_.collectives->seconds(CollectiveOp::all_reduce, node_bytes, {hybrid_replicas(), 1}));
          after(ar, rs);
          buckets.sync_tasks.push_back(ar);
        }
      } else {
        buckets.add_layer(bwd);
      }
    }
    buckets.flush(*chain);
    sync_tasks_.insert(sync_tasks_.end(), buckets.sync_tasks.begin(), buckets.sync_tasks.end());
    return *chain;
  }

  int hybrid_replicas() const {
    return c_.sharding == Sharding::fsdp_hybrid ? static_cast<int>(in_.memory.dp_degree / in_.memory.shard_degree) : 1;
  }

  double gathered_bytes() const {
    return in_.memory.gpu.gathered_params / 2.0;  // the memory model counts the running unit and the prefetched one
  }

  // Gradient buckets of replicated-gradient strategies, synchronised on the last micro-batch only.
  struct Bucketing {
    StepBuilder& b;
    bool active;
    double filled = 0.0;
    int index = 0;
    std::optional<TaskId> last_backward;
    std::vector<TaskId> sync_tasks;

    Bucketing(StepBuilder& builder, bool on) : b(builder), active(on) {}

    void add_layer(TaskId bwd) {
      if (!active) return;
      last_backward = bwd;
      filled += b.layer_grad_bytes();
      if (b.in_.overlap_gradient_sync && filled >= b.in_.bucket_bytes) emit();
    }
    void flush(TaskId end_of_backward) {
      if (!active) return;
      last_backward = end_of_backward;
      if (filled > 0.0) emit();
    }
    void emit() {
      const CollectiveOp op = b.scheme_.stage == 2 ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
      const TaskId t = b.add(TaskKind::collective, op == CollectiveOp::all_reduce ? "all-reduce" : "reduce-scatter",
                             index++, b.comm_, b.in_.collectives->seconds(op, filled, b.world_));
      b.after(t, last_backward);
      sync_tasks.push_back(t);
      filled = 0.0;
    }
  };

  void optimizer_step(TaskId end_of_backward) {
    const double partition = footprint_.trainable / (scheme_.stage >= 1 ? in_.memory.shard_degree : 1.0);
    std::optional<TaskId> ready = end_of_backward;
    auto after_syncs = [&](TaskId t) {
      after(t, ready);
      for (TaskId s : sync_tasks_) out_.graph.depends(t, s);
    };
    TaskId step;
    if (c_.offload.optimizer != OffloadTarget::none) {
      const double link = step_time_defaults::kHostLinkBytesPerSecond;
      const TaskId down = add(TaskKind::copy, "grads to host", -1, d2h_, bytes_.grads * partition / link);
      after_syncs(down);
      const double ranks = in_.node->gpus_per_node;
      double cpu_seconds = partition * ranks / (step_time_defaults::kCpuAdamParamsPerSecondPerVcpu * std::max(in_.node->vcpus, 1));
      if (c_.offload.optimizer == OffloadTarget::nvme) {
        cpu_seconds += 2.0 * 16.0 * partition * ranks / step_time_defaults::kNvmeBytesPerSecond;
      }
      const TaskId adam = add(TaskKind::optimizer, "optimizer step (cpu)", -1, cpu_, cpu_seconds);
      after(adam, down);
      step = add(TaskKind::copy, "params to device", -1, h2d_, bytes_.weights * partition / link);
      after(step, adam);
    } else {
      step = add(TaskKind::optimizer, "optimizer step", -1, compute_, optimizer_step_seconds(partition, bytes_, rates_));
      after_syncs(step);
    }
    if (scheme_.stage == 1 || scheme_.stage == 2) {
      // DeepSpeed ZeRO-1/2: every rank gathers the parameters the others updated.
      const TaskId ag = add(TaskKind::collective, "all-gather params", -1, comm_,
                            in_.collectives->seconds(CollectiveOp::all_gather, bytes_.weights * footprint_.trainable, world_));
      after(ag, step);
    }
  }

  const StepInputs& in_;
  const ModelSpec& model_;
  const TrainingJob& job_;
  const StrategyConfig& c_;
  ShardingScheme scheme_;
  DeviceRates rates_;
  ParameterFootprint footprint_;
  StateBytes bytes_;
  LayerCost layer_;
  LayerCost head_;
  ActivationMemory activations_;
  CollectiveGroup world_;
  CollectiveGroup shard_;
  engine::ResourceId compute_ = 0, comm_ = 0, h2d_ = 0, d2h_ = 0, cpu_ = 0;
  std::vector<TaskId> sync_tasks_;
  StepGraph out_;
};

}  // namespace

StepGraph build_step_graph(const StepInputs& in) { return StepBuilder(in).build(); }

namespace {

StepSimulation simulate_graph(const StepInputs& in, bool with_trace) {
  const StepGraph g = build_step_graph(in);
  engine::MemoryTracker memory;
  engine::ChromeTraceWriter trace;
  std::vector<engine::Observer*> observers{&memory};
  if (with_trace) observers.push_back(&trace);
  const engine::Schedule s = engine::run(g.graph, observers);

  StepSimulation out;
  out.tasks = g.graph.task_count();
  out.peak_bytes = memory.peak_bytes();
  out.peak_seconds = memory.peak_seconds();
  if (with_trace) out.trace = trace.trace();
  StepTimeEstimate& t = out.time;
  t.model_flops = g.model_flops;
  double copies = 0.0;
  for (engine::TaskId id = 0; id < g.graph.task_count(); ++id) {
    const double seconds = g.graph.task(id).seconds;
    switch (g.kinds[id]) {
      case TaskKind::compute: t.compute_seconds += seconds; break;
      case TaskKind::recompute: t.recompute_seconds += seconds; break;
      case TaskKind::optimizer: t.optimizer_seconds += seconds; break;
      case TaskKind::copy: copies += seconds; break;
      case TaskKind::collective: break;
    }
  }
  // Whatever of the makespan is not GPU work or the optimizer is waiting: on copies first (offload),
  // then on collectives.
  const double waiting = std::max(0.0, s.makespan - t.compute_seconds - t.recompute_seconds - t.optimizer_seconds);
  t.offload_exposed_seconds = std::min(waiting, copies);
  t.comm_exposed_seconds = waiting - t.offload_exposed_seconds;
  return out;
}

}  // namespace

StepSimulation simulate_step(const StepInputs& in, bool with_trace) {
  // Micro-batches before the last are identical (no gradient sync, or the same per-layer
  // reduce-scatters): simulate three and extend the third's cost to the rest, so a step with
  // hundreds of accumulation steps costs no more than one with three.
  constexpr std::int64_t kSimulated = 3;
  if (in.config.grad_accum <= kSimulated || with_trace) return simulate_graph(in, with_trace);
  StepInputs shorter = in;
  shorter.config.grad_accum = kSimulated - 1;
  const StepSimulation two = simulate_graph(shorter, false);
  shorter.config.grad_accum = kSimulated;
  StepSimulation three = simulate_graph(shorter, false);
  const double extra = static_cast<double>(in.config.grad_accum - kSimulated);
  StepTimeEstimate& t = three.time;
  t.compute_seconds += extra * (t.compute_seconds - two.time.compute_seconds);
  t.recompute_seconds += extra * (t.recompute_seconds - two.time.recompute_seconds);
  t.comm_exposed_seconds += extra * (t.comm_exposed_seconds - two.time.comm_exposed_seconds);
  t.offload_exposed_seconds += extra * (t.offload_exposed_seconds - two.time.offload_exposed_seconds);
  t.model_flops += extra * (t.model_flops - two.time.model_flops);
  return three;
}

}  // namespace preflight
