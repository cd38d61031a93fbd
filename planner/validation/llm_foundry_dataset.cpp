// MosaicML llm-foundry's measured MPT training throughput (llm_foundry/measured_throughput.csv, the
// README tables "MPT Training Benchmarks"): Composer + PyTorch FSDP FULL_SHARD, the Triton flash
// attention the tables name, activation checkpointing as published. Every row really ran, so every
// row must fit.

#include <array>
#include <map>

#include "planner/validation/datasets.hpp"
#include "planner/validation/published_run.hpp"
#include "planner/validation/validation_csv.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::validation {

namespace {

// The MPT shapes of the file's header (scripts/train/yamls/pretrain/mpt-*.yaml): d_model, n_layers,
// n_heads; GPT-2 form with vocabulary 50368 and no dropout.
ModelSpec mpt(const CsvRow& row, std::int64_t seq) {
  static const std::map<std::string, std::array<std::int64_t, 3>> kShapes{
      {"mpt-125m", {768, 12, 12}},  {"mpt-350m", {1024, 24, 16}}, {"mpt-760m", {1536, 24, 12}},
      {"mpt-1b", {2048, 24, 16}},   {"mpt-3b", {2560, 32, 20}},   {"mpt-7b", {4096, 32, 32}},
      {"mpt-13b", {5120, 40, 40}},  {"mpt-30b", {7168, 48, 56}},  {"mpt-70b", {8192, 80, 64}}};
  const std::string& name = row.text("model");
  const auto it = kShapes.find(name);
  if (it == kShapes.end()) throw InvalidConfig("model", "an MPT size of the file's header, not " + name);
  const auto& [d, layers, heads] = it->second;
  return gpt_style_model(name, d, layers, heads, 50368, seq, 0.0);
}

// The tables' machines: 8 GPUs per node, NVSwitch, with the NVLink and network figures of the row.
const NodeSpec& node_of(const CsvRow& row, const Catalog& catalog) {
  const std::string& gpu = row.text("gpu");
  const char* instance = gpu == "h100-80gb" ? "aws/p5.48xlarge" : gpu == "a100-80gb" ? "aws/p4de.24xlarge" : "aws/p4d.24xlarge";
  const NodeSpec* node = catalog.find_instance(instance);
  if (node == nullptr) throw InvalidConfig("instance", std::string(instance) + " missing from the catalog");
  return *node;
}

}  // namespace

Dataset llm_foundry_dataset(const std::filesystem::path& dir, const Catalog& catalog) {
  Dataset d{"llm-foundry", "MosaicML llm-foundry, scripts/train/benchmarking/README.md (llm_foundry/measured_throughput.csv)",
            "seconds per token per GPU", 0.20, {}};
  for (const CsvRow& row : read_validation_csv(dir / "llm_foundry" / "measured_throughput.csv")) {
    const std::int64_t seq = row.integer("seq_len");
    TrainingJob job;
    job.seq_len = seq;
    job.global_batch_sequences = row.integer("global_batch");
    job.tokens = 1e12;
    job.precision = row.text("precision") == "fp8" ? Precision::fp8 : Precision::bf16;
    job.attention = AttentionKernel::triton;  // the tables' attn_impl
    auto run = std::make_shared<PublishedRun>();
    run->workload = std::make_unique<const Workload>(mpt(row, seq), job);
    NodeSpec node = node_of(row, catalog);
    node.intra_node_bytes_per_second_per_gpu = row.number("intra_GBps") * 1e9;
    node.inter_node_bits_per_second = row.number("inter_Gbps") * 1e9;
    node.intra_node_link = IntraNodeLink::nvswitch;
    place_on(*run, node, static_cast<int>(row.integer("n_gpus")));
    run->config.framework = Framework::llm_foundry;
    run->config.sharding = Sharding::fsdp_full;
    run->config.recompute = row.text("ac") == "full" ? Recompute::full : Recompute::none;
    run->config.micro_batch = row.integer("micro_batch");
    run->config.grad_accum = row.integer("grad_accum");
    const double tokens = static_cast<double>(run->config.micro_batch * run->config.grad_accum * seq);
    ValidationCase c;
    c.id = row.text("id");
    c.gpu = node.gpu.id;
    c.architecture = node.gpu.architecture;
    c.precision = job.precision;
    c.framework = Framework::llm_foundry;
    c.regime = row.text("table");
    c.model = model_shape(*run);
    c.overlapped = true;
    c.attention = job.attention;
    c.measured_seconds = 1.0 / row.number("measured_tps_per_gpu");
    c.predict = [run, tokens](const StepModelFit* fit) {
      Prediction p = simulate_run(*run, fit);
      p.seconds /= tokens;
      return p;
    };
    d.cases.push_back(std::move(c));
  }
  return d;
}

}  // namespace preflight::validation
