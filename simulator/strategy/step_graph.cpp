#include "simulator/strategy/step_graph.hpp"

#include <algorithm>
#include <optional>

#include "simulator/engine/chrome_trace_writer.hpp"
#include "simulator/engine/event_engine.hpp"
#include "simulator/engine/memory_tracker.hpp"
#include "simulator/hardware/compute_model.hpp"
#include "simulator/memory/parameter_footprint.hpp"
#include "simulator/model/flops.hpp"
#include "simulator/hardware/framework_defaults.hpp"
#include "simulator/hardware/host_defaults.hpp"
#include "simulator/memory/memory_defaults.hpp"
#include "simulator/strategy/model_parallel.hpp"

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
        rates_(device_rates(in.node->gpu, in.job->precision, in.profile)),
        stages_(stage_layout(*in.model, in.config.parallelism)),
        footprint_(stage_footprint(parameter_footprint(*in.model, *in.job), stages_)),
        bytes_(state_bytes(in.job->precision, in.job->optimizer, in.job->method != Method::full)) {
    LayerCostInputs lc;
    lc.seq_len = job_.seq_len;
    lc.micro_batch = c_.micro_batch;
    lc.precision = job_.precision;
    lc.flash_attention = c_.flash_attention;
    lc.frozen_weights = job_.method != Method::full;
    lc.quantized_weights = job_.method == Method::qlora;
    lc.lora = job_.method == Method::full ? nullptr : &job_.lora;
    lc.tp = stages_.tp;
    lc.sequence_parallel = c_.parallelism.sequence_parallel;
    layer_ = layer_cost(model_, lc, rates_);
    head_ = head_cost(model_, lc, rates_);
    compute_ = add_resource("gpu compute");
    comm_ = add_resource("collectives");
    h2d_ = add_resource("host-to-device copy");
    d2h_ = add_resource("device-to-host copy");
    cpu_ = add_resource("cpu");
    dispatch_ = add_resource("host dispatch");
    framework_ = in.profile != nullptr && in.profile->applies_to(in.node->gpu.id) && in.profile->framework
                     ? *in.profile->framework
                     : framework_defaults::pytorch_eager();
    if (stages_.tp > 1) tp_link_ = add_resource("tensor-parallel collectives");
    if (stages_.pp > 1) p2p_ = add_resource("pipeline send/receive");

    activations_ = activation_memory(model_, activation_inputs(job_, c_));
    // The same for every layer and micro-batch: asked of the collective model once.
    tp_forward_seconds_ = tensor_parallel_collectives_seconds(false);
    tp_backward_seconds_ = tensor_parallel_collectives_seconds(true);
    p2p_seconds_ = pipeline_collective_seconds();

    const MemoryBreakdown& g = in.memory.gpu;
    // The timeline allocates activations, logits and gathered parameters itself; the rest is resident,
    // and so are the activations of the other micro-batches a pipeline stage holds under 1F1B (counted
    // from the whole step's accumulation, also when simulate_step builds a shortened graph).
    out_.graph.resident_bytes = g.total() - g.activations - g.logits - g.gathered_params +
                                (in.memory.in_flight_micro_batches - 1.0) * activations_.per_layer_stored *
                                    static_cast<double>(stages_.layers_per_stage);
    const double dp = in.memory.dp_degree;
    // Megatron places tensor-parallel ranks innermost, so a node holds gpus_per_node / tp ranks of each
    // data-parallel group.
    world_ = {static_cast<int>(dp), std::min(static_cast<int>(dp), std::max(1, in.node->gpus_per_node / stages_.tp))};
    shard_ = {static_cast<int>(in.memory.shard_degree), std::min(static_cast<int>(in.memory.shard_degree), in.node->gpus_per_node)};
  }

  StepGraph build() {
    std::optional<TaskId> previous;
    if (stages_.pp > 1) {
      // The pipeline's fill and drain: this stage idles while the micro-batches reach it and after its
      // last backward leaves (Narayanan et al. 2021: (pp - 1) / interleave micro-batch times).
      previous = add(TaskKind::bubble, "pipeline bubble", -1, compute_,
                     stages_.bubble_micro_batches * stage_micro_batch_seconds());
      host_waits_for_ = previous;  // the stage's host blocks on its first receive as well
    }
    for (std::int64_t mb = 0; mb < c_.grad_accum; ++mb) {
      current_micro_batch_ = static_cast<std::int32_t>(mb);
      previous = micro_batch(previous, static_cast<int>(mb), mb + 1 == c_.grad_accum);
      out_.micro_batch_end.push_back(*previous);
    }
    current_micro_batch_ = -1;
    optimizer_step(*previous);
    // Model FLOPs as MFU counts them (6N plus full attention per token for training), not the
    // kernels' own work (causal attention does half; recompute repeats the forward).
    const double tokens = static_cast<double>(c_.micro_batch * c_.grad_accum * job_.seq_len);
    const FlopsPerToken f = flops_per_token(model_, job_.seq_len);
    out_.model_flops = tokens * f.forward() * (1.0 + backward_to_forward_ratio(job_.method)) /
                       static_cast<double>(stages_.tp * stages_.pp);
    return std::move(out_);
  }

 private:
  engine::ResourceId add_resource(const char* name) { return out_.graph.add_resource(name); }

  TaskId add(TaskKind kind, std::string_view name, int index, engine::ResourceId resource, double seconds,
             double alloc = 0.0, double free = 0.0) {
    out_.kinds.push_back(kind);
    out_.micro_batch.push_back(current_micro_batch_);
    return out_.graph.add_task(Task{name, index, resource, seconds, alloc, free});
  }

  void after(TaskId later, std::optional<TaskId> earlier) {
    if (earlier) out_.graph.depends(later, *earlier);
  }

  // One block's weights as gathered for compute (trainable and frozen alike, in the compute dtype).
  double layer_weight_bytes() const { return footprint_.compute_weight_bytes * footprint_.layer_params; }

  // Gradients of one layer as they leave backward (the trainable parameters of one block).
  double layer_grad_bytes() const {
    return bytes_.grads * footprint_.trainable / static_cast<double>(stages_.layers_per_stage);
  }

  int stage_layers() const { return static_cast<int>(stages_.layers_per_stage); }

  double recompute_seconds() const {
    if (c_.recompute == Recompute::full) return layer_.forward.seconds;
    return c_.recompute == Recompute::selective && !c_.flash_attention ? layer_.attention_core_forward.seconds : 0.0;
  }

  // Megatron's tensor-parallel layer communicates twice per pass over a layer, on the critical path:
  // an all-reduce of the whole activation after the attention and after the MLP (backward: of their
  // input gradients); with sequence parallelism an all-gather before and a reduce-scatter after each,
  // the same bus traffic (Korthikanti et al. 2022, section 4.2.2).
  // In backward, sequence parallelism gathers each column-parallel linear's input once more for its
  // weight gradient (Megatron keeps only the 1/tp slice): two more all-gathers per layer.
  double tensor_parallel_pass_seconds(bool backward = false) const { return backward ? tp_backward_seconds_ : tp_forward_seconds_; }

  double tensor_parallel_collectives_seconds(bool backward) const {
    if (stages_.tp == 1) return 0.0;
    const double bytes = boundary_activation_bytes();
    const CollectiveGroup group{stages_.tp, stages_.tp};
    const CollectiveModel& m = *in_.collectives;
    if (!c_.parallelism.sequence_parallel) return 2.0 * m.seconds(CollectiveOp::all_reduce, bytes, group);
    const double gather = m.seconds(CollectiveOp::all_gather, bytes, group);
    return 2.0 * (gather + m.seconds(CollectiveOp::reduce_scatter, bytes, group)) + (backward ? 2.0 * gather : 0.0);
  }

  // One micro-batch's activation (or its gradient) as it crosses a layer boundary, 16-bit unless fp32.
  double boundary_activation_bytes() const {
    return (job_.precision == Precision::fp32 ? 4.0 : 2.0) * static_cast<double>(c_.micro_batch * job_.seq_len) *
           static_cast<double>(model_.hidden);
  }

  // Sending one micro-batch's activation to the next stage (or its gradient back): Megatron's
  // scatter-gather optimisation sends each tensor-parallel rank's 1/tp slice, over the network when
  // the job spans nodes. Each of the interleave chunks sends once.
  double pipeline_transfer_seconds() const { return p2p_seconds_; }

  double pipeline_collective_seconds() const {
    if (stages_.pp == 1) return 0.0;
    const CollectiveGroup pair{2, c_.nodes > 1 ? 1 : 2};
    return static_cast<double>(stages_.interleave) *
           in_.collectives->seconds(CollectiveOp::broadcast, boundary_activation_bytes() / stages_.tp, pair);
  }

  // One micro-batch's forward and backward on a stage without the head: the unit of the bubble.
  double stage_micro_batch_seconds() const {
    const double forwards = c_.recompute == Recompute::full ? 2.0 : 1.0;
    const double layer = layer_.forward.seconds + recompute_seconds() + layer_.backward.seconds +
                         forwards * tensor_parallel_pass_seconds() + tensor_parallel_pass_seconds(true);
    return static_cast<double>(stages_.layers_per_stage) * layer + 2.0 * pipeline_transfer_seconds();
  }

  // Where a micro-batch's chain of tasks stands, shared by its forward and backward passes.
  struct Pass {
    std::optional<TaskId> chain;        // the last compute task
    std::optional<TaskId> gather_prev;  // the last all-gather (the collective stream's order)
    std::vector<TaskId> computed;       // compute tasks in order, to bound prefetch to one layer ahead
  };

  // Chains the tensor-parallel communication of one pass over a layer behind its compute.
  void tensor_parallel_sync(Pass& p, int layer, bool backward = false) {
    if (stages_.tp == 1) return;
    const TaskId t = add(TaskKind::collective, "tensor-parallel", layer, tp_link_, tensor_parallel_pass_seconds(backward));
    after(t, p.chain);
    p.chain = t;
  }

  // Receives this stage's input (forward) or output gradient (backward) from the neighbouring stage.
  // Megatron synchronises the device after every stage-to-stage transfer (p2p_communication.py), so
  // the host cannot issue the next pass before the transfer, and all before it, is done.
  void pipeline_receive(Pass& p, std::string_view name, int mb) {
    if (stages_.pp == 1) return;
    const TaskId t = add(TaskKind::collective, name, mb, p2p_, pipeline_transfer_seconds());
    after(t, p.chain);
    p.chain = t;
    host_waits_for_ = t;
  }

  // The profile's measurement of this machine where it has one, else the named default.
  const HostDeviceMeasurement* measured_link() const {
    return in_.profile != nullptr && in_.profile->applies_to(in_.node->gpu.id) ? &in_.profile->host_device : nullptr;
  }
  double host_to_device_bytes_per_second() const {
    const HostDeviceMeasurement* m = measured_link();
    return m != nullptr && m->h2d_pinned_bytes_per_second ? *m->h2d_pinned_bytes_per_second : host_defaults::kHostLinkBytesPerSecond;
  }
  double device_to_host_bytes_per_second() const {
    const HostDeviceMeasurement* m = measured_link();
    return m != nullptr && m->d2h_pinned_bytes_per_second ? *m->d2h_pinned_bytes_per_second : host_defaults::kHostLinkBytesPerSecond;
  }
  double cpu_adam_params_per_second() const {
    if (in_.profile != nullptr && in_.profile->applies_to(in_.node->gpu.id) && in_.profile->host.cpu_adam_params_per_second) {
      return *in_.profile->host.cpu_adam_params_per_second;
    }
    return host_defaults::kCpuAdamParamsPerSecondPerVcpu * std::max(in_.node->vcpus, 1);
  }

  // Streams a layer's parameters in from the host (parameter offload) and gathers its shards
  // (ZeRO-3/FSDP) ahead of its compute; returns the task the compute must wait for.
  std::optional<TaskId> fetch_layer(Pass& p, int layer, std::string_view gather_name, std::optional<TaskId> start) {
    std::optional<TaskId> ready;
    if (c_.offload.params != OffloadTarget::none) {
      const TaskId copy = add(TaskKind::copy, "params in", layer, h2d_,
                              layer_weight_bytes() / in_.memory.shard_degree / host_to_device_bytes_per_second());
      after(copy, start);
      if (p.computed.size() >= 2) after(copy, p.computed[p.computed.size() - 2]);
      ready = copy;
    }
    if (scheme_.stage == 3) {
      const TaskId ag = add(TaskKind::collective, gather_name, layer, comm_,
                            in_.collectives->seconds(CollectiveOp::all_gather, layer_weight_bytes(), shard_), gathered_bytes());
      after(ag, ready);
      after(ag, p.gather_prev ? p.gather_prev : start);
      if (p.computed.size() >= 2) after(ag, p.computed[p.computed.size() - 2]);
      p.gather_prev = ag;
      ready = ag;
    }
    return ready;
  }

  // A pass over a layer (or the head) on the GPU, issued by the host first: the framework's host
  // time for it runs on the one dispatch thread, in program order, and the GPU cannot start the pass
  // before the host has issued it. The host runs ahead while the GPU is busy, so the step takes
  // whichever is longer, the kernels or their issue.
  TaskId compute(Pass& p, TaskKind kind, std::string_view name, int index, double seconds, double alloc, double free,
                 std::optional<TaskId> ready, double host_seconds) {
    std::optional<TaskId> issue;
    if (host_seconds > 0.0) {
      issue = add(TaskKind::host, name, index, dispatch_, host_seconds);
      after(*issue, last_issue_);
      after(*issue, host_waits_for_);
      host_waits_for_.reset();
      last_issue_ = issue;
    }
    const TaskId t = add(kind, name, index, compute_, seconds, alloc, free);
    after(t, issue);
    after(t, p.chain);
    after(t, ready);
    p.chain = t;
    if (kind == TaskKind::compute) p.computed.push_back(t);
    return t;
  }

  void forward_pass(Pass& p, std::optional<TaskId> start) {
    const double gathered = scheme_.stage == 3 ? gathered_bytes() : 0.0;
    for (int l = 0; l < stage_layers(); ++l) {
      const std::optional<TaskId> ready = fetch_layer(p, l, "all-gather fwd", start);
      // Under full recompute the first forward runs without autograd (checkpointing keeps no graph).
      const double host = c_.recompute == Recompute::full ? framework_.layer_forward_no_grad_seconds : framework_.layer_forward_seconds;
      compute(p, TaskKind::compute, "forward", l, layer_.forward.seconds, activations_.per_layer_stored, gathered, ready, host);
      tensor_parallel_sync(p, l);
    }
  }

  void backward_pass(Pass& p, std::optional<TaskId> start, bool last) {
    const bool sharded = scheme_.stage == 3;
    const bool full = c_.recompute == Recompute::full;
    const double recompute = recompute_seconds();
    const double freed = activations_.per_layer_stored + (full ? activations_.recompute_working : 0.0) +
                         (sharded ? gathered_bytes() : 0.0);
    Bucketing buckets(*this, last && !sharded);
    for (int l = stage_layers() - 1; l >= 0; --l) {
      const std::optional<TaskId> ready = fetch_layer(p, l, "all-gather bwd", start);
      if (recompute > 0.0) {
        const double host = full ? framework_.layer_backward_with_recompute_seconds - framework_.layer_backward_seconds : 0.0;
        compute(p, TaskKind::recompute, "recompute", l, recompute, full ? activations_.recompute_working : 0.0, 0.0, ready, host);
        if (full) tensor_parallel_sync(p, l);
      }
      const TaskId bwd =
          compute(p, TaskKind::compute, "backward", l, layer_.backward.seconds, 0.0, freed, ready, framework_.layer_backward_seconds);
      tensor_parallel_sync(p, l, true);
      if (sharded) {
        reduce_layer_gradients(bwd, l, last);
      } else {
        buckets.add_layer(bwd);
      }
    }
    buckets.flush(*p.chain);
  }

  // ZeRO-3/FSDP reduce-scatter each layer's gradients as its backward ends, every micro-batch.
  void reduce_layer_gradients(TaskId bwd, int layer, bool last) {
    const TaskId rs = add(TaskKind::collective, "reduce-scatter", layer, comm_,
                          in_.collectives->seconds(CollectiveOp::reduce_scatter, layer_grad_bytes(), shard_));
    after(rs, bwd);
    sync_tasks_.push_back(rs);
    if (last && hybrid_replicas() > 1) {
      // HYBRID_SHARD: the node's shards are then all-reduced across the replicas (nodes); the
      // node's GPUs do so at once, sharing its network.
      const double node_bytes = layer_grad_bytes() / in_.memory.shard_degree * in_.node->gpus_per_node;
      const TaskId ar = add(TaskKind::collective, "all-reduce replicas", layer, comm_,
                            in_.collectives->seconds(CollectiveOp::all_reduce, node_bytes, {hybrid_replicas(), 1}));
      after(ar, rs);
      sync_tasks_.push_back(ar);
    }
  }

  // Forward and backward of one micro-batch; returns its last task.
  TaskId micro_batch(std::optional<TaskId> previous, int mb, bool last) {
    Pass p;
    p.chain = previous;
    // The host reads something back from the GPU once per micro-batch (HF Trainer's NaN/inf check of
    // the loss, Megatron's broadcast of the batch sizes), so it starts issuing a micro-batch only once
    // the previous one has finished on the GPU.
    if (previous && !host_waits_for_) host_waits_for_ = previous;
    // Under pipelining this is the last stage (it also runs the head: the slowest stage).
    pipeline_receive(p, "receive activations", mb);
    forward_pass(p, previous);
    const double head_memory = activations_.logits + activations_.outside_layers;
    const TaskId head_fwd = compute(p, TaskKind::compute, "head forward", mb, head_.forward.seconds, head_memory, 0.0, {},
                                    framework_.head_forward_seconds);
    compute(p, TaskKind::compute, "head backward", mb, head_.backward.seconds, 0.0, head_memory, {}, framework_.head_backward_seconds);
    pipeline_receive(p, "send gradients", mb);
    backward_pass(p, head_fwd, last);
    return *p.chain;
  }

  // PyTorch DDP's bucket_cap_mb (25 MB); DeepSpeed's reduce_bucket_size (in elements).
  double bucket_bytes() const {
    return scheme_.engine == Engine::deepspeed ? memory_defaults::kDeepSpeedReduceBucketElements * bytes_.grads
                                               : 25.0 * 1024.0 * 1024.0;
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

    Bucketing(StepBuilder& builder, bool on) : b(builder), active(on) {}

    void add_layer(TaskId bwd) {
      if (!active) return;
      last_backward = bwd;
      filled += b.layer_grad_bytes();
      if (b.in_.overlap_gradient_sync && filled >= b.bucket_bytes()) emit();
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
      b.sync_tasks_.push_back(t);
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
      const TaskId down = add(TaskKind::copy, "grads to host", -1, d2h_, bytes_.grads * partition / device_to_host_bytes_per_second());
      after_syncs(down);
      const double ranks = in_.node->gpus_per_node;
      double cpu_seconds = partition * ranks / cpu_adam_params_per_second();
      if (c_.offload.optimizer == OffloadTarget::nvme) {
        // ZeRO-Infinity swaps the partition's optimizer state and fp32 gradients in and out.
        const double swapped = (bytes_.optimizer() + 4.0) * partition * ranks;
        cpu_seconds += 2.0 * swapped / host_defaults::kNvmeBytesPerSecond;
      }
      const TaskId adam = add(TaskKind::optimizer, "optimizer step (cpu)", -1, cpu_, cpu_seconds);
      after(adam, down);
      step = add(TaskKind::copy, "params to device", -1, h2d_, bytes_.weights * partition / host_to_device_bytes_per_second());
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
  StageLayout stages_;
  ParameterFootprint footprint_;
  StateBytes bytes_;
  LayerCost layer_;
  LayerCost head_;
  ActivationMemory activations_;
  CollectiveGroup world_;
  CollectiveGroup shard_;
  engine::ResourceId compute_ = 0, comm_ = 0, h2d_ = 0, d2h_ = 0, cpu_ = 0, dispatch_ = 0, tp_link_ = 0, p2p_ = 0;
  FrameworkMeasurement framework_;
  double tp_forward_seconds_ = 0.0, tp_backward_seconds_ = 0.0, p2p_seconds_ = 0.0;
  std::optional<TaskId> last_issue_;      // the host's program order
  std::optional<TaskId> host_waits_for_;  // a synchronisation the next issue waits on
  std::vector<TaskId> sync_tasks_;
  std::int32_t current_micro_batch_ = -1;
  StepGraph out_;
};

}  // namespace

