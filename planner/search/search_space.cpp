#include "planner/search/search_space.hpp"

#include <algorithm>

#include "planner/io/json_reader.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/stage_layout.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

std::vector<const NodeSpec*> searched_machines(const Scenario& s, const Catalog& catalog) {
  std::vector<const NodeSpec*> machines;
  if (!s.search.instances.empty()) {
    for (const std::string& id : s.search.instances) {
      const NodeSpec* node = find_node(s, catalog, id);
      if (std::find(machines.begin(), machines.end(), node) == machines.end()) machines.push_back(node);
    }
    return machines;
  }
  const auto wanted = [&](const NodeSpec& n) {
    return s.search.gpus.empty() ||
           std::find(s.search.gpus.begin(), s.search.gpus.end(), n.gpu.id) != s.search.gpus.end();
  };
  for (const NodeSpec& n : s.clusters) {
    if (wanted(n)) machines.push_back(&n);
  }
  // Owned machines (on-prem nodes, workstations) cost nothing per hour and would win every open
  // search; they are searched when the scenario names them, as instances or as inline clusters.
  // So are marketplace offers (one host's bid, which another renter can take away and which several
  // nodes cannot be had alike): a budget is not planned on them unless the scenario asks.
  std::vector<std::string> owned;
  for (const NodeSpec& n : catalog.instances()) {
    if (!wanted(n) || n.marketplace) continue;
    if (n.provider == "onprem" || n.provider == "local") {
      owned.push_back(n.id);
    } else {
      machines.push_back(&n);
    }
  }
  if (machines.empty()) {
    std::string ids;
    for (const std::string& id : owned) ids += (ids.empty() ? "" : ", ") + id;
    throw InputError(s.file.string(), "$.search.gpus", io::describe(nlohmann::json(s.search.gpus)),
                     "GPUs some rentable machine of the catalog has (see `preflight catalog instances`)" +
                         (ids.empty() ? std::string() : "; owned machines with them are searched when named in search.instances: " + ids));
  }
  return machines;
}

int searched_node_limit(const Scenario& s, const NodeSpec& node) {
  return std::min(s.search.max_nodes, node.node_limit());
}

namespace {

// Megatron-Core's parallelism guide recommends context parallelism for "long sequences (8K+ tokens)"
// (docs.nvidia.com/megatron-core/developer-guide/latest/user-guide/parallelism-guide.html); shorter
// ones are searched without it.
constexpr std::int64_t kContextParallelFromTokens = 8192;

// Context-parallel degrees searched for a layout: powers of two whose 2 x cp chunks divide the
// sequence and whose tp x pp x cp divides the GPUs.
std::vector<int> context_parallel_choices(const TrainingJob& job, int gpus, int tp, int pp) {
  std::vector<int> out{1};
  if (job.seq_len < kContextParallelFromTokens) return out;
  for (int cp = 2; tp * pp * cp <= gpus; cp *= 2) {
    if (gpus % (tp * pp * cp) != 0 || job.seq_len % (2 * cp) != 0) break;
    out.push_back(cp);
  }
  return out;
}

}  // namespace

