// Published step times and phase times of RL post-training with rollouts that this repository ships
// (published/rl_runs.csv, its header names each source): verl's and NeMo-RL's GRPO/DAPO/PPO runs,
// each row one measured quantity of one run (the whole step, or its generation, log-prob, update or
// sync phase, or verl's throughput). Not part of the step model's fit: these check the rollout
// model, which no factor of the fit touches.

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <map>

#include "planner/catalog/hf_model_config.hpp"
#include "planner/io/input_file.hpp"
#include "planner/io/json_reader.hpp"
#include "planner/validation/datasets.hpp"
#include "planner/validation/published_run.hpp"
#include "planner/validation/validation_csv.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/rollout/rollout_defaults.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::validation {

namespace {

// A positive integer of at most `max` (the rest of the model takes ints).
std::int64_t bounded(const CsvRow& row, const std::string& column, std::int64_t max) {
  const std::int64_t v = row.integer(column);
  if (v > max) row.fail(column, "a positive integer of at most " + std::to_string(max));
  return v;
}

// The model: a catalog id, else a Hugging Face config.json under published/rl_models/.
ModelSpec rl_model(const CsvRow& row, const Catalog& catalog, const std::filesystem::path& models) {
  const std::string& id = row.text("model");
  if (catalog.has_model(id)) return catalog.model(id).spec;
  const std::filesystem::path file = models / id;
  std::error_code error;
  if (!std::filesystem::exists(file, error) || error) row.fail("model", "a catalog model id or a config.json under " + models.string());
  return model_from_hf_config(io::parse_file(file.string()), id, file.string(), "$");
}

// The catalog's best-networked node of the row's GPU (the published runs ran on training
// clusters: DGX-class nodes with a 400 Gb/s NIC a GPU), with the row's GPUs per node.
NodeSpec rl_node(const CsvRow& row, const Catalog& catalog) {
  const std::string& gpu = row.text("gpu");
  const NodeSpec* best = nullptr;
  for (const NodeSpec& n : catalog.instances()) {
    if (n.gpu.id != gpu) continue;
    if (best == nullptr || n.inter_node_bits_per_second > best->inter_node_bits_per_second) best = &n;
  }
  if (best == nullptr) row.fail("gpu", "a GPU of the catalog's instances");
  NodeSpec n = *best;
  n.gpus_per_node = static_cast<int>(bounded(row, "gpus_per_node", 64));
  return n;
}

bool yes_no(const CsvRow& row, const std::string& column) {
  if (row.text(column) != "true" && row.text(column) != "false") row.fail(column, "true or false");
  return row.text(column) == "true";
}

// What a row measured, from an RL step's evaluation: seconds of the step or a phase, or the inverse
// of verl's throughput (seconds per token per GPU).
double predicted(const std::string& quantity, const Evaluation& e, double tokens_per_gpu) {
  const StepTime& s = *e.step;
  if (quantity == "step_seconds") return s.seconds();
  if (quantity == "generation_seconds") return s.generation_seconds;
  if (quantity == "logprob_seconds") return s.logprob_seconds;
  if (quantity == "update_seconds") return s.training_seconds() - s.logprob_seconds;
  if (quantity == "sync_seconds") return s.sync_seconds;
  return s.seconds() / tokens_per_gpu;
}

struct RlRun {
  std::shared_ptr<PublishedRun> run;
  std::string quantity;
  double tokens_per_gpu = 0.0;

