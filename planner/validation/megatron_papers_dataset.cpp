// Megatron-LM on Selene (DGX A100 80GB: NVSwitch inside a node, 8 x 200 Gb/s HDR InfiniBand between
// nodes), the analytical collectives over the catalog's figures for that node, fp16, no flash
// attention (2021-22 Megatron), the data-parallel all-reduce after backward:
// - Korthikanti et al. 2022 (korthikanti_2022.csv): iteration times of 22B to 1T with full recompute,
//   and with selective recompute + sequence parallelism (Table 5);
// - Narayanan et al. 2021 Table 1 (narayanan_2021_table1.csv): achieved TFLOP/s per GPU from 1.7B on
//   32 GPUs to 1T on 3072, micro-batch 1 (Megatron-LM's GPT-3 example scripts), plain 1F1B.

#include <map>

#include "planner/validation/datasets.hpp"
#include "planner/validation/published_run.hpp"
#include "planner/validation/validation_csv.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::validation {

namespace {

const NodeSpec& selene(const Catalog& catalog) {
  const NodeSpec* node = catalog.find_instance("onprem/dgx-a100-80gb");
  if (node == nullptr) throw InvalidConfig("instance", "onprem/dgx-a100-80gb missing from the catalog");
  return *node;
}

std::shared_ptr<PublishedRun> megatron_run(const ModelSpec& model, std::int64_t global_batch, int gpus, const NodeSpec& node,
                                           const Parallelism& layout, std::int64_t micro_batch, Recompute recompute) {
  TrainingJob job;
  job.seq_len = model.max_seq_len;
  job.tokens = 1e9;
  job.global_batch_sequences = global_batch;
  job.precision = Precision::fp16;
  auto run = std::make_shared<PublishedRun>();
  run->workload = std::make_unique<const Workload>(model, job);
  place_on(*run, node, gpus);
  run->config.framework = Framework::megatron;
  run->config.parallelism = layout;
  run->config.sharding = Sharding::ddp;
  run->config.recompute = recompute;
  run->config.flash_attention = false;
  run->config.micro_batch = micro_batch;
  run->config.grad_accum = global_batch / (data_parallel_degree(layout, gpus) * micro_batch);
  run->overlap_gradient_sync = false;
  return run;
}

ValidationCase megatron_case(std::string id, std::string regime, const NodeSpec& node, double measured,
                             std::shared_ptr<PublishedRun> run) {
  ValidationCase c;
  c.id = std::move(id);
  c.gpu = node.gpu.id;
  c.architecture = node.gpu.architecture;
  c.precision = Precision::fp16;
  c.framework = Framework::megatron;
  c.regime = std::move(regime);
  c.model = model_shape(*run);
  c.measured_seconds = measured;
  c.predict = [run](const StepModelFit* fit) { return simulate_run(*run, fit); };
  return c;
}

}  // namespace

Dataset korthikanti_dataset(const std::filesystem::path& dir, const Catalog& catalog) {
  Dataset d{"korthikanti-2022", "Korthikanti et al. 2022, Table 5 (korthikanti_2022.csv)", "seconds per iteration", 0.10, {}};
  const NodeSpec& node = selene(catalog);
  for (const CsvRow& row : read_validation_csv(dir / "korthikanti_2022.csv")) {
    ModelSpec model = gpt_style_model(row.text("model"), row.integer("hidden"), row.integer("layers"), row.integer("heads"),
                                      51200, row.integer("seq"), 0.1);
    for (const bool selective_sp : {false, true}) {
      Parallelism layout;
      layout.tp = static_cast<int>(row.integer("tp"));
      layout.pp = static_cast<int>(row.integer("pp"));
      layout.interleave = static_cast<int>(row.integer("interleave"));
      layout.sequence_parallel = selective_sp;
      const std::string setting = selective_sp ? "selective+SP" : "full recompute";
      d.cases.push_back(megatron_case(
          row.text("model") + " " + setting, setting, node,
          row.number(selective_sp ? "iter_s_selective_seqpar" : "iter_s_full_recompute"),
          megatron_run(model, row.integer("global_batch"), static_cast<int>(row.integer("gpus")), node, layout,
                       row.integer("micro_batch"), selective_sp ? Recompute::selective : Recompute::full)));
    }
  }
  return d;
}

Dataset narayanan_dataset(const std::filesystem::path& dir, const Catalog& catalog) {
  Dataset d{"narayanan-2021", "Narayanan et al. 2021, Table 1 (narayanan_2021_table1.csv)", "seconds per iteration", 0.10, {}};
  // Table 1's attention heads, by model.
  const std::map<std::string, std::int64_t> heads{{"1.7B", 24}, {"3.6B", 32}, {"7.5B", 32},  {"18B", 48},   {"39B", 64},
                                                  {"76B", 80},  {"145B", 96}, {"310B", 128}, {"530B", 128}, {"1T", 160}};
  const NodeSpec& node = selene(catalog);
  for (const CsvRow& row : read_validation_csv(dir / "narayanan_2021_table1.csv")) {
    const auto h = heads.find(row.text("model"));
    if (h == heads.end()) throw InvalidConfig("model", "a model of Narayanan's Table 1, not " + row.text("model"));
    const std::int64_t hidden = row.integer("hidden"), layers = row.integer("layers");
    const ModelSpec model = gpt_style_model(row.text("model"), hidden, layers, h->second, 51200, 2048, 0.1);
    const int mp = static_cast<int>(row.integer("model_parallel"));
    Parallelism layout;
    layout.tp = std::min(8, mp);
    layout.pp = mp / layout.tp;
    const int gpus = static_cast<int>(row.integer("gpus"));
    const std::int64_t batch = row.integer("global_batch");
    // The paper's FLOP count (appendix): 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) per iteration, with
    // recompute's extra forward; its TFLOP/s per GPU become seconds per iteration.
    const double B = static_cast<double>(batch), s = 2048.0, L = static_cast<double>(layers), H = static_cast<double>(hidden);
    const double flops = 96.0 * B * s * L * H * H * (1.0 + s / (6.0 * H) + 51200.0 / (16.0 * L * H));
    const double measured = flops / (row.number("tflops_per_gpu") * 1e12 * gpus);
    d.cases.push_back(megatron_case(row.text("model"), layout.pp > 1 ? "pipelined" : "unpipelined", node, measured,
                                    megatron_run(model, batch, gpus, node, layout, 1, Recompute::full)));
  }
  return d;
}

}  // namespace preflight::validation
