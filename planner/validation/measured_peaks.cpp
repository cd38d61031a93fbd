#include "planner/validation/measured_peaks.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "planner/catalog/hf_model_config.hpp"
#include "simulator/longest_sequence.hpp"
#include "planner/io/json_reader.hpp"
#include "planner/validation/published_run.hpp"
#include "planner/validation/validation_csv.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/spec/units.hpp"
#include "simulator/step/step_graph.hpp"

namespace preflight::validation {

namespace {

namespace fs = std::filesystem;

// A cell as text, "" when blank.
std::string cell(const CsvRow& row, const std::string& column) { return row.empty(column) ? std::string() : row.text(column); }

// What a row cannot be predicted without: a reason when the row is not expressible, else empty.
struct Reader {
  const CsvRow& row;
  std::string why;
  bool stated(const std::string& column, const std::string& reason) {
    const std::string v = cell(row, column);
    if (why.empty() && (v.empty() || v == "unstated" || v.starts_with("unstated"))) why = reason;
    return why.empty();
  }
  void refuse(const std::string& reason) {
    if (why.empty()) why = reason;
  }
};

// The leading integer of a cell ("<=1304 (longest Alpaca sample ...)", "2048 (dataset packed ...)"):
// for a batch padded to its longest sample, the peak comes with the longest, which the cell bounds.
std::optional<std::int64_t> leading_integer(const std::string& text) {
  std::size_t i = text.starts_with("<=") ? 2 : 0;
  std::int64_t v = 0;
  bool any = false;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0; ++i) {
    v = v * 10 + (text[i] - '0');
    any = true;
    if (v > 100'000'000) return std::nullopt;
  }
  return any && v > 0 ? std::optional<std::int64_t>(v) : std::nullopt;
}

const std::vector<std::string>& llama_linears() {
  static const std::vector<std::string> names{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
  return names;
}

// PEFT-style names joined by '+'; "all-linear" and descriptions of every linear ("all linear") are the
// seven block matrices. An adapter on the head (lm_head) is left out: a few million parameters.
std::vector<std::string> lora_targets(const std::string& text) {
  if (text.find("all-linear") != std::string::npos || text.find("all linear") != std::string::npos) return llama_linears();
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('+', start), text.size());
    const std::string name = text.substr(start, end - start);
    const auto& n = llama_linears();
    if (std::find(n.begin(), n.end(), name) != n.end()) out.push_back(name);
    start = end + 1;
  }
  return out;
}

ModelSpec model_of(const CsvRow& row, const Catalog& catalog, const fs::path& dir) {
  const std::string& name = row.text("preflight_model");
  if (catalog.has_model(name)) return catalog.model(name).spec;
  const fs::path path = dir / name;
  if (!name.ends_with(".json") || !fs::exists(path)) row.fail("preflight_model", "a catalog model or a config.json beside the file");
  return read_hf_model(io::parse_file(path), path.stem().string(), path.string(), "$").spec;
}

// The row's job and config, or why it has none.
struct Setup {
  std::unique_ptr<PublishedRun> run;
  std::string why;
};