  Evaluation evaluate_with(const StepModelFit* fit) const {
    const Machine machine(run->node, run->workload->job().precision, run->profile.get(), fit);
    Evaluation e = evaluate(*run->workload, machine, run->config, 0.0);
    if (!e.step) throw InvalidConfig("rollout", "the RL step could not be simulated: " + e.step_unavailable);
    return e;
  }
};

RlRun rl_run(const CsvRow& row, const Catalog& catalog, const std::filesystem::path& models) {
  ModelSpec model = rl_model(row, catalog, models);
  TrainingJob job;
  job.objective = TrainingObjective::rl;
  job.method = row.choice("adapter", kMethodNames);
  RlSpec rl;
  rl.algorithm = row.choice("algorithm", kRlAlgorithmNames);
  rl.prompts_per_step = row.integer("prompts_per_step");
  rl.rollouts_per_prompt = row.integer("rollouts_per_prompt");
  if (rl.prompts_per_step > 1'000'000 || rl.rollouts_per_prompt > 4096 || rl.sequences() > 1'000'000) {
    row.fail("rollouts_per_prompt", "at most 1,000,000 responses a step (prompts_per_step x rollouts_per_prompt)");
  }
  rl.prompt_len = row.integer("prompt_len");
  if (rl.prompt_len > 1'048'576) row.fail("prompt_len", "at most 1,048,576 tokens");
  rl.response_mean = row.number("response_mean");
  rl.response_max = row.integer("response_max");
  if (rl.response_max > 1'048'576) row.fail("response_max", "at most 1,048,576 tokens");
  if (rl.algorithm != RlAlgorithm::ppo && rl.rollouts_per_prompt < 2) row.fail("rollouts_per_prompt", "at least 2 for grpo and rloo");
  if (rl.response_mean > static_cast<double>(rl.response_max)) row.fail("response_mean", "at most response_max");
  rl.engine = row.choice("engine", kRolloutEngineNames);
  rl.reference = yes_no(row, "reference");
  rl.critic = yes_no(row, "critic");
  if (rl.critic && rl.algorithm != RlAlgorithm::ppo) row.fail("critic", "false unless the algorithm is ppo");
  rl.epochs_per_batch = static_cast<int>(bounded(row, "epochs_per_batch", 100));
  rl.placement = row.choice("placement", kRolloutPlacementNames);
  rl.off_policy_steps = row.empty("off_policy_steps") || row.text("off_policy_steps") == "0" ? 0 : static_cast<int>(bounded(row, "off_policy_steps", 64));
  if (rl.off_policy_steps > 0 && rl.placement == RolloutPlacement::colocated) row.fail("off_policy_steps", "0 when colocated");
  model.max_seq_len = std::max(model.max_seq_len, rl.prompt_len + rl.response_max);
  job.seq_len = rl.prompt_len + static_cast<std::int64_t>(std::llround(rl.response_mean));
  job.reference = rl.reference ? ReferenceSource::model : ReferenceSource::none;
  job.global_batch_sequences = bounded(row, "mini_batch", 1'000'000);
  if (rl.sequences() % job.global_batch_sequences != 0) row.fail("mini_batch", "a divisor of prompts_per_step x rollouts_per_prompt");
  job.rl = rl;
  job.tokens = 1e12;
  auto run = std::make_shared<PublishedRun>();
  run->workload = std::make_unique<const Workload>(model, job);
  NodeSpec node = rl_node(row, catalog);
  // A GPU the catalog lacks (H20, GB200) runs as its generation's with its own datasheet figures.
  if (!row.empty("memory_GiB")) {
    const auto within = [&](const std::string& column, double min, double max) {
      const double v = row.number(column);
      if (v < min || v > max) row.fail(column, "a number from " + std::to_string(min) + " to " + std::to_string(max));
      return v;
    };
    node.gpu.memory_bytes = within("memory_GiB", 1.0, 4096.0) * 1024.0 * 1024.0 * 1024.0;
    node.gpu.memory_bandwidth_bytes_per_second = within("memory_TBps", 0.1, 100.0) * 1e12;
    node.gpu.peak_tflops.bf16 = within("bf16_tflops", 1.0, 100'000.0);
    node.gpu.sm_count.reset();
  }
  const int gpus = static_cast<int>(bounded(row, "gpus", 100'000));
  if (gpus % node.gpus_per_node != 0 && gpus > node.gpus_per_node) row.fail("gpus", "whole nodes of gpus_per_node");
  place_on(*run, node, gpus);
  StrategyConfig& c = run->config;
  c.framework = row.choice("trainer", kFrameworkNames);
  c.sharding = row.choice("sharding", kShardingNames);
  c.recompute = row.choice("recompute", kRecomputeNames);
  c.parallelism.tp = static_cast<int>(bounded(row, "tp", 64));
  c.parallelism.pp = static_cast<int>(bounded(row, "pp", 1024));
  c.parallelism.sequence_parallel = c.framework == Framework::megatron && c.parallelism.tp > 1;
  c.rollout.placement = rl.placement;
  c.rollout.tp = static_cast<int>(bounded(row, "gen_tp", 64));
  if (rl.placement == RolloutPlacement::separate) c.rollout.gpus = static_cast<int>(bounded(row, "generator_gpus", 100'000));
  const int trainer_gpus = gpus - c.rollout.gpus.value_or(0);
  const std::int64_t dp = data_parallel_degree(c.parallelism, trainer_gpus);
  if (dp < 1 || job.global_batch_sequences % dp != 0) row.fail("mini_batch", "a multiple of the trainer's data-parallel degree");
  // Micro-batches balanced by tokens (verl's dynamic batch size, NeMo-RL's packing): about 8K tokens
  // a GPU, verl's ppo_max_token_len_per_gpu default (16,384 with remove-padding) at half its cap.
  const std::int64_t per_rank = job.global_batch_sequences / dp;
  std::int64_t micro = std::max<std::int64_t>(1, 8192 / job.seq_len);
  while (per_rank % micro != 0) --micro;
  c.micro_batch = micro;
  c.grad_accum = per_rank / micro;

  const std::string quantity = row.text("quantity");
  static const std::string kQuantities[] = {"step_seconds", "generation_seconds", "logprob_seconds", "update_seconds", "sync_seconds",
                                            "tokens_per_gpu_second"};
  if (std::find(std::begin(kQuantities), std::end(kQuantities), quantity) == std::end(kQuantities)) {
    row.fail("quantity", "step_seconds, generation_seconds, logprob_seconds, update_seconds, sync_seconds or tokens_per_gpu_second");
  }
  return RlRun{run, quantity, static_cast<double>(job.step_tokens()) / gpus};
}

ValidationCase rl_case(const CsvRow& row, const Catalog& catalog, const std::filesystem::path& models) {
  const RlRun r = rl_run(row, catalog, models);
  const PublishedRun& run = *r.run;
  const NodeSpec& node = run.node;
  const StrategyConfig& c = run.config;
  const RlSpec& rl = *run.workload->job().rl;
  ValidationCase v;
  v.id = row.text("id");
  v.gpu = node.gpu.id;
  v.architecture = node.gpu.architecture;
  v.precision = run.workload->job().precision;
  v.framework = c.framework;
  v.regime = to_string(*rl.placement) + " " + to_string(rl.algorithm);
  v.model = model_shape(run);
  v.overlapped = true;
  v.attention = stack_habits(c.framework, run.workload->job(), true, node.gpu.architecture).attention;
  v.measured_seconds = r.quantity == "tokens_per_gpu_second" ? 1.0 / row.number("measured") : row.number("measured");
  v.predict = [r](const StepModelFit* fit) {
    const Evaluation e = r.evaluate_with(fit);
    return Prediction{predicted(r.quantity, e, r.tokens_per_gpu), e.memory.fits()};
  };
  return v;
}

// The 25% the RL issue asks of each published row, as the set's mean absolute error. Not met yet: the
// trainer shares fitted to these rows leave a held-out median of 34% (published/rl_fit_report.md), the
// DAPO rows' response lengths are estimates and one generation row is 3.5x its prediction. So the set
// is reported against it without gating `validate`'s exit status, rather than held to a looser bound.
constexpr double kRlRunsTolerance = 0.25;

}  // namespace

std::filesystem::path rl_runs_file() {
  const std::filesystem::path here = std::filesystem::path(PREFLIGHT_PUBLISHED_DATA) / "rl_runs.csv";
  if (std::filesystem::exists(here)) return here;
  return std::filesystem::path(PREFLIGHT_INSTALLED_PUBLISHED_DATA) / "rl_runs.csv";
}

std::string rl_rows_csv(const std::filesystem::path& file, const Catalog& catalog, const StepModelFit* fit) {
  const std::filesystem::path models = file.parent_path() / "rl_models";
  std::ostringstream out;
  out << "id,trainer,placement,quantity,measured,step,generation,generation_hidden,logprob,update,sync,trainer_share,tokens_per_gpu\n";
  for (const CsvRow& row : read_validation_csv(file)) {
    const RlRun r = rl_run(row, catalog, models);
    const Evaluation e = r.evaluate_with(fit);
    const StepTime& s = *e.step;
    char line[512];
    std::snprintf(line, sizeof line, "%s,%s,%s,%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f\n", row.text("id").c_str(),
                  to_string(e.config.framework).c_str(), to_string(e.rollout->placement).c_str(), r.quantity.c_str(),
                  row.text("measured").c_str(), s.seconds(), s.generation_seconds, s.generation_hidden_seconds, s.logprob_seconds,
                  s.training_seconds() - s.logprob_seconds, s.sync_seconds, rl_trainer_share(e.config.framework), r.tokens_per_gpu);
    out << line;
  }
  return out.str();
}

std::vector<Dataset> rl_datasets(const std::filesystem::path& file, const Catalog& catalog) {
  const std::filesystem::path models = file.parent_path() / "rl_models";
  Dataset d{"rl-runs", "verl, NeMo-RL and others: published RL step and phase times (" + file.filename().string() + ")",
            "seconds per step or phase (per token per GPU for throughput rows)", kRlRunsTolerance, {}, false};
  for (const CsvRow& row : read_validation_csv(file)) d.cases.push_back(rl_case(row, catalog, models));
  return {d};
}

}  // namespace preflight::validation
