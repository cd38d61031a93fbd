#include "planner/scenario/fixed_choices.hpp"

namespace preflight {

namespace {

template <class T>
bool allows(const std::optional<T>& fixed, const T& value) {
  return !fixed || *fixed == value;
}

template <class T>
void describe(std::string& out, const char* what, const std::optional<T>& v) {
  if (!v) return;
  out += out.empty() ? "" : ", ";
  out += what;
  out += ' ';
  if constexpr (std::is_same_v<T, bool>) {
    out += *v ? "on" : "off";
  } else if constexpr (std::is_arithmetic_v<T>) {
    out += std::to_string(*v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    out += *v;
  } else {
    out += to_string(*v);
  }
}

}  // namespace

bool FixedChoices::allows_group(int n, int g, const Parallelism& layout, Sharding s, Framework f) const {
  return allows(nodes, n) && allows(gpus, g) && allows(tp, layout.tp) && allows(pp, layout.pp) && allows(interleave, layout.interleave) &&
         allows(ep, layout.ep) && allows(cp, layout.cp) && allows(etp, layout.expert_tp()) &&
         allows(sequence_parallel, layout.sequence_parallel) &&
         allows(ep_comm_overlap, layout.ep_comm_overlap) && allows(tp_comm_overlap, layout.tp_comm_overlap) && allows(sharding, s) && allows(framework, f);
}

bool FixedChoices::allows_batch(std::int64_t mb, std::int64_t accum) const {
  return allows(micro_batch, mb) && allows(grad_accum, accum);
}

bool FixedChoices::allows_variant(const Offload& offload, Recompute r) const {
  return allows(offload_optimizer, offload.optimizer) && allows(offload_params, offload.params) && allows(recompute, r);
}

void FixedChoices::apply(StrategyConfig& c) const {
  if (flash_attention) c.flash_attention = *flash_attention;
  if (zero_init) c.zero_init = *zero_init;
}

std::string FixedChoices::text() const {
  std::string out;
  describe(out, "instance", instance);
  describe(out, "nodes", nodes);
  describe(out, "GPUs", gpus);
  describe(out, "GPUs per node", gpus_per_node);
  describe(out, "framework", framework);
  describe(out, "tp", tp);
  describe(out, "pp", pp);
  describe(out, "sequence parallel", sequence_parallel);
  describe(out, "interleave", interleave);
  describe(out, "ep", ep);
  describe(out, "cp", cp);
  describe(out, "etp", etp);
  describe(out, "expert all-to-all overlap", ep_comm_overlap);
  describe(out, "tensor-parallel overlap", tp_comm_overlap);
  describe(out, "sharding", sharding);
  describe(out, "optimizer offload", offload_optimizer);
  describe(out, "parameter offload", offload_params);
  describe(out, "activation checkpointing", recompute);
  describe(out, "micro-batch", micro_batch);
  describe(out, "accumulation", grad_accum);
  describe(out, "flash attention", flash_attention);
  describe(out, "zero init", zero_init);
  describe(out, "pricing", pricing);
  describe(out, "region", region);
  return out;
}

bool FixedChoices::empty() const { return text().empty(); }

FixedChoices read_fixed_choices(io::ObjectReader& r) {
  FixedChoices f;
  f.instance = r.optional_string("instance");
  f.pricing = r.optional_enum("pricing", kPricingNames);
  f.region = r.optional_string("region");
  if (const auto n = r.optional_integer("nodes", 1, 100'000)) f.nodes = static_cast<int>(*n);
  if (const auto n = r.optional_integer("gpus", 1, 10'000'000)) f.gpus = static_cast<int>(*n);
  if (const auto n = r.optional_integer("gpus_per_node", 1, 64)) f.gpus_per_node = static_cast<int>(*n);
  f.framework = r.optional_enum("framework", kFrameworkNames);
  if (std::optional<io::ObjectReader> p = r.optional_object("parallelism")) {
    if (const auto v = p->optional_integer("tp", 1, 64)) f.tp = static_cast<int>(*v);
    if (const auto v = p->optional_integer("pp", 1, 1024)) f.pp = static_cast<int>(*v);
    if (const auto v = p->optional_integer("interleave", 1, 64)) f.interleave = static_cast<int>(*v);
    if (const auto v = p->optional_integer("ep", 1, 4096)) f.ep = static_cast<int>(*v);
    if (const auto v = p->optional_integer("cp", 1, 1024)) f.cp = static_cast<int>(*v);
    if (const auto v = p->optional_integer("etp", 1, 64)) f.etp = static_cast<int>(*v);
    f.sequence_parallel = p->optional_boolean("sequence_parallel");
    f.ep_comm_overlap = p->optional_boolean("ep_comm_overlap");
    f.tp_comm_overlap = p->optional_boolean("tp_comm_overlap");
    p->finish();
  }
  f.sharding = r.optional_enum("sharding", kShardingNames);
  if (std::optional<io::ObjectReader> o = r.optional_object("offload")) {
    f.offload_optimizer = o->optional_enum("optimizer", kOffloadTargetNames);
    f.offload_params = o->optional_enum("params", kOffloadTargetNames);
    o->finish();
  }
  f.recompute = r.optional_enum("activation_checkpointing", kRecomputeNames);
  f.micro_batch = r.optional_integer("micro_batch", 1, 1'000'000);
  f.grad_accum = r.optional_integer("grad_accum", 1, 1'000'000);
  f.flash_attention = r.optional_boolean("flash_attention");
  f.zero_init = r.optional_boolean("zero_init");
  r.finish();
  return f;
}

}  // namespace preflight
