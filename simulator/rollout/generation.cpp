#include "simulator/rollout/generation.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <vector>

#include "simulator/rollout/response_lengths.hpp"
#include "simulator/rollout/rollout_defaults.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

constexpr double kWeightBytes = 2.0;  // the engines serve 16-bit weights
constexpr double kCacheBytes = 2.0;   // and keep 16-bit keys and values

// What one decode step of `running` sequences holding `context` cached tokens in all costs an engine's GPU.
class DecodeCost {
 public:
  DecodeCost(const Workload& w, const Machine& m, int tp, RolloutEngine engine) {
    const ModelSpec& model = w.model();
    const ParameterCount& c = w.count();
    const double gpus = static_cast<double>(tp);
    // Every weight but the embedding table's rows is read once a step (the lm_head included: a tied
    // table is read whole as the head).
    const double routed = static_cast<double>(c.routed_mlp_per_layer) * static_cast<double>(model.expert_layers());
    const double unread = c.lm_head > 0 ? static_cast<double>(c.embedding) : 0.0;
    dense_bytes_ = (static_cast<double>(c.total()) - unread - routed) * kWeightBytes / gpus;
    expert_bytes_ = model.is_moe() ? static_cast<double>(c.routed_mlp_per_layer) / static_cast<double>(model.experts) *
                                         static_cast<double>(model.expert_layers()) * kWeightBytes / gpus
                                   : 0.0;
    experts_ = static_cast<double>(model.experts);
    routed_share_ = model.is_moe() ? static_cast<double>(model.routed_per_token()) / experts_ : 0.0;
    flops_per_token_ = 2.0 * (static_cast<double>(c.active_per_token()) - unread) / gpus;
    // Scores and values against each cached token: 2 x 2 FLOPs per query width per layer.
    attention_flops_per_context_ = 4.0 * static_cast<double>(model.q_dim()) * static_cast<double>(model.layers) / gpus;
    kv_bytes_ = kv_bytes_per_token(model, tp);
    const DeviceRates& r = m.rates();
    bandwidth_ = r.memory_bytes_per_second;
    flops_ = r.half_matmul.flops_per_second;
    overhead_ = engine == RolloutEngine::transformers
                    ? rollout_defaults::kEagerLayerStepSeconds * static_cast<double>(model.layers)
                    : rollout_defaults::kEngineStepSeconds;
    if (tp > 1) {
      allreduces_ = 2.0 * static_cast<double>(model.layers);
      link_ = m.node().intra_node_bytes_per_second_per_gpu;
      hidden_bytes_ = static_cast<double>(model.hidden) * kWeightBytes;
    }
  }

  double weights_read(double running) const {
    if (experts_ <= 1.0) return dense_bytes_;
    // The distinct experts a step's tokens reach, each token choosing top-k of them uniformly.
    const double reached = experts_ * (1.0 - std::pow(1.0 - routed_share_, running));
    return dense_bytes_ + expert_bytes_ * reached;
  }
  struct Span {
    double seconds = 0.0;
    double flops = 0.0;
  };
  // `steps` decode steps of `running` sequences whose cached tokens number `context` before the first
  // and grow by `running` a step: in closed form, the read and the compute each linear in the step,
  // the longer of the two taken step by step (they cross at most once).
  Span span(double running, double context, std::int64_t steps) const {
    Span out;
    if (steps <= 0) return out;
    const double n = static_cast<double>(steps);
    // Over s = 1..n: the cached tokens at step s are context + running x s.
    const auto sum_linear = [&](double a, double b, double from, double to) {  // sum of a + b s over s in [from, to]
      if (to < from) return 0.0;
      const double count = to - from + 1.0;
      return a * count + b * (from + to) * count / 2.0;
    };
    const double m0 = (weights_read(running) + context * kv_bytes_) / bandwidth_, m1 = running * kv_bytes_ / bandwidth_;
    const double c0 = (running * flops_per_token_ + context * attention_flops_per_context_) / flops_;
    const double c1 = running * attention_flops_per_context_ / flops_;
    // Where the read is the longer: m0 - c0 + (m1 - c1) s >= 0.
    const double d0 = m0 - c0, d1 = m1 - c1;
    double memory_from = 1.0, memory_to = n;  // the steps the read bounds
    if (d1 == 0.0) {
      if (d0 < 0.0) memory_to = 0.0;
    } else {
      const double cross = -d0 / d1;
      if (d1 > 0.0) memory_from = std::max(1.0, std::ceil(cross));
      else memory_to = std::min(n, std::floor(cross));
    }
    memory_from = std::min(memory_from, n + 1.0);
    memory_to = std::max(memory_to, 0.0);
    const double memory = sum_linear(m0, m1, memory_from, memory_to);
    const double compute = memory_to >= memory_from ? sum_linear(c0, c1, 1.0, memory_from - 1.0) + sum_linear(c0, c1, memory_to + 1.0, n)
                                                    : sum_linear(c0, c1, 1.0, n);
    const double comm = allreduces_ * (rollout_defaults::kDecodeAllReduceSeconds + (link_ > 0.0 ? running * hidden_bytes_ / link_ : 0.0));
    out.seconds = memory + compute + n * (overhead_ + comm);
    out.flops = sum_linear(running * flops_per_token_ + context * attention_flops_per_context_, running * attention_flops_per_context_, 1.0, n);
    return out;
  }
  // A prefill of `tokens` prompt tokens, each attending to `attended` earlier ones on average: its
  // FLOPs, at the matmul rate (prefill is compute-bound).
  double prefill_flops(double tokens, double attended) const { return tokens * (flops_per_token_ + attended * attention_flops_per_context_); }
  double prefill_seconds(double tokens, double attended) const { return prefill_flops(tokens, attended) / flops_; }
  double kv_bytes() const { return kv_bytes_; }