std::vector<Parallelism> parallelism_choices(const ModelSpec& model, const TrainingJob& job, const NodeSpec& node, int gpus,
                                             bool tp_asked, std::optional<int> pp_asked) {
  std::vector<Parallelism> out{Parallelism{}};
  if (job.method != Method::full) return out;
  for (int tp = 1; tp <= node.gpus_per_node; tp *= 2) {
    if (model.heads % tp != 0 || model.kv_heads % tp != 0) break;
    // A link the provider does not document is read as PCIe, too slow to trust with every layer's
    // all-reduces: tensor parallelism over it only where the scenario fixes tp.
    if (tp > 1 && node.link_assumed() && !tp_asked) break;
    // Powers of two, and the depth the scenario fixes where it is not one (BLOOM's 12 stages).
    std::vector<int> depths;
    for (int pp = 1; tp * pp <= gpus && pp <= model.layers; pp *= 2) depths.push_back(pp);
    if (pp_asked && tp * *pp_asked <= gpus && *pp_asked <= model.layers &&
        std::find(depths.begin(), depths.end(), *pp_asked) == depths.end()) {
      depths.push_back(*pp_asked);
    }
    for (const int pp : depths) {
      if (gpus % (tp * pp) != 0) continue;
      for (int interleave : {1, 2}) {
        if (interleave > 1 && (pp == 1 || !interleave_fits(model.layers, pp, interleave))) continue;
        // An expert model's routed experts over ep of the data-parallel ranks (powers of two
        // dividing the experts and the data-parallel degree), on any of these layouts; beside
        // tp > 1 also whole experts (etp = 1, Megatron-Core's parallel folding), whose EP group may
        // take the tensor-parallel ranks too (ep dividing tp x dp).
        const int dp = weight_replicas({tp, pp}, gpus);  // EP ranks: data- and context-parallel ones (and tp's when folded)
        for (int ep = 1; ep <= tp * dp; ep *= 2) {
          if (ep > 1 && (!model.is_moe() || model.experts % ep != 0)) break;
          for (const bool whole_experts : {false, true}) {
            const int etp = whole_experts ? 1 : tp;
            if (whole_experts && (tp == 1 || ep == 1)) continue;  // nothing to fold
            if ((dp * (tp / etp)) % ep != 0) continue;
            // Long sequences also split over cp of the weights' replicas.
            for (const int cp : context_parallel_choices(job, gpus, tp, pp)) {
              if (tp == 1 && pp == 1 && ep == 1 && cp == 1) continue;  // plain data parallelism, first above
              // Beside tp > 1 (with sequence parallelism) Megatron-Core's --tp-comm-overlap hides the
              // tensor-parallel collectives behind the GEMMs: offered with and without (torchtitan,
              // which has no such flag, takes the layout without), where Transformer Engine runs.
              for (const bool tp_overlap : {false, true}) {
                if (tp_overlap && (tp == 1 || !has_transformer_engine(node.gpu.architecture))) continue;
                out.push_back({tp, pp, tp > 1, interleave, ep, cp, whole_experts ? 1 : 0, false, tp_overlap});
                // Megatron-Core's combined 1F1B hides the all-to-alls behind the other micro-batch's
                // compute (beside pipelining, with virtual stages only): both are offered.
                const Parallelism overlapped{tp, pp, tp > 1, interleave, ep, cp, whole_experts ? 1 : 0, true, tp_overlap};
                if (ep > 1 && pipeline_allows_expert_overlap(overlapped)) out.push_back(overlapped);
              }
            }
          }
        }
      }
    }
  }
  return out;
}

std::vector<Sharding> sharding_choices(int gpus, int nodes, const Parallelism& layout, bool fsdp2, bool megatron_fsdp) {
  if (model_parallel(layout)) {
    // One replica of the weights leaves nothing to shard, unless whole experts spread over fewer EP
    // ranks than tp (ep < tp with etp = 1) keep replicas of each expert that zero1 can shard.
    const bool expert_replicas = layout.expert_tp() != layout.tp && layout.ep < layout.tp;
    if (gpus == layout.tp * layout.pp && !expert_replicas) return {Sharding::ddp};
    std::vector<Sharding> s{Sharding::ddp, Sharding::zero1};
    if (fsdp2 || (megatron_fsdp && layout.pp == 1)) s.push_back(Sharding::fsdp_full);
    if (fsdp2 && nodes > 1 && weight_replicas(layout, gpus) > nodes) s.push_back(Sharding::fsdp_hybrid);
    return s;
  }
  if (gpus == 1) return {Sharding::ddp, Sharding::zero2, Sharding::zero3};
  std::vector<Sharding> s{Sharding::ddp,      Sharding::zero1,        Sharding::zero2, Sharding::zero3,
                          Sharding::fsdp_full, Sharding::fsdp_grad_op};
  if (nodes > 1) s.push_back(Sharding::fsdp_hybrid);
  return s;
}

std::vector<Offload> offload_choices(Sharding sharding, const NodeSpec& node, int gpus, const Parallelism& layout) {
  if (model_parallel(layout)) return {Offload{}};
  const ShardingScheme scheme = sharding_scheme(sharding);
  const bool nvme = node.local_nvme_bytes > 0.0;
  constexpr OffloadTarget none = OffloadTarget::none, cpu = OffloadTarget::cpu, disk = OffloadTarget::nvme;
  std::vector<Offload> o;
  switch (scheme.engine) {
    case Engine::pytorch_ddp:
      o = {{none, none}};
      break;
    case Engine::fsdp:
      o = {{none, none}};
      if (scheme.stage == 3) o.push_back({cpu, cpu});  // CPUOffload moves parameters and optimizer together
      break;
    case Engine::deepspeed:
      o = {{none, none}, {cpu, none}};
      if (scheme.stage == 3) {
        o.push_back({cpu, cpu});
        if (nvme) o.insert(o.end(), {{disk, none}, {disk, cpu}, {disk, disk}});
      }
      break;
  }
  if (gpus == 1 && scheme.engine != Engine::pytorch_ddp) o.erase(o.begin());
  return o;
}

std::vector<std::int64_t> micro_batch_choices(std::int64_t per_rank_batch) {
  std::vector<std::int64_t> mbs;
  for (std::int64_t mb = 1; mb <= std::min(per_rank_batch, kMaxMicroBatch); ++mb) {
    if (per_rank_batch % mb == 0) mbs.push_back(mb);
  }
  return mbs;
}

}  // namespace preflight
