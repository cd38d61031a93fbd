#include "simulator/step/step_builder.hpp"

#include <algorithm>
#include <utility>

#include "simulator/step/optimizer_step.hpp"

namespace preflight {

using engine::TaskId;

namespace {
// The gather of a layer ahead of a forward without gradients (the reference model's own shards).
constexpr std::string_view kNoGradGather = "all-gather no-grad";
}  // namespace

StepGraph build_step_graph(const StepInputs& in) { return StepBuilder(in).build(); }

StepGraph build_step_graph(const StepInputs& in, StepGraph&& recycled) { return StepBuilder(in, std::move(recycled)).build(); }

StepBuilder::StepBuilder(const StepInputs& in, StepGraph recycled)
    : c_(in),
      g_(c_.stages.tp, c_.stages.pp, c_.stages.ep, c_.stages.cp, std::move(recycled)),
      host_(g_, c_.machine.framework(c_.config.framework)),
      tp_(c_, g_),
      ep_(c_, g_),
      cp_(c_, g_),
      pipeline_(c_, g_, host_, tp_, ep_, cp_),
      sharded_(c_, g_),
      paired_(c_.config.parallelism.ep_comm_overlap && c_.config.grad_accum >= 2) {
  const MemoryBreakdown& m = in.memory.gpu;
  // The timeline allocates activations, logits and gathered parameters itself; the rest is resident,
  // and so are the activations of the other micro-batches a pipeline stage holds under 1F1B (counted
  // from the whole step's accumulation, also when simulate_step builds a shortened graph). Paired
  // micro-batches hold about one between them (the forward stores a layer as the backward beside it
  // frees one), which the timeline tracks itself.
  // Offloaded, the other micro-batches' activations wait on the host.
  const bool offloaded = c_.config.offload.activations != OffloadTarget::none;
  // Units that stay gathered through the step (SHARD_GRAD_OP, FSDP2 beside pipelining) are resident too.
  g_.graph().graph.resident_bytes = m.total() - m.activations - m.logits - (in.memory.gathered_stay ? 0.0 : m.gathered_params) +
                                    (offloaded ? 0.0 : in.memory.in_flight_micro_batches - 1.0) * c_.activations.per_layer_stored *
                                        static_cast<double>(c_.stages.layers_per_stage);
  // Megatron runs the tensor-parallel collectives on the compute stream (what its userbuffer overlap
  // leaves of them, or all): beside another micro-batch's pass they hold the stream, they hide behind nothing.
  // Paired, the compute hides the other micro-batch's all-to-all too: what it hides of the
  // tensor-parallel collectives shrinks (for every pass, the unpaired first forward, last backward
  // and the bubble's too, which only errs slow).
  if (paired_) {
    g_.tensor_parallel_on_compute_stream();
    tp_.share_compute_with(ep_.pass_seconds());
  }
}

StepGraph StepBuilder::build() {
  const std::int64_t accumulation = c_.config.grad_accum;
  // A layer's passes, recompute, host issue and collectives: about a dozen tasks per layer and micro-batch,
  // half a dozen more for each forward without gradients a preference objective calls.
  constexpr std::size_t kTasksPerLayerAndMicroBatch = 12;
  constexpr std::size_t kTasksPerLayerAndNoGradCall = 6;
  g_.reserve((kTasksPerLayerAndMicroBatch + kTasksPerLayerAndNoGradCall * static_cast<std::size_t>(c_.job.no_grad_calls())) *
                 static_cast<std::size_t>(c_.stages.layers_per_stage) *
                 static_cast<std::size_t>(accumulation) + 64);
  std::optional<TaskId> previous = pipeline_.bubble();
  if (paired_) {
    previous = paired_micro_batches(previous, static_cast<int>(accumulation));
  } else {
    for (std::int64_t mb = 0; mb < accumulation; ++mb) {
      g_.set_micro_batch(static_cast<std::int32_t>(mb));
      previous = micro_batch(previous, static_cast<int>(mb), mb + 1 == accumulation);
      g_.graph().micro_batch_end.push_back(*previous);
    }
  }
  g_.set_micro_batch(-1);
  gather_updated_parameters(c_, g_, add_optimizer_step(c_, g_, *previous, gradient_syncs_));
  // Model FLOPs as MFU counts them (6N plus full attention per token for training), not the
  // kernels' own work (causal attention does half; recompute repeats the forward). A preference
  // objective's forwards without gradients are work the objective needs: counted at 2N.
  // One replica's sequences, whose work its tp x pp x cp GPUs share.
  const double tokens = static_cast<double>(c_.job.sequences(c_.config.micro_batch) * accumulation * c_.job.seq_len);
  StepGraph& out = g_.graph();
  out.model_flops = tokens * c_.workload.flops().forward() * (1.0 + backward_to_forward_ratio(c_.job.method) + c_.job.no_grad_forwards()) /
                    static_cast<double>(c_.stages.tp * c_.stages.pp * c_.stages.cp);
  return std::move(out);
}

TaskId StepBuilder::compute(Pass& p, TaskKind kind, std::string_view name, int index, const PassCost& work,
                            double slowdown, double alloc, double free, std::optional<TaskId> ready, double host_seconds) {
  const std::optional<TaskId> issue = host_.issue(name, index, host_seconds);
  const TaskId t = g_.add(kind, name, index, g_.resources().compute, work.seconds * slowdown, alloc, free);
  g_.graph().kernels[t] = work.classes.scaled(slowdown);
  g_.after(t, issue);
  g_.after(t, p.chain);
  g_.after(t, ready);
  p.chain = t;
  // Prefetches and copies pace themselves on the passes over layers, with gradients or without.
  if (kind == TaskKind::compute || kind == TaskKind::reference) p.computed.push_back(t);
  return t;
}

void StepBuilder::forward_layer(Pass& p, int l, std::optional<TaskId> start, double slowdown) {
  const FrameworkMeasurement& f = host_.framework();
  const double gathered = c_.scheme.stage == 3 ? c_.gathered_bytes() : 0.0;
  // Under full recompute the first forward runs without autograd (checkpointing keeps no graph).
  const double host = c_.config.recompute == Recompute::full ? f.layer_forward_no_grad_seconds : f.layer_forward_seconds;
  const std::optional<TaskId> ready = sharded_.fetch_layer(p, l, kForwardGather, start);
  // Under --tp-comm-overlap what the GEMMs hide slows the pass hiding it (its chunks' copies and
  // reductions share the GPU with the GEMMs, as any overlapped collective does).
  const TaskId fwd = compute(p, TaskKind::compute, "forward", l, c_.layer.forward, slowdown * tp_.compute_slowdown(false),
                             c_.activations.per_layer_stored, gathered, ready, host);
  if (c_.config.offload.activations != OffloadTarget::none) {
    // The layer's saved tensors leave for the host as its forward ends, freeing their GPU memory.
    const double stored = c_.activations.per_layer_stored;
    const TaskId out = g_.add(TaskKind::copy, "activations to host", l, g_.resources().d2h,
                              stored / c_.machine.device_to_host_bytes_per_second(), 0.0, stored);
    g_.after(out, fwd);
    if (p.offloaded.size() <= static_cast<std::size_t>(l)) p.offloaded.resize(static_cast<std::size_t>(l) + 1);
    p.offloaded[static_cast<std::size_t>(l)] = out;
  }
  parallel_syncs(p, l, false);
}

void StepBuilder::backward_layer(Pass& p, int l, std::optional<TaskId> start, double slowdown, bool last,
                                 GradientBuckets& buckets) {
  const FrameworkMeasurement& f = host_.framework();
  const bool sharded = c_.scheme.stage == 3;
  const bool full = c_.config.recompute == Recompute::full;
  const PassCost* recompute = c_.recompute_pass();
  // What recompute rebuilds of the layer (all of it under full, the rest of torchtitan's op policy)
  // lives from the recompute to the end of the layer's backward.
  const double rebuilt = c_.activations.recompute_working;
  const double freed = c_.activations.per_layer_stored + rebuilt + (sharded ? c_.gathered_bytes() : 0.0);
  const std::optional<TaskId> ready = sharded_.fetch_layer(p, l, kBackwardGather, start);
  // Offloaded activations come back a layer ahead of their backward (after the compute two tasks
  // back), each when its copy out has ended.
  std::optional<TaskId> back;
  if (c_.config.offload.activations != OffloadTarget::none && static_cast<std::size_t>(l) < p.offloaded.size()) {
    const double stored = c_.activations.per_layer_stored;
    back = g_.add(TaskKind::copy, "activations to device", l, g_.resources().h2d,
                  stored / c_.machine.host_to_device_bytes_per_second(), stored, 0.0);
    g_.after(*back, p.offloaded[static_cast<std::size_t>(l)]);
    if (p.computed.size() >= 2) g_.after(*back, p.computed[p.computed.size() - 2]);
  }
  if (recompute != nullptr) {
    // The host issues the recomputed kernels as it issued the forward's (a share of them under the op policy).
    const double issued = c_.layer.forward.kernels > 0 ? static_cast<double>(recompute->kernels) / c_.layer.forward.kernels : 1.0;
    const double host = full || recompute == &c_.every_other_matmul_recompute
                            ? (f.layer_backward_with_recompute_seconds - f.layer_backward_seconds) * std::min(1.0, issued)
                            : 0.0;
    const TaskId again = compute(p, TaskKind::recompute, "recompute", l, *recompute, slowdown * tp_.recompute_slowdown(),
                                 rebuilt, 0.0, ready, host);
    g_.after(again, back);
    if (full) {
      // The recomputed attention runs the ring again; recompute re-dispatches the layer's tokens
      // (Megatron-Core's recomputed MoE layer).
      parallel_syncs(p, l, false);
    }
  }
  // The backward's own gradients live while it runs (ActivationMemory::backward_working).
  const double working = c_.activations.backward_working;
  const TaskId bwd = compute(p, TaskKind::compute, "backward", l, c_.layer.backward, slowdown * tp_.compute_slowdown(true), working,
                             freed + working, ready, f.layer_backward_seconds);
  g_.after(bwd, back);
  parallel_syncs(p, l, true);
  if (sharded) {
    // Gathered through the step, the unsharded gradients accumulate until the last backward reduces them.
    if (!c_.in.memory.gathered_stay || last) sharded_.reduce_layer_gradients(bwd, l, last, gradient_syncs_);
  } else {
    buckets.add_layer(bwd);
  }
}

void StepBuilder::forward_pass(Pass& p, std::optional<TaskId> start) {
  for (int l = 0; l < c_.stage_layers(); ++l) forward_layer(p, l, start, c_.forward_slowdown);
}

void StepBuilder::backward_pass(Pass& p, std::optional<TaskId> start, bool last) {
  const bool sharded = c_.scheme.stage == 3;
  GradientBuckets buckets(c_, g_, last && !sharded, gradient_syncs_);
  const double slowdown = last ? c_.synced_backward_slowdown : c_.backward_slowdown;
  for (int l = c_.stage_layers() - 1; l >= 0; --l) backward_layer(p, l, start, slowdown, last, buckets);
  buckets.flush(*p.chain);
}

void StepBuilder::no_grad_pass(Pass& p, int mb) {
  const FrameworkMeasurement& f = host_.framework();
  const double gathered = c_.scheme.stage == 3 ? c_.gathered_bytes() : 0.0;
  for (int l = 0; l < c_.stage_layers(); ++l) {
    const std::optional<TaskId> ready = sharded_.fetch_layer(p, l, kNoGradGather, p.chain);
    compute(p, TaskKind::reference, "no-grad forward", l, c_.layer.forward, c_.forward_slowdown * tp_.compute_slowdown(false), 0.0,
            gathered, ready, f.layer_forward_no_grad_seconds);
    parallel_syncs(p, l, false);
  }
  // The log-probabilities come from the logits, which live only while they are read.
  const double logits = c_.activations.no_grad_logits;
  compute(p, TaskKind::reference, "no-grad head", mb, c_.head.forward, 1.0, logits, logits, {}, f.head_forward_seconds);
}

void StepBuilder::no_grad_calls(Pass& p, int mb) {
  const int calls = c_.job.no_grad_calls();
  if (calls == 0) return;
  // NeMo-Aligner keeps a full fine-tune's reference weights on the host and swaps them for the
  // policy's around the reference's forward (cpu_weight_swap), once a step: the policy's out and the
  // reference's in, then the policy's back.
  const bool swapped = !c_.stack.reference_in_loss && c_.in.memory.reference_host_bytes > 0.0 && mb == 0;
  const double weights = c_.in.memory.reference_host_bytes;
  if (swapped) {
    const TaskId in = g_.add(TaskKind::copy, "reference weights in", -1, g_.resources().h2d,
                             weights / c_.machine.host_to_device_bytes_per_second());
    const TaskId out = g_.add(TaskKind::copy, "policy weights out", -1, g_.resources().d2h,
                              weights / c_.machine.device_to_host_bytes_per_second());
    g_.after(in, p.chain);
    g_.after(out, p.chain);
    g_.after(in, out);  // the reference takes the policy's place
    p.chain = in;
  }
  for (int call = 0; call < calls; ++call) no_grad_pass(p, mb);
  if (swapped) {
    const TaskId back = g_.add(TaskKind::copy, "policy weights in", -1, g_.resources().h2d,
                               weights / c_.machine.host_to_device_bytes_per_second());
    g_.after(back, p.chain);
    p.chain = back;
  }
}

void StepBuilder::no_grad_ahead(Pass& p, int mb) {
  // A precomputed reference's pass over the data ran before training, an RL step's log-prob passes
  // before its update (with their own larger micro-batches, verl's log_prob_micro_batch_size): their
  // share of it a micro-batch is GPU time alone (one task for the stage's layers and the head, its
  // host issue hidden behind the kernels as a forward's is), holding nothing of the step's.
  if (const double share = c_.job.no_grad_ahead_share(); share > 0.0) {
    const double layers = static_cast<double>(c_.stage_layers());
    const char* what = c_.job.rl ? "rollout log-probs" : "precomputed reference";
    const char* head = c_.job.rl ? "rollout log-probs head" : "precomputed reference head";
    compute(p, TaskKind::reference, what, mb, c_.layer.forward, share * layers, 0.0, 0.0, {}, 0.0);
    compute(p, TaskKind::reference, head, mb, c_.head.forward, share, 0.0, 0.0, {}, 0.0);
  }
  if (!c_.stack.reference_in_loss) no_grad_calls(p, mb);
}

void StepBuilder::parallel_syncs(Pass& p, int l, bool backward) {
  cp_.sync(p, l, backward);
  tp_.sync(p, l, backward);
  ep_.sync(p, l, backward);
}

void StepBuilder::start_micro_batch(Pass& p, std::optional<TaskId> previous, int mb) {
  // The host reads something back from the GPU once per micro-batch (HF Trainer's NaN/inf check of
  // the loss, Megatron's broadcast of the batch sizes), so it starts issuing a micro-batch only once
  // the previous one has finished on the GPU.
  if (previous && !host_.waiting()) host_.wait_for(*previous);
  // Under pipelining this is the last stage (it also runs the head: the slowest stage).
  pipeline_.receive(p, "receive activations", mb);
}

TaskId StepBuilder::head(Pass& p, int mb, std::optional<TaskId> ready) {
  const FrameworkMeasurement& f = host_.framework();
  const double head_memory = c_.activations.logits + c_.activations.outside_layers;
  const TaskId head_fwd =
      compute(p, TaskKind::compute, "head forward", mb, c_.head.forward, 1.0, head_memory, 0.0, ready, f.head_forward_seconds);
  // TRL's loss runs the reference (and KTO's KL forwards) after the policy's forward, its
  // activations and logits held.
  if (c_.stack.reference_in_loss) no_grad_calls(p, mb);
  compute(p, TaskKind::compute, "head backward", mb, c_.head.backward, 1.0, 0.0, head_memory, {}, f.head_backward_seconds);
  pipeline_.receive(p, "send gradients", mb);
  return head_fwd;
}

TaskId StepBuilder::micro_batch(std::optional<TaskId> previous, int mb, bool last) {
  Pass p;
  p.chain = previous;
  start_micro_batch(p, previous, mb);
  no_grad_ahead(p, mb);
  forward_pass(p, previous);
  const TaskId head_fwd = head(p, mb);
  backward_pass(p, head_fwd, last);
  return *p.chain;
}

TaskId StepBuilder::paired_micro_batches(std::optional<TaskId> previous, int count) {
  // Compute that an all-to-all of the other micro-batch overlaps is slowed as under any collective.
  const double a2a = ep_.pass_seconds();
  const double forward_slowdown = c_.forward_slowdown * c_.overlap_slowdown(a2a, c_.layer.forward.seconds);
  const double backward_slowdown =
      c_.backward_slowdown * c_.overlap_slowdown(a2a, c_.layer.backward.seconds + c_.recompute_seconds());
  const int layers = c_.stage_layers();
  // Warm-up: the first forward alone.
  g_.set_micro_batch(0);
  Pass behind;  // the micro-batch whose backward runs next
  behind.chain = previous;
  start_micro_batch(behind, previous, 0);
  no_grad_ahead(behind, 0);
  forward_pass(behind, previous);
  TaskId behind_head = head(behind, 0);
  for (int mb = 1; mb < count; ++mb) {
    // Forward of mb beside the backward of mb - 1, a layer of each in turn (the first forward layer
    // beside the last backward one), both after the head of mb - 1.
    Pass ahead;
    ahead.chain = behind.chain;
    g_.set_micro_batch(mb);
    start_micro_batch(ahead, behind.chain, mb);
    no_grad_ahead(ahead, mb);
    GradientBuckets buckets(c_, g_, false, gradient_syncs_);
    for (int k = 0; k < layers; ++k) {
      g_.set_micro_batch(mb);
      forward_layer(ahead, k, ahead.chain, forward_slowdown);
      g_.set_micro_batch(mb - 1);
      backward_layer(behind, layers - 1 - k, behind_head, backward_slowdown, false, buckets);
    }
    buckets.flush(*behind.chain);
    g_.graph().micro_batch_end.push_back(*behind.chain);
    g_.set_micro_batch(mb);
    behind_head = head(ahead, mb, behind.chain);  // after both: the stream runs them in issue order
    behind = std::move(ahead);
  }
  // Cool-down: the last backward alone, which synchronises the gradients.
  g_.set_micro_batch(count - 1);
  backward_pass(behind, behind_head, true);
  g_.graph().micro_batch_end.push_back(*behind.chain);
  return *behind.chain;
}

}  // namespace preflight