 private:
  double dense_bytes_ = 0.0, expert_bytes_ = 0.0, experts_ = 1.0, routed_share_ = 0.0;
  double flops_per_token_ = 0.0, attention_flops_per_context_ = 0.0, kv_bytes_ = 0.0;
  double bandwidth_ = 0.0, flops_ = 0.0, overhead_ = 0.0;
  double allreduces_ = 0.0, link_ = 0.0, hidden_bytes_ = 0.0;
};

// Rollouts of one prompt arrive together; their lengths are spread over the quantiles in a fixed
// order that is not sorted (a stride coprime with the count), so every stretch of the queue mixes
// short and long responses as real ones do.
std::vector<std::int64_t> arrival_order(std::vector<std::int64_t> lengths) {
  const std::size_t n = lengths.size();
  if (n < 3) return lengths;
  std::size_t stride = static_cast<std::size_t>(static_cast<double>(n) * 0.6180339887) | 1U;
  while (std::gcd(stride, n) != 1) stride += 2;
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = lengths[(i * stride) % n];
  // The step's longest response is not the last to arrive: it starts with the first batch (so the
  // tail is its length, not its length after a queue's wait).
  std::swap(out.front(), *std::max_element(out.begin(), out.end()));
  return out;
}

struct Decode {
  double seconds = 0.0, tail = 0.0, flops = 0.0, peak_context = 0.0;
  std::int64_t steps = 0, most_running = 0;
};

// vLLM and SGLang: continuous batching into at most `slots` sequences and `capacity` cached tokens.
Decode continuous(const DecodeCost& cost, const std::vector<std::int64_t>& lengths, std::int64_t prompt, std::int64_t slots,
                  double capacity) {
  Decode d;
  // (the step a sequence ends at, its final context) of the running ones.
  using Running = std::pair<std::int64_t, std::int64_t>;
  std::priority_queue<Running, std::vector<Running>, std::greater<>> running;
  std::size_t next = 0;
  double reserved = 0.0;  // final contexts of the running sequences
  double context = 0.0;   // their current contexts
  std::int64_t step = 0;
  while (next < lengths.size() || !running.empty()) {
    while (next < lengths.size() && static_cast<std::int64_t>(running.size()) < slots &&
           reserved + static_cast<double>(prompt + lengths[next]) <= capacity) {
      running.emplace(step + lengths[next], prompt + lengths[next]);
      reserved += static_cast<double>(prompt + lengths[next]);
      context += static_cast<double>(prompt);
      ++next;
    }
    const double b = static_cast<double>(running.size());
    d.most_running = std::max<std::int64_t>(d.most_running, static_cast<std::int64_t>(running.size()));
    // Steps until the next sequence ends: the batch is constant meanwhile and its context grows by b a step.
    const std::int64_t span = running.top().first - step;
    const DecodeCost::Span t = cost.span(b, context, span);
    context += b * static_cast<double>(span);
    d.seconds += t.seconds;
    if (2 * running.size() < static_cast<std::size_t>(std::min<std::int64_t>(slots, static_cast<std::int64_t>(lengths.size())))) d.tail += t.seconds;
    d.flops += t.flops;
    d.peak_context = std::max(d.peak_context, reserved);
    step += span;
    d.steps = step;
    while (!running.empty() && running.top().first == step) {
      reserved -= static_cast<double>(running.top().second);
      context -= static_cast<double>(running.top().second);
      running.pop();
    }
  }
  return d;
}

// Hugging Face generate: fixed batches of as many sequences as the cache holds at their padded
// length, each run until its longest response ends.
Decode padded_batches(const DecodeCost& cost, const std::vector<std::int64_t>& lengths, std::int64_t prompt, std::int64_t cap,
                      double capacity) {
  Decode d;
  const std::int64_t batch = std::max<std::int64_t>(1, static_cast<std::int64_t>(capacity / static_cast<double>(prompt + cap)));
  for (std::size_t first = 0; first < lengths.size(); first += static_cast<std::size_t>(batch)) {
    const std::size_t last = std::min(lengths.size(), first + static_cast<std::size_t>(batch));
    const double b = static_cast<double>(last - first);
    const std::int64_t longest = *std::max_element(lengths.begin() + static_cast<std::ptrdiff_t>(first), lengths.begin() + static_cast<std::ptrdiff_t>(last));
    d.most_running = std::max<std::int64_t>(d.most_running, static_cast<std::int64_t>(last - first));
    d.peak_context = std::max(d.peak_context, b * static_cast<double>(prompt + longest));
    const DecodeCost::Span t = cost.span(b, b * static_cast<double>(prompt), longest);
    d.seconds += t.seconds;
    d.flops += t.flops;
    d.steps += longest;
  }
  return d;
}

}  // namespace

