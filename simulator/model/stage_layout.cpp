#include "simulator/model/stage_layout.hpp"

#include <algorithm>
#include <string>

#include "simulator/spec/errors.hpp"

namespace preflight {

void validate_parallelism(const ModelSpec& m, const Parallelism& p, int gpus, int gpus_per_node) {
  const auto fail = [](const char* field, const std::string& why) { throw InvalidConfig(field, why); };
  if (p.tp < 1 || p.pp < 1 || p.interleave < 1) fail("parallelism", "tp, pp and interleave are integers >= 1");
  if (p.tp > gpus_per_node) {
    fail("parallelism.tp", "tp = " + std::to_string(p.tp) + " exceeds the " + std::to_string(gpus_per_node) +
                               " GPUs of a node: tensor parallelism needs the intra-node link");
  }
  if (m.heads % p.tp != 0 || m.kv_heads % p.tp != 0) {
    fail("parallelism.tp", "tp = " + std::to_string(p.tp) + " must divide the " + std::to_string(m.heads) +
                               " attention heads and " + std::to_string(m.kv_heads) + " key/value heads of " + m.id);
  }
  if (p.cp < 1) fail("parallelism.cp", "cp is an integer >= 1");
  if (gpus % (p.tp * p.pp) != 0) {
    fail("parallelism", "tp x pp = " + std::to_string(p.tp * p.pp) + " must divide the " + std::to_string(gpus) +
                            " GPUs (the data-parallel degree is GPUs / (tp x pp))");
  }
  if (gpus % (p.tp * p.pp * p.cp) != 0) {
    fail("parallelism.cp", "tp x pp x cp = " + std::to_string(p.tp * p.pp * p.cp) + " must divide the " + std::to_string(gpus) +
                               " GPUs (the data-parallel degree is GPUs / (tp x pp x cp))");
  }
  if (p.pp > m.layers) {
    fail("parallelism.pp", "pp = " + std::to_string(p.pp) + " exceeds the " + std::to_string(m.layers) + " layers of " + m.id);
  }
  if (p.interleave > 1 && p.pp == 1) {
    fail("parallelism.interleave", "interleave = " + std::to_string(p.interleave) + " needs pipeline parallelism (pp > 1)");
  }
  if (p.interleave > 1 && !interleave_fits(m.layers, p.pp, p.interleave)) {
    // Megatron-Core's layouts may leave a chunk empty; preflight lays out only chunks with a layer.
    fail("parallelism.interleave", "interleave = " + std::to_string(p.interleave) + ": at least a layer per model chunk, " +
                                       std::to_string(m.layers) + " layers for pp x interleave = " + std::to_string(p.pp * p.interleave) +
                                       " chunks");
  }
  if (p.sequence_parallel && p.tp == 1) fail("parallelism.sequence_parallel", "sequence parallelism needs tp > 1");
  if (p.ep < 1) fail("parallelism.ep", "ep is an integer >= 1");
  if (p.etp != 0 && p.etp != 1 && p.etp != p.tp) {
    fail("parallelism.etp", "etp = " + std::to_string(p.etp) + ": experts split over the tp ranks (etp = tp = " +
                                std::to_string(p.tp) + ", the default) or kept whole (etp = 1)");
  }
  if (p.expert_tp() != p.tp) {
    if (!m.is_moe()) fail("parallelism.etp", "expert tensor parallelism needs a model with experts; " + m.id + " has none");
    if (!p.sequence_parallel) {
      fail("parallelism.etp", "etp = 1 beside tp = " + std::to_string(p.tp) +
                                  " needs sequence_parallel: each tensor-parallel rank dispatches its own slice of the tokens");
    }
  }
  if (p.ep_comm_overlap && p.ep == 1) {
    fail("parallelism.ep_comm_overlap", "overlapping the expert all-to-alls needs expert parallelism (ep > 1)");
  }
  if (p.ep_comm_overlap && !pipeline_allows_expert_overlap(p)) {
    fail("parallelism.ep_comm_overlap", "Megatron-Core overlaps the expert all-to-alls beside pipelining only with "
                                        "virtual stages: interleave > 1 with pp = " + std::to_string(p.pp));
  }
  if (p.tp_comm_overlap && !p.sequence_parallel) {
    // Megatron-LM's arguments.py: "Tensor parallel communication/GEMM overlap can happen only when
    // sequence parallelism is enabled".
    fail("parallelism.tp_comm_overlap", "overlapping the tensor-parallel collectives with the GEMMs (Transformer Engine's "
                                        "userbuffers) needs sequence_parallel, and so tp > 1");
  }
  if (p.ep > 1) {
    if (!m.is_moe()) fail("parallelism.ep", "expert parallelism needs a model with experts; " + m.id + " has none");
    const int dp = weight_replicas(p, gpus);
    // Megatron-Core builds the expert groups (etp x ep x expert-dp) from the tp x dp ranks of a stage.
    const int ranks = dp * (p.tp / p.expert_tp());
    if (m.experts % p.ep != 0 || ranks % p.ep != 0) {
      const std::string from = p.expert_tp() == p.tp ? "the data-parallel degree " + std::to_string(dp) +
                                                            " (Megatron-Core takes the expert-parallel ranks from the data-parallel ones; etp = 1 folds the tensor-parallel ones in too)"
                                                      : "tp x dp = " + std::to_string(ranks) +
                                                            " (with etp = 1 Megatron-Core folds the tensor-parallel ranks into the expert-parallel group)";
      fail("parallelism.ep", "ep = " + std::to_string(p.ep) + " must divide the " + std::to_string(m.experts) +
                                 " routed experts of " + m.id + " and " + from);
    }
  }
}

StageLayout stage_layout(const Workload& w, const Parallelism& p) {
  const ModelSpec& m = w.model();
  const ParameterCount& n = w.count();
  StageLayout s;
  s.tp = p.tp;
  s.pp = p.pp;
  s.ep = p.ep;
  s.cp = p.cp;
  s.interleave = p.interleave;
  s.layers_per_stage = (m.layers + p.pp - 1) / p.pp;
  const double layers = static_cast<double>(s.layers_per_stage) * static_cast<double>(n.per_layer());
  const double first = static_cast<double>(n.embedding + n.position_embedding);
  // The last stage computes logits: with tied embeddings from its own copy of the table.
  const double last = static_cast<double>(n.final_norm + n.lm_head + (m.tied_embeddings ? n.embedding : 0));
  const double stage = p.pp == 1 ? static_cast<double>(n.total()) : layers + std::max(first, last);
  // The routed experts of the stage's expert layers, of which a GPU holds 1 / ep.
  const double stage_expert_layers =
      p.pp == 1 ? static_cast<double>(m.expert_layers()) : static_cast<double>(std::min(s.layers_per_stage, m.expert_layers()));
  const double routed = stage_expert_layers * static_cast<double>(n.routed_mlp_per_layer);
  // A GPU holds a tp-th of the rest and an (ep x etp)-th of the routed experts.
  const double dense = (stage - routed) / static_cast<double>(p.tp);
  const double experts = routed / static_cast<double>(p.ep) / static_cast<double>(p.expert_tp());
  const double local = dense + experts;
  s.param_share = local / static_cast<double>(n.total());
  s.expert_share = local > 0.0 ? experts / local : 0.0;
  const double pp = static_cast<double>(p.pp);
  // The fill and drain pass through the largest chunk of each stage.
  s.bubble_micro_batches =
      (pp - 1.0) * static_cast<double>(chunk_layers(s.layers_per_stage, p.interleave, 0)) / static_cast<double>(s.layers_per_stage);
  return s;
}

std::vector<std::int64_t> pipeline_chunk_layers(std::int64_t layers, int pp, int interleave) {
  std::vector<std::int64_t> chunks(static_cast<std::size_t>(pp) * static_cast<std::size_t>(interleave));
  for (int rank = 0; rank < pp; ++rank) {
    const std::int64_t stage = layers / pp + (rank < layers % pp ? 1 : 0);
    for (int v = 0; v < interleave; ++v) {
      chunks[static_cast<std::size_t>(v) * static_cast<std::size_t>(pp) + static_cast<std::size_t>(rank)] = chunk_layers(stage, interleave, v);
    }
  }
  return chunks;
}

ParameterFootprint stage_footprint(ParameterFootprint f, const StageLayout& s) {
  f.trainable *= s.param_share;
  f.expert_trainable = f.trainable * s.expert_share;
  f.frozen_bytes *= s.param_share;
  f.load_bytes_per_rank *= s.param_share;
  f.largest_module /= s.tp;
  f.layer_params /= s.tp;
  f.root_params /= s.tp;
  return f;
}

std::int64_t microbatch_group_size(Framework framework, int pp, std::int64_t micro_batches) {
  if (micro_batches < 1 || pp < 1) return 0;
  if (framework == Framework::torchtitan) {
    const std::int64_t rounds = std::max<std::int64_t>(1, micro_batches / pp);
    return micro_batches % rounds == 0 ? micro_batches / rounds : 0;
  }
  // N = M always qualifies, so this ends by M (in a few dozen steps in practice).
  for (std::int64_t n = pp; n <= micro_batches; ++n) {
    const std::int64_t last = micro_batches % n;
    if (last == 0 || last >= pp) return n;
  }
  return 0;
}

double interleaved_in_flight_micro_batches(std::int64_t stage_layers, int pp, int interleave, std::int64_t group) {
  const std::int64_t v = interleave;
  const std::int64_t held = 2 * (pp - 1) + (v - 1) * group + 1;  // chunk forwards
  // Forward k runs chunk (k / group) mod interleave: whole cycles hold every chunk `group` times.
  const std::int64_t cycles = held / (group * v), rest = held % (group * v);
  double layers = static_cast<double>(cycles * group * stage_layers);
  for (std::int64_t j = 0; j < v; ++j) {
    layers += static_cast<double>(std::clamp<std::int64_t>(rest - j * group, 0, group) * chunk_layers(stage_layers, interleave, j));
  }
  return layers / static_cast<double>(stage_layers);
}

double in_flight_micro_batches(const StageLayout& s, Framework framework, std::int64_t micro_batches) {
  const std::int64_t group = s.interleave > 1 ? microbatch_group_size(framework, s.pp, micro_batches) : 0;  // per candidate: 1F1B skips it
  const double held =
      group > 0 ? interleaved_in_flight_micro_batches(s.layers_per_stage, s.pp, s.interleave, group) : static_cast<double>(s.pp);
  return std::min(held, static_cast<double>(micro_batches));
}

std::string schedule_rule(Framework framework, int pp) {
  const std::string stages = std::to_string(pp);
  return framework == Framework::torchtitan
             ? "micro-batches M that max(1, M / " + stages + ") rounds divide (PyTorch's interleaved 1F1B)"
             : "at least " + stages + " micro-batches (pp; Megatron-Core's interleaved schedule runs them in groups of at least pp)";
}

}  // namespace preflight