Setup setup_of(const CsvRow& row, const Catalog& catalog, const fs::path& dir) {
  Reader r{row, ""};
  r.stated("preflight_model", "model not shipped");
  r.stated("instance", "GPU not stated");
  r.stated("method", "method not stated");
  r.stated("optimizer", "optimizer not stated");
  r.stated("optimizer_in_backward", "optimizer in backward not stated");
  r.stated("activation_checkpointing", "activation checkpointing not stated");
  r.stated("micro_batch", "micro-batch not stated");
  const std::string framework = cell(row, "framework");
  // Hugging Face's stacks (Trainer, PEFT, DeepSpeed) keep fp32 master weights and fp32 adapters.
  const bool hf_stack = framework == "transformers" || framework == "deepspeed" || framework == "trl";
  if (!hf_stack) r.stated("master_weights", "fp32 master weights not stated");
  const bool limit = cell(row, "measured_kind") == "fit_limit";
  if (!limit && cell(row, "ran") == "true" && row.empty("measured_peak_gib")) r.refuse("no peak published");
  // A limit no length reached (the source's OOM) has no length: the search starts from the shortest.
  const std::optional<std::int64_t> seq =
      limit && cell(row, "ran") == "false" ? std::optional<std::int64_t>(1) : leading_integer(cell(row, "seq_len"));
  if (!seq) r.refuse("sequence length not stated");
  const std::string method = cell(row, "method");
  if (method == "lora" || method == "qlora") {
    r.stated("lora_rank", "LoRA rank not stated");
    r.stated("lora_targets", "LoRA targets not stated");
  }
  if (!r.why.empty()) return {nullptr, r.why};

  TrainingJob job;
  job.method = row.choice("method", kMethodNames);
  const std::string precision = cell(row, "precision");
  job.precision = precision.starts_with("fp8") ? Precision::fp8 : Precision::bf16;  // 16-bit and 4-bit bases compute in bf16
  job.master_weights = hf_stack && cell(row, "master_weights") != "false" ? true : cell(row, "master_weights") == "true";
  job.optimizer = row.choice("optimizer", kOptimizerNames);
  job.optimizer_in_backward = cell(row, "optimizer_in_backward") == "true";
  job.torch_compile = cell(row, "torch_compile") == "true";
  if (!row.empty("compile_loss")) {
    if (cell(row, "compile_loss") != "true" && cell(row, "compile_loss") != "false") row.fail("compile_loss", "true, false or empty");
    job.compile_loss = cell(row, "compile_loss") == "true";
  }
  job.seq_len = *seq;
  if (job.method != Method::full) {
    job.lora.rank = row.integer("lora_rank");
    if (job.lora.rank > 65536) row.fail("lora_rank", "at most 65536");
    job.lora.targets = lora_targets(cell(row, "lora_targets"));
    // torchtune (torchao's NF4) and litgpt (bitsandbytes through its own layers) quantize without PEFT's
    // k-bit preparation; the rows stand in as transformers jobs, so say so.
    if (job.method == Method::qlora && !hf_stack) job.lora.upcast = KbitUpcast::none;
    if (job.lora.targets.empty()) return {nullptr, "LoRA targets not modelled"};
  }
  ModelSpec model = model_of(row, catalog, dir);
  model.max_seq_len = std::max(model.max_seq_len, job.seq_len);  // RoPE scaling does not change memory
  // A limit's search runs past the measured length, up to 4 times it (or the model's context).
  if (limit) model.max_seq_len = std::max(model.max_seq_len, 4 * job.seq_len);
  // Bounds past any published run, so that a malformed row cannot ask for a step of a million stages.
  const auto bounded = [&](const std::string& column, std::int64_t value, std::int64_t max) {
    if (value > max) row.fail(column, "at most " + std::to_string(max));
    return value;
  };
  const int gpus = static_cast<int>(bounded("gpus", row.integer("gpus"), 100'000));
  const std::int64_t micro = bounded("micro_batch", row.integer("micro_batch"), 4096);
  const std::int64_t accum = bounded("grad_accum", leading_integer(cell(row, "grad_accum")).value_or(1), 4096);
  bounded("seq_len", job.seq_len, 10'000'000);
  const NodeSpec* node = catalog.find_instance(row.text("instance"));
  if (node == nullptr) row.fail("instance", "an instance of the catalog");
  NodeSpec placed = *node;
  if (!row.empty("memory_GiB")) placed.gpu.memory_bytes = row.number("memory_GiB") * kGiB;

  StrategyConfig c;
  c.framework = framework == "torchtitan" ? Framework::torchtitan : framework == "unsloth" ? Framework::unsloth : Framework::transformers;
  const std::string sharding = cell(row, "sharding");
  c.sharding = sharding == "fsdp" ? Sharding::fsdp_full : sharding == "zero3" ? Sharding::zero3 : Sharding::ddp;
  c.parallelism.tp = static_cast<int>(bounded("tp", row.integer("tp"), 1024));
  c.parallelism.pp = static_cast<int>(bounded("pp", row.integer("pp"), 1024));
  c.parallelism.cp = static_cast<int>(bounded("cp", row.integer("cp"), 1024));
  c.parallelism.sequence_parallel = c.parallelism.tp > 1;
  const std::string ac = cell(row, "activation_checkpointing");
  // Unsloth's checkpointing ("unsloth") checkpoints every layer and offloads the inputs it keeps to the
  // host (the row's activation_offload says so).
  c.recompute = ac == "full" || ac == "unsloth" ? Recompute::full : ac == "none" ? Recompute::none : Recompute::selective;
  c.micro_batch = micro;
  c.grad_accum = accum;
  c.offload.activations = cell(row, "activation_offload") == "cpu" ? OffloadTarget::cpu : OffloadTarget::none;
  // A limit no length reached starts its search at the shortest length the layout takes.
  if (limit && cell(row, "ran") == "false") job.seq_len = c.parallelism.tp * (c.parallelism.cp > 1 ? 2 * c.parallelism.cp : 1);
  const std::int64_t dp = gpus / (c.parallelism.tp * c.parallelism.pp * c.parallelism.cp);
  job.global_batch_sequences = std::max<std::int64_t>(1, dp) * micro * accum;
  job.tokens = 1e12;

  auto run = std::make_unique<PublishedRun>();
  run->workload = std::make_unique<const Workload>(model, job);
  place_on(*run, placed, gpus);
  run->config.framework = c.framework;
  run->config.sharding = c.sharding;
  run->config.parallelism = c.parallelism;
  run->config.recompute = c.recompute;
  run->config.micro_batch = c.micro_batch;
  run->config.grad_accum = c.grad_accum;
  run->config.offload = c.offload;
  return {std::move(run), ""};
}

// The simulated peak as each source counted its own: torch's allocator counters (allocated, active,
// reserved) see neither the CUDA context nor NCCL's own buffers, nor a paged optimizer's unified
// memory; allocated and active do not see what the allocator keeps cached (fragmentation). A
// source that does not say what it counted is taken as reserved, the middle of the three.
double comparable_bytes(const StepSimulation& sim, MemoryEstimate m, const std::string& kind) {
  m.peak_bytes = sim.peak_bytes;
  if (kind == "nvidia-smi") return m.peak_bytes;
  if (kind == "allocated" || kind == "active") return m.allocated_bytes();
  return m.reserved_bytes();
}

// The rows, median |error|, mean signed and worst error of a summary (both kinds name them alike).
template <class Summary>
void sum_up(Summary& s, const std::vector<double>& errors) {
  s.rows = static_cast<int>(errors.size());
  if (s.rows == 0) return;
  std::vector<double> absolute;
  double signed_sum = 0.0;
  for (const double e : errors) {
    absolute.push_back(std::abs(e));
    signed_sum += e;
    if (std::abs(e) > std::abs(s.worst)) s.worst = e;
  }
  std::sort(absolute.begin(), absolute.end());
  const std::size_t n = absolute.size();
  s.median_absolute = n % 2 == 1 ? absolute[n / 2] : 0.5 * (absolute[n / 2 - 1] + absolute[n / 2]);
  s.mean_signed = signed_sum / static_cast<double>(n);
}

MeasuredPeakSummary summarize(const std::vector<const MeasuredPeakResult*>& rows) {
  MeasuredPeakSummary s;
  std::vector<double> errors;
  for (const MeasuredPeakResult* r : rows) {
    if (!r->predicted() || r->limit) continue;
    if (!r->ran) {
      ++s.out_of_memory_rows;
      if (r->predicted_fits) ++s.oom_called_fitting;
      continue;
    }
    if (!r->predicted_fits) ++s.ran_called_oom;
    errors.push_back(r->error());
  }
  sum_up(s, errors);
  return s;
}

ContextLimitSummary summarize_limits(const std::vector<MeasuredPeakResult>& rows) {
  ContextLimitSummary s;
  std::vector<double> errors;
  for (const MeasuredPeakResult& r : rows) {
    if (!r.predicted() || !r.limit) continue;
    if (!r.ran) {
      ++s.out_of_memory_rows;
      if (r.predicted_fits) ++s.oom_called_fitting;
      continue;
    }
    errors.push_back(r.limit_error());
    if (errors.back() > 0.0) ++s.longer_than_ran;
  }
  sum_up(s, errors);
  return s;
}

}  // namespace

fs::path measured_peaks_file() {
  const fs::path here = fs::path(PREFLIGHT_PUBLISHED_DATA) / "measured_peaks.csv";
  if (fs::exists(here)) return here;
  return fs::path(PREFLIGHT_INSTALLED_PUBLISHED_DATA) / "measured_peaks.csv";
}

MeasuredPeakValidation validate_measured_peaks(const fs::path& file, const Catalog& catalog) {
  MeasuredPeakValidation v;
  v.file = file;
  for (const CsvRow& row : read_validation_csv(file)) {
    MeasuredPeakResult r;
    r.id = cell(row, "id");
    r.source = cell(row, "source");
    r.method = cell(row, "method");
    r.kind = cell(row, "measured_kind");
    if (cell(row, "ran") != "true" && cell(row, "ran") != "false") row.fail("ran", "true or false");
    r.ran = cell(row, "ran") == "true";
    if (!row.empty("measured_peak_gib")) r.measured_gib = row.number("measured_peak_gib");
    Setup s = setup_of(row, catalog, file.parent_path());
    if (s.run) {
      const PublishedRun& run = *s.run;
      try {
        const Machine machine(run.node, run.workload->job().precision);
        StepInputs in;
        in.workload = run.workload.get();
        in.machine = &machine;
        in.config = run.config;
        in.memory = estimate_memory(*run.workload, run.config, run.node, 0.0);
        // Without the GPU's rates for the precision (the catalog's A10G has no published bf16 peak)
        // the step cannot be timed: its peak is the sum of the components, an upper bound of the
        // timeline's, as `check` reports it then.
        StepSimulation sim;
        if (machine.has_rates()) {
          sim = simulate_step(in);
        } else {
          sim.peak_bytes = in.memory.peak_bytes;
          r.sum_of_components = true;
        }
        r.predicted_gib = comparable_bytes(sim, in.memory, r.kind) / kGiB;
        r.capacity_gib = run.node.gpu.memory_bytes / kGiB;
        r.predicted_fits = sim.peak_bytes <= run.node.gpu.memory_bytes;
        if (r.kind == "fit_limit") {
          const std::optional<LongestSequence> longest = longest_fitting_sequence(*run.workload, machine, run.config, 0.0);
          if (!longest) throw InvalidConfig("seq_len", "no length can be tried under this config");
          r.limit = true;
          r.measured_limit = r.ran ? run.workload->job().seq_len : 0;
          r.predicted_limit = longest->tokens;
          r.predicted_fits = longest->tokens > 0;
        }
      } catch (const InvalidConfig& e) {
        s.why = std::string("config refused: ") + e.what();
      }
    }
    r.not_predicted = s.why;
    if (!r.predicted()) ++v.not_predicted[r.not_predicted];
    v.rows.push_back(std::move(r));
  }
  std::vector<const MeasuredPeakResult*> all;
  std::map<std::string, std::vector<const MeasuredPeakResult*>> sources, methods;
  for (const MeasuredPeakResult& r : v.rows) {
    all.push_back(&r);
    sources[r.source].push_back(&r);
    methods[r.method].push_back(&r);
  }
  v.all = summarize(all);
  v.limits = summarize_limits(v.rows);
  for (const auto& [name, rows] : sources) v.by_source[name] = summarize(rows);
  for (const auto& [name, rows] : methods) v.by_method[name] = summarize(rows);
  return v;
}

}  // namespace preflight::validation