double kv_bytes_per_token(const ModelSpec& model, int tp) {
  const double layers = static_cast<double>(model.layers);
  if (model.is_mla()) return layers * static_cast<double>(model.mla.kv_rank + model.mla.rope_dim) * kCacheBytes;
  const double heads = std::ceil(static_cast<double>(model.kv_heads) / static_cast<double>(tp));
  return layers * heads * static_cast<double>(model.head_dim + model.v_head_dim()) * kCacheBytes;
}

Generation simulate_generation(const GenerationInputs& in) {
  const Workload& w = *in.workload;
  const RlSpec& rl = *w.job().rl;
  const ModelSpec& model = w.model();
  const NodeSpec& node = in.machine->node();
  if (in.tp < 1 || in.tp > node.gpus_per_node || model.heads % in.tp != 0) {
    throw InvalidConfig("rollout.tp", std::to_string(in.tp) + ": the generator's tensor parallelism must divide the " +
                                          std::to_string(model.heads) + " attention heads and fit in a node of " +
                                          std::to_string(node.gpus_per_node) + " GPUs");
  }
  if (rl.engine == RolloutEngine::transformers && in.tp > 1) {
    throw InvalidConfig("rollout.tp", "1 (Hugging Face generate runs the policy on one GPU)");
  }
  if (in.gpus % in.tp != 0) {
    throw InvalidConfig("rollout.tp", std::to_string(in.tp) + " must divide the " + std::to_string(in.gpus) + " generating GPUs");
  }
  Generation g;
  const DecodeCost cost(w, *in.machine, in.tp, rl.engine);
  g.weights_bytes_per_gpu = static_cast<double>(w.count().total()) * kWeightBytes / static_cast<double>(in.tp);
  g.kv_pool_bytes_per_gpu = in.engine_bytes_per_gpu - g.weights_bytes_per_gpu - rollout_defaults::kEngineWorkspaceBytes;
  const double capacity = std::max(0.0, g.kv_pool_bytes_per_gpu) / cost.kv_bytes();  // tokens
  const std::int64_t longest = rl.prompt_len + rl.response_max;
  if (capacity < static_cast<double>(longest)) {
    g.why_not = "the generator's KV cache holds " + std::to_string(static_cast<std::int64_t>(capacity)) +
                " tokens a GPU beside its weights, less than one response (" + std::to_string(longest) + ")";
    g.kv_pool_bytes_per_gpu = std::max(0.0, g.kv_pool_bytes_per_gpu);
    return g;
  }
  g.fits = true;
  const std::int64_t engines = in.gpus / in.tp;
  const std::int64_t sequences = rl.sequences();
  // The slowest engine: the most prompts any engine gets (whole groups of rollouts), with the step's longest response.
  const std::int64_t prompts = (rl.prompts_per_step + engines - 1) / engines;
  g.sequences_per_engine = std::min(sequences, prompts * rl.rollouts_per_prompt);
  const ResponseLengths lengths(rl.response_mean, rl.response_max);
  const std::vector<std::int64_t> order = arrival_order(lengths.sample(g.sequences_per_engine, sequences));

  const bool shared_prefix = rl.engine != RolloutEngine::transformers;
  const double prefilled = static_cast<double>(shared_prefix ? prompts : g.sequences_per_engine) * static_cast<double>(rl.prompt_len);
  const double attended = 0.5 * static_cast<double>(rl.prompt_len);
  g.prefill_seconds = cost.prefill_seconds(prefilled, attended);
  const Decode d = rl.engine == RolloutEngine::transformers
                       ? padded_batches(cost, order, rl.prompt_len, rl.response_max, capacity)
                       : continuous(cost, order, rl.prompt_len, rollout_defaults::kEngineMaxSequences, capacity);
  g.decode_seconds = d.seconds;
  g.tail_seconds = d.tail;
  g.decode_steps = d.steps;
  g.most_running = d.most_running;
  g.seconds = g.prefill_seconds + g.decode_seconds;
  g.kv_peak_bytes_per_gpu = d.peak_context * cost.kv_bytes();
  g.peak_bytes_per_gpu = g.weights_bytes_per_gpu + rollout_defaults::kEngineWorkspaceBytes + g.kv_peak_bytes_per_gpu;
  g.model_flops_per_gpu = cost.prefill_flops(prefilled, attended) + d.flops;
  // Every engine's work: the slowest one's over its share of the step's responses.
  g.step_model_flops = g.model_flops_per_gpu * static_cast<double>(in.tp) * static_cast<double>(sequences) /
                       static_cast<double>(g.sequences_per_engine);
  return g;
}

}  // namespace preflight
