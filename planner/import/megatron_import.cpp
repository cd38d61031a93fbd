// Megatron-LM's pretrain_gpt.py arguments (megatron/training/arguments.py): the parallel layout,
// the batch, recompute, precision, and the architecture itself (Megatron takes no config.json: the
// model is its arguments).

#include <cmath>

#include "planner/import/foreign_object.hpp"
#include "planner/import/importers.hpp"
#include "planner/scenario/megatron_pipeline_layout.hpp"

namespace preflight {

namespace {

const char* const kNotRead = "not modelled: does not change what fits or how fast in preflight's model";
// Megatron's default (--make-vocab-size-divisible-by): the vocabulary is padded to a multiple of it
// times the tensor-parallel size, so every rank holds an equal slice.
constexpr std::int64_t kVocabDivisibleBy = 128;
constexpr std::int64_t kGpt2Vocab = 50257;  // GPT2BPETokenizer: the --vocab-file GPT-2 ships

std::optional<std::int64_t> vocabulary(ForeignObject& a, const ImportContext& context) {
  if (const auto v = a.integer("vocab-size", 1, 10'000'000)) return v;
  const std::optional<std::string> tokenizer = a.string("tokenizer-type");
  const std::optional<std::string> model = a.string("tokenizer-model");
  if (tokenizer && *tokenizer == "HuggingFaceTokenizer" && model) {
    if (const auto id = catalog_model_for_hub_id(*context.catalog, *model)) return context.catalog->model(*id).spec.vocab;
  }
  if ((!tokenizer || *tokenizer == "GPT2BPETokenizer") && a.has("vocab-file")) return kGpt2Vocab;
  return std::nullopt;
}

// An inline model in Hugging Face's keys, from the architecture arguments.
void architecture(ForeignObject& a, std::int64_t tp, ImportedSetup& setup, const ImportContext& context) {
  const std::optional<std::int64_t> given_layers = a.integer("num-layers", 1, 100'000);
  const std::optional<std::int64_t> given_hidden = a.integer("hidden-size", 1, 1'000'000);
  const std::optional<std::int64_t> given_heads = a.integer("num-attention-heads", 1, 100'000);
  if (!given_layers || !given_hidden || !given_heads) {
    if (given_layers || given_hidden || given_heads) {
      setup.note(a.file() + ": the architecture is not all given (--num-layers, --hidden-size, --num-attention-heads): the scenario's model is used");
    }
    return;
  }
  const std::string file = a.file();
  const std::int64_t layers = *given_layers, hidden = *given_hidden, heads = *given_heads;
  const std::optional<std::int64_t> vocab = vocabulary(a, context);
  if (!vocab) a.fail("vocab-size", "the vocabulary: --vocab-size N, a GPT-2 --vocab-file, or --tokenizer-model naming a catalog model's Hub id");
  const std::int64_t multiple = a.integer("make-vocab-size-divisible-by", 1, 1'000'000).value_or(kVocabDivisibleBy) * tp;
  const std::int64_t padded = (*vocab + multiple - 1) / multiple * multiple;
  const std::optional<bool> swiglu = a.boolean("swiglu");
  const bool gated = swiglu && *swiglu;
  // Megatron's default FFN: 4h, and for SwiGLU int((4h x 2/3) / 64) x 64 (arguments.py).
  const std::int64_t default_ffn = gated ? static_cast<std::int64_t>(4.0 * static_cast<double>(hidden) * 2.0 / 3.0 / 64.0) * 64 : 4 * hidden;
  const std::int64_t ffn = a.integer("ffn-hidden-size", 1, 10'000'000).value_or(default_ffn);
  const std::optional<std::int64_t> seq = a.integer("seq-length", 1, 10'000'000);
  const std::int64_t positions = a.integer("max-position-embeddings", 1, 10'000'000).value_or(seq.value_or(2048));
  const std::optional<bool> untie = a.boolean("untie-embeddings-and-output-weights");
  const std::optional<bool> gqa = a.boolean("group-query-attention");
  const std::optional<std::int64_t> groups = a.integer("num-query-groups", 1, heads);
  const std::optional<std::int64_t> head_dim = a.integer("kv-channels", 1, 100'000);
  nlohmann::json m;
  if (gated) {
    m = {{"model_type", "llama"},          {"hidden_size", hidden},       {"num_hidden_layers", layers},
         {"num_attention_heads", heads},   {"intermediate_size", ffn},    {"vocab_size", padded},
         {"max_position_embeddings", positions}, {"tie_word_embeddings", !(untie && *untie)}};
    if (gqa && *gqa && groups) m["num_key_value_heads"] = *groups;
    if (head_dim) m["head_dim"] = *head_dim;
    if (const std::optional<bool> bias = a.boolean("add-qkv-bias")) m["attention_bias"] = *bias;
    if (const auto experts = a.integer("num-experts", 1, 4096)) {
      m["num_local_experts"] = *experts;
      m["num_experts_per_tok"] = a.integer("moe-router-topk", 1, *experts).value_or(2);
      // The experts' width, where it differs from a dense layer's.
      if (const auto expert_ffn = a.integer("moe-ffn-hidden-size", 1, 10'000'000)) m["intermediate_size"] = *expert_ffn;
    }
  } else {
    // GPT-2/GPT-3 style: learned positions, LayerNorm, biases, a plain GeLU MLP.
    m = {{"model_type", "gpt2"}, {"n_embd", hidden}, {"n_layer", layers}, {"n_head", heads},
         {"n_positions", positions}, {"vocab_size", padded}, {"n_inner", ffn}, {"tie_word_embeddings", !(untie && *untie)}};
    if (gqa && *gqa) setup.ignore(file, "--group-query-attention", "not modelled without --swiglu: counted as multi-head attention (memory overestimated)");
  }
  a.ignore(setup, {"normalization", "position-embedding-type", "disable-bias-linear", "apply-layernorm-1p", "rotary-base",
                   "rotary-percent", "use-rotary-position-embeddings", "attention-dropout", "hidden-dropout", "init-method-std",
                   "tokenizer-type", "tokenizer-model", "vocab-file", "merge-file", "use-mcore-models", "moe-router-load-balancing-type",
                   "moe-aux-loss-coeff", "qk-layernorm", "rotary-seq-len-interpolation-factor"},
           "the architecture's details that change neither memory nor time beyond what the model's shape says");
  // The architecture of a catalog model is that model (its id says so in every report), unless
  // Megatron's padding changes its vocabulary (then the padded table is what it allocates).
  for (const std::string& id : context.catalog->model_ids()) {
    const ModelSpec c = context.catalog->model(id).spec;
    const bool same = padded == *vocab && c.layers == layers && c.hidden == hidden && c.heads == heads && c.intermediate == ffn && c.vocab == *vocab &&
                      c.kv_heads == (gated && gqa && *gqa && groups ? *groups : heads) && c.tied_embeddings == !(untie && *untie) &&
                      (c.mlp == MlpKind::gated) == gated;
    if (same) {
      setup.set("model", id, file, "--num-layers, --hidden-size, --num-attention-heads, ...");
      setup.note(file + ": the architecture is the catalog's " + id);
      return;
    }
  }
  setup.set("model", m, file, "--num-layers, --hidden-size, --num-attention-heads, ...");
  if (padded != *vocab) setup.note(file + ": vocabulary " + std::to_string(*vocab) + " padded to " + std::to_string(padded) + " as Megatron pads it");
}

// Megatron-FSDP, by its name or the older --use-custom-fsdp.
bool megatron_fsdp(ForeignObject& a) {
  bool on = false;
  for (const char* key : {"use-megatron-fsdp", "use-custom-fsdp"}) {
    if (const std::optional<bool> v = a.boolean(key); v && *v) on = true;
  }
  return on;
}

void layout(ForeignObject& a, ImportedSetup& setup, std::int64_t& tp, std::int64_t& pp, std::int64_t layers) {
  const std::string file = a.file();
  tp = a.integer("tensor-model-parallel-size", 1, 64).value_or(1);
  pp = a.integer("pipeline-model-parallel-size", 1, 1024).value_or(1);
  if (a.has("tensor-model-parallel-size")) setup.set("config.parallelism.tp", tp, file, "--tensor-model-parallel-size");
  if (a.has("pipeline-model-parallel-size")) setup.set("config.parallelism.pp", pp, file, "--pipeline-model-parallel-size");
  if (const std::optional<bool> sp = a.boolean("sequence-parallel"); sp && *sp) {
    // Megatron turns sequence parallelism off without tensor parallelism (arguments.py).
    setup.set("config.parallelism.sequence_parallel", tp > 1, file, "--sequence-parallel");
    if (tp == 1) setup.note(file + ": --sequence-parallel has no effect with --tensor-model-parallel-size 1 (Megatron turns it off)");
  }
  if (const std::optional<bool> overlap = a.boolean("tp-comm-overlap"); overlap && *overlap) {
    // Megatron-LM's arguments.py refuses it without sequence parallelism.
    const std::optional<bool> sp = a.boolean("sequence-parallel");
    if (tp == 1 || !sp || !*sp) {
      a.fail("tp-comm-overlap", "only beside --sequence-parallel and --tensor-model-parallel-size > 1 (Megatron-LM refuses it otherwise)");
    }
    setup.set("config.parallelism.tp_comm_overlap", true, file, "--tp-comm-overlap");
  } else if (const std::optional<bool> sp = a.boolean("sequence-parallel"); tp > 1 && sp && *sp) {
    // The launch runs its collectives in line: plan keeps that rather than search the overlap it left out.
    setup.set("config.parallelism.tp_comm_overlap", false, file, "--tp-comm-overlap (not given)");
  }
  for (const char* key : {"virtual-pipeline-model-parallel-size", "num-virtual-stages-per-pipeline-rank"}) {
    if (const auto v = a.integer(key, 1, 1024)) setup.set("config.parallelism.interleave", *v, file, std::string("--") + key);
  }
  if (const auto per_stage = a.integer("num-layers-per-virtual-pipeline-stage", 1, 100'000)) {
    if (layers % (pp * *per_stage) != 0) a.fail("num-layers-per-virtual-pipeline-stage", "a divisor of the layers per pipeline stage");
    setup.set("config.parallelism.interleave", layers / (pp * *per_stage), file, "--num-layers-per-virtual-pipeline-stage");
  }
  if (const std::optional<std::string> text = a.string("pipeline-model-parallel-layout")) {
    // Megatron-LM takes one way of saying the virtual stages (arguments.py).
    for (const char* other : {"virtual-pipeline-model-parallel-size", "num-virtual-stages-per-pipeline-rank",
                              "num-layers-per-virtual-pipeline-stage", "decoder-first-pipeline-num-layers",
                              "decoder-last-pipeline-num-layers"}) {
      if (a.has(other)) a.fail(other, std::string("nothing beside --pipeline-model-parallel-layout (Megatron-LM takes one of them)"));
    }
    PipelineLayoutCount count;
    try {
      count = read_pipeline_layout(*text);
    } catch (const InvalidConfig& e) {
      a.fail("pipeline-model-parallel-layout", e.what());
    }
    if (count.chunks() % pp != 0) {
      a.fail("pipeline-model-parallel-layout", "a layout of pp x virtual stages chunks: " + std::to_string(count.chunks()) +
                                                   " chunks for --pipeline-model-parallel-size " + std::to_string(pp));
    }
    if (a.has("num-layers") && count.decoder_layers != layers) {
      a.fail("pipeline-model-parallel-layout", "as many decoder layers (t) as --num-layers " + std::to_string(layers) + ", not " +
                                                   std::to_string(count.decoder_layers));
    }
    const std::int64_t v = count.chunks() / pp;
    if (v > 1) setup.set("config.parallelism.interleave", v, file, "--pipeline-model-parallel-layout");
    const std::int64_t heaviest = count.heaviest_rank_layers(static_cast<int>(pp));
    const std::int64_t simulated = (count.decoder_layers + pp - 1) / pp;
    setup.note(file + ": --pipeline-model-parallel-layout read as " + std::to_string(v) + " model chunk" + (v > 1 ? "s" : "") +
               " per pipeline rank; preflight simulates a balanced layout's heaviest stage, " + std::to_string(simulated) +
               " layers and the loss" +
               (heaviest > simulated ? ", where this layout gives a rank " + std::to_string(heaviest) +
                                           " (its memory and bubble are underestimated)"
                                     : ""));
  }
  a.ignore(setup, {"microbatch-group-size-per-virtual-pipeline-stage"},
           "preflight runs the smallest micro-batch group Megatron-Core accepts (pp where pp divides the micro-batches)");
  a.ignore(setup, {"decoder-first-pipeline-num-layers", "decoder-last-pipeline-num-layers", "account-for-embedding-in-pipeline-split",
                   "account-for-loss-in-pipeline-split"},
           "preflight simulates the heaviest stage of a balanced split: ceil(layers / pp) layers and the loss");
  if (const auto cp = a.integer("context-parallel-size", 1, 1024)) setup.set("config.parallelism.cp", *cp, file, "--context-parallel-size");
  const std::optional<bool> distributed = a.boolean("use-distributed-optimizer");
  // Megatron-DeepSpeed: the ZeRO stage is its DeepSpeed config's.
  const bool deepspeed = a.has("deepspeed") || a.has("deepspeed-config");
  if (megatron_fsdp(a) && deepspeed) a.fail("use-megatron-fsdp", "Megatron-FSDP or DeepSpeed's ZeRO, not both");
  if (!deepspeed && megatron_fsdp(a)) {
    // Megatron-FSDP's strategy: optim_grads_params shards everything, optim what the distributed
    // optimizer shards. Without the flag Megatron-Core's DistributedDataParallelConfig default,
    // no_shard, is read: the states stay whole (what fits is not overstated).
    const std::optional<std::string> strategy = a.string("data-parallel-sharding-strategy");
    const std::string key = "--use-megatron-fsdp --data-parallel-sharding-strategy";
    if (strategy && *strategy == "optim_grads_params") {
      setup.set("config.sharding", "fsdp_full", file, key);
    } else if (strategy && *strategy == "optim") {
      setup.set("config.sharding", "zero1", file, key);
    } else if (!strategy || *strategy == "no_shard") {
      setup.set("config.sharding", distributed && *distributed ? "zero1" : "ddp", file,
                strategy ? key : "--use-megatron-fsdp (no strategy: no_shard, Megatron-Core's default)");
      if (!strategy) {
        setup.note(file + ": --use-megatron-fsdp without --data-parallel-sharding-strategy is read as no_shard, Megatron-Core's "
                          "default; give optim_grads_params for full sharding");
      }
    } else {
      a.fail("data-parallel-sharding-strategy", "optim_grads_params (fsdp_full), optim (zero1) or no_shard (ddp); optim_grads "
                                                "is not modelled here");
    }
    if (const std::optional<std::string> outer = a.string("outer-dp-sharding-strategy"); outer && *outer != "no_shard") {
      a.fail("outer-dp-sharding-strategy", "no_shard: Megatron-FSDP's hybrid sharding is not modelled here");
    }
  } else if (!deepspeed) {
    setup.set("config.sharding", distributed && *distributed ? "zero1" : "ddp", file,
              distributed ? "--use-distributed-optimizer" : "--use-distributed-optimizer (not given)");
  }
  if (const auto ep = a.integer("expert-model-parallel-size", 1, 4096)) setup.set("config.parallelism.ep", *ep, file, "--expert-model-parallel-size");
  if (const auto etp = a.integer("expert-tensor-parallel-size", 1, 64)) setup.set("config.parallelism.etp", *etp, file, "--expert-tensor-parallel-size");
  if (const std::optional<bool> overlap = a.boolean("overlap-moe-expert-parallel-comm"); overlap && *overlap) {
    setup.set("config.parallelism.ep_comm_overlap", true, file, "--overlap-moe-expert-parallel-comm");
  }
}

void recompute(ForeignObject& a, ImportedSetup& setup, std::int64_t layers, std::int64_t pp) {
  const std::string file = a.file();
  if (const std::optional<bool> r = a.boolean("recompute-activations"); r && *r) {
    setup.set("config.activation_checkpointing", "selective", file, "--recompute-activations");
  }
  if (const std::optional<std::string> g = a.string("recompute-granularity")) {
    if (*g != "full" && *g != "selective") a.fail("recompute-granularity", "full or selective");
    setup.set("config.activation_checkpointing", *g, file, "--recompute-granularity");
  }
  const std::optional<std::string> method = a.string("recompute-method");
  const std::optional<std::int64_t> n = a.integer("recompute-num-layers", 1, 100'000);
  // Block recompute of fewer layers than a stage holds keeps the rest's activations: preflight's full
  // recompute would undercount them, the unsafe direction, so it is refused rather than ignored.
  if (method && *method == "block" && n && *n < layers / pp) {
    a.fail("recompute-num-layers", std::to_string(layers / pp) + " (every layer of a stage: partial block recompute is not modelled)");
  }
}

void batch(ForeignObject& a, ImportedSetup& setup) {
  const std::string file = a.file();
  const std::optional<std::int64_t> micro = a.integer("micro-batch-size", 1, 1'000'000);
  if (micro) setup.set("config.micro_batch", *micro, file, "--micro-batch-size");
  if (const auto gb = a.integer("global-batch-size", 1, 100'000'000)) {
    setup.set("training.global_batch_size", *gb, file, "--global-batch-size");
  } else if (micro) {
    // Megatron's default: the micro-batch on every data-parallel rank, no accumulation.
    setup.batch_per_rank(*micro, file, "--micro-batch-size (no --global-batch-size: times the data-parallel ranks)");
    setup.set("config.grad_accum", 1, file, "--global-batch-size (not given: no accumulation)");
  }
  if (const auto seq = a.integer("seq-length", 1, 10'000'000)) setup.set("training.seq_len", *seq, file, "--seq-length");
  if (const auto iters = a.integer("train-iters", 1, 1'000'000'000'000)) setup.set("training.steps", *iters, file, "--train-iters");
  if (const auto samples = a.integer("train-samples", 1, 1'000'000'000'000)) setup.set("training.samples", *samples, file, "--train-samples");
  a.ignore(setup, {"rampup-batch-size"}, "not modelled: the batch ramp-up's first steps (the run is priced at the full batch)");
}

void precision(ForeignObject& a, ImportedSetup& setup) {
  const std::string file = a.file();
  const std::optional<bool> bf16 = a.boolean("bf16");
  const std::optional<bool> fp16 = a.boolean("fp16");
  const std::optional<std::string> fp8 = a.string("fp8-format");
  if (bf16 && fp16 && *bf16 && *fp16) a.fail("fp16", "not with --bf16");
  if (fp8) {
    setup.set("training.precision", "fp8", file, "--fp8-format");  // FP8 GEMMs in bf16 training (Transformer Engine)
  } else if (bf16 && *bf16) {
    setup.set("training.precision", "bf16", file, "--bf16");
  } else if (fp16 && *fp16) {
    setup.set("training.precision", "fp16", file, "--fp16");
  } else {
    setup.set("training.precision", "fp32", file, "(neither --bf16 nor --fp16)");
  }
  a.ignore(setup, {"fp8-amax-history-len", "fp8-amax-compute-algo", "fp8-param-gather", "fp8-margin", "fp8-recipe",
                   "grad-reduce-in-bf16", "accumulate-allreduce-grads-in-fp32"},
           "FP8 scaling and reduction precision: preflight models Transformer Engine's defaults");
}

void attention(ForeignObject& a, ImportedSetup& setup) {
  if (const std::optional<bool> flash = a.boolean("use-flash-attn"); flash && *flash) {
    setup.set("training.attention", "flash2", a.file(), "--use-flash-attn");
  }
  if (const std::optional<std::string> backend = a.string("attention-backend")) {
    static const std::map<std::string, std::string> kKernel{{"flash", "flash2"}, {"fused", "cudnn"}, {"unfused", "eager"},
                                                            {"local", "eager"}, {"auto", "auto"}};
    const auto it = kKernel.find(*backend);
    if (it == kKernel.end()) a.fail("attention-backend", "flash, fused, unfused, local or auto");
    setup.set("training.attention", it->second, a.file(), "--attention-backend");
  }
}

}  // namespace

void import_megatron_args(const nlohmann::json& args, const std::string& file, ImportedSetup& setup, const ImportContext& context) {
  ForeignObject a(args, file, "--");
  a.take("deepspeed");
  if (const std::optional<std::string> ds = a.string("deepspeed-config")) {
    setup.merge(import_reference(*ds, file, "--deepspeed_config", context, "DeepSpeed config"));
  }
  setup.set("training.framework", "megatron", file, "pretrain_gpt.py");
  std::int64_t tp = 1, pp = 1;
  const std::int64_t layers = a.integer("num-layers", 1, 100'000).value_or(1);
  layout(a, setup, tp, pp, layers);
  architecture(a, tp, setup, context);
  batch(a, setup);
  recompute(a, setup, layers, pp);
  precision(a, setup);
  attention(a, setup);
  // preflight simulates the data-parallel gradient reduction in buckets during backward, which
  // Megatron-LM runs only with --overlap-grad-reduce (default off: one reduction after backward).
  const std::optional<bool> overlapped = a.boolean("overlap-grad-reduce");
  if (overlapped) setup.considered(file, "--overlap-grad-reduce");  // read: what is simulated, or the note below
  if (!overlapped || !*overlapped) {
    setup.note(file + ": without --overlap-grad-reduce Megatron-LM reduces the gradients after the backward pass; preflight "
                      "simulates them reduced during it, as that flag runs them (`export megatron` writes it): this launch "
                      "runs slower than simulated where data parallelism spans nodes");
  }
  if (megatron_fsdp(a)) {
    // Megatron-FSDP's gathers are simulated overlapped, layer by layer, as this flag runs them.
    if (const std::optional<bool> gather = a.boolean("overlap-param-gather"); gather && *gather) {
      setup.considered(file, "--overlap-param-gather");
    } else {
      setup.note(file + ": without --overlap-param-gather Megatron-FSDP gathers each block's weights when it needs them; "
                        "preflight simulates them prefetched beside the block before (`export megatron` writes the flag)");
    }
  } else {
    a.ignore(setup, {"overlap-param-gather"},
             "the distributed optimizer's parameter all-gather is simulated exposed, as without this flag (slower than with it)");
  }
  a.ignore(setup, {"no-gradient-accumulation-fusion", "cross-entropy-loss-fusion", "manual-gc",
                   "empty-unused-memory-level", "calculate-per-token-loss", "transformer-impl"},
           "fusions and settings preflight does not model apart");
  a.finish(setup, kNotRead);
}

}  // namespace preflight
