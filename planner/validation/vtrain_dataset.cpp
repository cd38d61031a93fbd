// vTrain's measured Megatron-DeepSpeed iterations on A100 SXM4 80GB (vtrain/, MICRO'24), with the
// settings of that folder's README: GPT (vocabulary 50257 padded to 50304), fp16, full activation
// recompute, the gradient all-reduce after backward (no bucketing), 1F1B, no flash attention; the
// measured all-reduce tables of the same folder for the collectives inside a node; between nodes the
// README's 800 Gb/s per node.

#include "planner/io/calibration_profile_io.hpp"
#include "planner/validation/datasets.hpp"
#include "planner/validation/published_run.hpp"
#include "planner/validation/validation_csv.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::validation {

namespace {

std::shared_ptr<const CalibrationProfile> allreduce_profile(const std::filesystem::path& dir) {
  auto p = std::make_shared<CalibrationProfile>();
  p->machine.gpu = "a100-80gb";
  p->machine.gpu_count = 8;
  p->measured_at = "2024";
  p->source = "vTrain allreduce_a100_*gpu.csv (nccl-tests, out-of-place)";
  for (int ranks = 2; ranks <= 8; ++ranks) {
    p->collectives.push_back(io::read_nccl_tests_csv(dir / "vtrain" / ("allreduce_a100_" + std::to_string(ranks) + "gpu.csv"),
                                                      CollectiveOp::all_reduce, ranks));
  }
  return p;
}

Dataset vtrain(const std::string& name, const std::filesystem::path& file, const std::filesystem::path& dir,
               const NodeSpec& node, double tolerance) {
  Dataset d{name, "vTrain (MICRO'24), " + file.filename().string(), "seconds per iteration", tolerance, {}};
  const std::shared_ptr<const CalibrationProfile> profile = allreduce_profile(dir);
  int index = 0;
  for (const CsvRow& row : read_validation_csv(file)) {
    ++index;
    const int gpus = static_cast<int>(row.integer("# GPUs"));
    Parallelism layout;
    layout.tp = static_cast<int>(row.integer("tensor parallelism"));
    layout.pp = static_cast<int>(row.integer("pipeline parallelism"));
    // Tensor parallelism over the network is not a placement preflight offers.
    if (layout.tp > node.gpus_per_node) continue;
    const std::int64_t seq = row.integer("sequence length");
    TrainingJob job;
    job.seq_len = seq;
    job.tokens = 1e9;
    job.global_batch_sequences = row.integer("global batch");
    job.precision = Precision::fp16;
    auto run = std::make_shared<PublishedRun>();
    run->workload = std::make_unique<const Workload>(
        gpt_style_model("vtrain-gpt", row.integer("hidden size"), row.integer("# layers"), row.integer("attention heads"), 50304, seq, 0.1),
        job);
    place_on(*run, node, gpus);
    run->config.framework = Framework::megatron;
    run->config.parallelism = layout;
    run->config.sharding = Sharding::ddp;
    run->config.recompute = Recompute::full;
    run->config.flash_attention = false;
    run->config.micro_batch = row.integer("micro batch");
    const std::int64_t dp = data_parallel_degree(layout, gpus);
    run->config.grad_accum = job.global_batch_sequences / (dp * run->config.micro_batch);
    run->overlap_gradient_sync = false;
    run->profile = profile;
    ValidationCase c;
    c.id = name + "-" + std::to_string(index);
    c.gpu = node.gpu.id;
    c.architecture = node.gpu.architecture;
    c.precision = job.precision;
    c.framework = Framework::megatron;
    c.regime = "tp=" + std::to_string(layout.tp) + " pp=" + std::to_string(layout.pp);
    c.model = model_shape(*run);
    c.measured_seconds = row.number("iteration time (ms)") / 1e3;
    c.predict = [run](const StepModelFit* fit) { return simulate_run(*run, fit); };
    d.cases.push_back(std::move(c));
  }
  return d;
}

const NodeSpec& a100_node(const Catalog& catalog) {
  const NodeSpec* node = catalog.find_instance("aws/p4de.24xlarge");  // 8 x A100 SXM4 80GB, NVSwitch
  if (node == nullptr) throw InvalidConfig("instance", "aws/p4de.24xlarge missing from the catalog");
  return *node;
}

}  // namespace

Dataset vtrain_single_node_dataset(const std::filesystem::path& dir, const Catalog& catalog) {
  return vtrain("vtrain-single-node", dir / "vtrain" / "ground_truth_single_node_a100.csv", dir, a100_node(catalog), 0.30);
}

Dataset vtrain_multi_node_dataset(const std::filesystem::path& dir, const Catalog& catalog) {
  NodeSpec node = a100_node(catalog);
  node.inter_node_bits_per_second = 800e9;  // the folder README's network, what vTrain's own simulator assumes
  return vtrain("vtrain-multi-node", dir / "vtrain" / "ground_truth_multi_node_a100.csv", dir, node, 0.10);
}

}  // namespace preflight::validation