StepGraph build_step_graph(const StepInputs& in) { return StepBuilder(in).build(); }

namespace {

struct Simulated {
  StepGraph graph;
  engine::Schedule schedule;
  StepSimulation result;
};

// Splits the GPU's idle time: first on the host (what its issue time exceeds the kernels by), then
// on offload copies, the rest on collectives.
void attribute_waiting(StepTime& t, double waiting, double host_excess, double copies) {
  const double host = std::clamp(host_excess, 0.0, waiting);
  t.host_exposed_seconds += host;
  t.offload_exposed_seconds += std::min(waiting - host, copies);
  t.comm_exposed_seconds += waiting - host - std::min(waiting - host, copies);
}

Simulated simulate_graph(const StepInputs& in, bool with_trace) {
  Simulated sim{build_step_graph(in), {}, {}};
  const StepGraph& g = sim.graph;
  engine::MemoryTracker memory;
  engine::ChromeTraceWriter trace;
  std::vector<engine::Observer*> observers{&memory};
  if (with_trace) observers.push_back(&trace);
  sim.schedule = engine::run(g.graph, observers);
  const engine::Schedule& s = sim.schedule;

  StepSimulation& out = sim.result;
  out.tasks = g.graph.task_count();
  out.peak_bytes = memory.peak_bytes();
  out.peak_seconds = memory.peak_seconds();
  if (with_trace) out.trace = trace.trace();
  StepTime& t = out.time;
  t.model_flops = g.model_flops;
  double copies = 0.0, host = 0.0;
  for (engine::TaskId id = 0; id < g.graph.task_count(); ++id) {
    const double seconds = g.graph.task(id).seconds;
    switch (g.kinds[id]) {
      case TaskKind::compute: t.compute_seconds += seconds; break;
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
  return sim;
}

}  // namespace

StepSimulation simulate_step(const StepInputs& in, bool with_trace) {
  // Micro-batches between the first and the last are identical (no gradient sync, or the same
  // per-layer reduce-scatters): simulate three and repeat the middle one's cost for the rest, so a
  // step with hundreds of accumulation steps costs one simulation of three.
  constexpr std::int64_t kSimulated = 3;
  if (in.config.grad_accum <= kSimulated || with_trace) return simulate_graph(in, with_trace).result;
  StepInputs shorter = in;
  shorter.config.grad_accum = kSimulated;
  Simulated sim = simulate_graph(shorter, false);
  const StepGraph& g = sim.graph;
  double compute = 0.0, recompute = 0.0, copies = 0.0, host = 0.0;
  for (engine::TaskId id = 0; id < g.graph.task_count(); ++id) {
    if (g.micro_batch[id] != 1) continue;
    const double seconds = g.graph.task(id).seconds;
    compute += g.kinds[id] == TaskKind::compute ? seconds : 0.0;
    recompute += g.kinds[id] == TaskKind::recompute ? seconds : 0.0;
    copies += g.kinds[id] == TaskKind::copy ? seconds : 0.0;
    host += g.kinds[id] == TaskKind::host ? seconds : 0.0;
  }
  const double middle = sim.schedule.timings[g.micro_batch_end[1]].end - sim.schedule.timings[g.micro_batch_end[0]].end;
  const double waiting = std::max(0.0, middle - compute - recompute);
  const double extra = static_cast<double>(in.config.grad_accum - kSimulated);
  StepTime& t = sim.result.time;
  t.compute_seconds += extra * compute;
  t.recompute_seconds += extra * recompute;
  StepTime middle_wait;
  attribute_waiting(middle_wait, waiting, host - compute - recompute, copies);
  t.host_exposed_seconds += extra * middle_wait.host_exposed_seconds;
  t.offload_exposed_seconds += extra * middle_wait.offload_exposed_seconds;
  t.comm_exposed_seconds += extra * middle_wait.comm_exposed_seconds;
  t.model_flops *= static_cast<double>(in.config.grad_accum) / kSimulated;
  return sim.result;
}

}  // namespace preflight
