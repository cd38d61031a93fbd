#include "planner/scenario/scenario.hpp"

#include "planner/catalog/catalog_providers.hpp"

#include "simulator/model/optimizer_refusal.hpp"
#include "simulator/model/stack_habits.hpp"

#include <algorithm>
#include <cmath>

#include "planner/catalog/hf_model_config.hpp"
#include "planner/catalog/hf_model_families.hpp"
#include "planner/catalog/stored_weights.hpp"
#include "planner/io/input_file.hpp"
#include "simulator/economics/interruption_process.hpp"
#include "planner/io/json_reader.hpp"
#include "planner/io/spot_trace_reader.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/memory/memory_defaults.hpp"

namespace preflight {

namespace fs = std::filesystem;
using io::NumberRule;
using io::ObjectReader;

namespace {

// Beyond any training run so far (the largest public runs are ~4e13 tokens) by a wide margin, but
// small enough that a typo such as 1e30 is caught.
constexpr double kMaxTokens = 1e15;
constexpr std::int64_t kMaxSequences = 1'000'000'000'000;
// vCPUs per GPU when an inline cluster gives none: what 8-GPU A100 cloud nodes have (p4d, ND A100 v4:
// 96 vCPUs); only CPU-offloaded optimizer steps depend on it.
constexpr int kDefaultVcpusPerGpu = 12;

const std::vector<std::string>& linear_names() {
  // With DeepSeek's latent-attention projections (a model without them has none to adapt).
  static const std::vector<std::string> names{"q_proj",   "k_proj",   "v_proj",  "o_proj",   "gate_proj",         "up_proj",
                                              "down_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj"};
  return names;
}

// Module names as users write them (PEFT's target_modules): Llama names, all-linear, and each
// family's own names for the same matrices: GPT-2 (c_attn, c_proj, c_fc), Mixtral's experts (w1, w2,
// w3), GPT-NeoX, Falcon and BLOOM (query_key_value, dense, dense_h_to_4h, dense_4h_to_h), Phi-2 (dense,
// fc1, fc2), Phi-3 (qkv_proj, gate_up_proj).
std::vector<std::string> expand_target(const std::string& t) {
  if (t == "all-linear" || t == "all_linear") return linear_names();
  if (t == "c_attn" || t == "query_key_value" || t == "qkv_proj") return {"q_proj", "k_proj", "v_proj"};
  if (t == "c_proj") return {"o_proj", "down_proj"};
  if (t == "dense") return {"o_proj"};
  if (t == "gate_up_proj") return {"gate_proj", "up_proj"};
  if (t == "c_fc" || t == "w3" || t == "dense_h_to_4h" || t == "fc1") return {"up_proj"};
  if (t == "w1") return {"gate_proj"};
  if (t == "w2" || t == "dense_4h_to_h" || t == "fc2") return {"down_proj"};
  const auto& n = linear_names();
  if (std::find(n.begin(), n.end(), t) != n.end()) return {t};
  return {};
}

// A module PEFT's modules_to_save trains in full, by the names the families give it: the token
// embedding or the output head (nothing else of a causal LM is worth a copy: norms are vectors).
std::optional<std::string> saved_module_name(const std::string& name) {
  for (const char* embedding : {"embed_tokens", "wte", "embed_in", "word_embeddings", "tok_embeddings"}) {
    if (name == embedding) return "embed_tokens";
  }
  for (const char* head : {"lm_head", "embed_out", "output"}) {
    if (name == head) return "lm_head";
  }
  return std::nullopt;
}

LoraSpec read_lora(ObjectReader& r, Method method) {
  LoraSpec lora;
  lora.targets = linear_names();  // QLoRA paper: adapters on all linear layers match full fine-tuning
  std::optional<ObjectReader> l = r.optional_object("lora");
  if (!l) return lora;
  lora.rank = l->optional_integer("rank", 1, 65536).value_or(16);
  l->optional_number("alpha", {0.0, 1e6, true});  // scales the update; no effect on memory or time
  lora.dropout = l->optional_number("dropout", {0.0, 1.0}).value_or(0.0);
  if (l->has("targets")) {
    const std::vector<std::string> given = l->string_list("targets");
    lora.targets.clear();
    for (std::size_t i = 0; i < given.size(); ++i) {
      const std::vector<std::string> expanded = expand_target(given[i]);
      if (expanded.empty()) {
        throw InputError(l->file(), l->path_of("targets") + "[" + std::to_string(i) + "]", "\"" + given[i] + "\"",
                         "q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, all-linear, DeepSeek's q_a_proj, q_b_proj, "
                         "kv_a_proj_with_mqa, kv_b_proj "
                         "(or GPT-2's c_attn, c_proj, c_fc; Mixtral's w1, w2, w3; GPT-NeoX's, Falcon's and BLOOM's "
                         "query_key_value, dense, dense_h_to_4h, dense_4h_to_h; Phi's fc1, fc2; Phi-3's qkv_proj, gate_up_proj)");
      }
      for (const std::string& e : expanded) {
        if (std::find(lora.targets.begin(), lora.targets.end(), e) == lora.targets.end()) lora.targets.push_back(e);
      }
    }
  }
  if (l->has("modules_to_save")) {
    const std::vector<std::string> given = l->string_list("modules_to_save");
    for (std::size_t i = 0; i < given.size(); ++i) {
      const std::optional<std::string> module = saved_module_name(given[i]);
      if (!module) {
        throw InputError(l->file(), l->path_of("modules_to_save") + "[" + std::to_string(i) + "]", "\"" + given[i] + "\"",
                         "embed_tokens or lm_head (or their names in other families: wte, embed_in, word_embeddings, "
                         "tok_embeddings; embed_out, output)");
      }
      if (!lora.trains(*module)) lora.modules_to_save.push_back(*module);
    }
  }
  lora.upcast = l->optional_enum("upcast", kKbitUpcastNames);
  if (lora.upcast && method != Method::qlora) {
    l->fail("upcast", "only with a 4-bit base (method or adapter qlora): PEFT prepares k-bit models alone");
  }
  l->finish();
  return lora;
}

// `global_batch_tokens`: what one optimizer step trains on, for a length given in steps (as
// launchers give it: max_steps, --train-iters, training.steps). `sample_sequences`: the sequences a
// sample counts (a pair's two under a paired objective counted in pairs). `job.epochs` takes the
// epochs where they are given.
double read_tokens(ObjectReader& t, TrainingJob& job, double sample_sequences) {
  const std::int64_t seq_len = job.seq_len;
  const double global_batch_tokens = job.step_tokens();
  const int forms = (t.has("tokens") ? 1 : 0) + (t.has("samples") ? 1 : 0) + (t.has("dataset_tokens") ? 1 : 0) +
                    (t.has("steps") ? 1 : 0);
  if (forms != 1) {
    t.fail(t.has("tokens") ? "tokens" : "samples",
           "exactly one of \"tokens\", \"samples\", \"steps\" (optimizer steps), or \"dataset_tokens\" with \"epochs\"");
  }
  if (t.has("tokens")) return t.number("tokens", {1.0, kMaxTokens, false, "tokens"});
  if (t.has("steps")) {
    const double steps = static_cast<double>(t.integer("steps", 1, kMaxSequences));
    if (steps * global_batch_tokens > kMaxTokens) t.fail("steps", job.rl ? "RL steps x the step's responses of at most 1e15 tokens" : "steps x the global batch of at most 1e15 tokens");
    return steps * global_batch_tokens;
  }
  if (t.has("samples")) {
    const double samples = static_cast<double>(t.integer("samples", 1, kMaxSequences));
    const double tokens = samples * sample_sequences * static_cast<double>(seq_len);
    if (tokens > kMaxTokens) {
      t.fail("samples", "at most " + std::to_string(static_cast<std::int64_t>(kMaxTokens / (sample_sequences * static_cast<double>(seq_len)))) +
                            (job.rl ? " prompts" : sample_sequences > 1.0 ? " pairs" : " sequences") + " (1e15 tokens)");
    }
    return tokens;
  }
  if (job.rl) t.fail("dataset_tokens", "\"steps\" (RL steps), \"samples\" (prompts) or \"tokens\" with method rl");
  const double dataset = t.number("dataset_tokens", {1.0, kMaxTokens, false, "tokens"});
  const double epochs = t.number("epochs", {1e-3, 1e4, false, "epochs"});
  if (dataset * epochs > kMaxTokens) t.fail("epochs", "dataset_tokens x epochs of at most 1e15 tokens");
  job.epochs = epochs;
  return dataset * epochs;
}

// training.rope_scaling: { "type": linear|dynamic|yarn, "factor": F } stretches the rotary positions
// so that a model trains past its max_position_embeddings, up to F times it (what axolotl's
// rope_scaling sets in the model's config). It changes the rotary frequencies (YaRN also scales the
// attention logits): no memory and no measurable time. The factor counts from the config's
// max_position_embeddings: Llama 3.1's own llama3 scaling (8 x its original 8,192) is already in its
// 131,072, and the llama3 and longrope types, whose factors count from original_max_position_embeddings,
// are not read. Learned absolute positions (GPT-2's table) cannot be stretched.
double read_rope_scaling(ObjectReader& t, const ModelSpec& model) {
  std::optional<ObjectReader> o = t.optional_object("rope_scaling");
  if (!o) return 1.0;
  o->choice("type", {"linear", "dynamic", "yarn"});
  const double factor = o->number("factor", {1.0, 64.0, false, "times max_position_embeddings"});
  o->finish();
  if (model.learned_positions) {
    t.fail("rope_scaling", "no rope_scaling: " + model.id + " has learned absolute positions, not rotary ones");
  }
  return factor;
}

// training.method: full, lora or qlora (the next-token loss), or a post-training objective whose
// weights training.adapter says (full unless lora or qlora). "rl" is the contract's name for RL with
// rollouts, which is not modelled yet. Returns whether batches and samples count a paired
// objective's sequences rather than its pairs (preference.pairs false).
// training.rl: what one RL step generates and trains on (the contract's keys). `model` bounds the
// longest sequence.
constexpr std::int64_t kMaxStepResponses = 1'000'000;  // the generation model samples each one

RlSpec read_rl(ObjectReader& t, const ModelSpec& model) {
  ObjectReader o = t.object("rl");
  RlSpec rl;
  rl.algorithm = o.enum_value("algorithm", kRlAlgorithmNames);
  const bool ppo = rl.algorithm == RlAlgorithm::ppo;
  rl.prompts_per_step = o.integer("prompts_per_step", 1, 1'000'000);
  // TRL's defaults: GRPOConfig num_generations 8, RLOOConfig's rloo_k 2 (since renamed num_generations); PPO one.
  rl.rollouts_per_prompt = o.optional_integer("rollouts_per_prompt", 1, 4096).value_or(ppo ? 1 : rl.algorithm == RlAlgorithm::grpo ? 8 : 2);
  if (rl.sequences() > kMaxStepResponses) {
    o.fail("rollouts_per_prompt", "prompts_per_step x rollouts_per_prompt of at most " + std::to_string(kMaxStepResponses) + " responses a step");
  }
  if (rl.algorithm != RlAlgorithm::ppo && rl.rollouts_per_prompt < 2) {
    o.fail("rollouts_per_prompt", "at least 2 (" + to_string(rl.algorithm) + " takes its baseline from the group of a prompt's responses)");
  }
  rl.prompt_len = o.integer("prompt_len", 1, model.max_seq_len);
  ObjectReader r = o.object("response_len");
  rl.response_max = r.integer("max", 1, model.max_seq_len);
  rl.response_mean = r.number("mean", {0.0, static_cast<double>(rl.response_max), true, "tokens, at most max"});
  r.finish();
  if (rl.prompt_len + rl.response_max > model.max_seq_len) {
    o.fail("response_len", "a prompt_len + response_len.max of at most " + std::to_string(model.max_seq_len) +
                                " (the model's max_position_embeddings; training.rope_scaling stretches it)");
  }
  rl.engine = o.optional_enum("engine", kRolloutEngineNames).value_or(RolloutEngine::vllm);
  // The algorithms' published forms keep a KL term to the initial policy (InstructGPT's PPO,
  // DeepSeekMath's GRPO); TRL's GRPOConfig drops it by default (beta 0.0 since 0.19): say false then.
  rl.reference = o.optional_boolean("reference").value_or(true);
  rl.critic = o.optional_boolean("critic").value_or(ppo);
  if (rl.critic && !ppo) o.fail("critic", "false (" + to_string(rl.algorithm) + " has no critic; ppo does)");
  rl.epochs_per_batch = static_cast<int>(o.optional_integer("epochs_per_batch", 1, 100).value_or(1));
  rl.placement = o.optional_enum("placement", kRolloutPlacementNames);
  rl.off_policy_steps = static_cast<int>(o.optional_integer("off_policy_steps", 0, 64).value_or(0));
  if (rl.off_policy_steps > 0 && rl.placement == RolloutPlacement::colocated) {
    o.fail("off_policy_steps", "0 with placement colocated (the generator and trainer take turns on the same GPUs; "
                               "a generator a step ahead needs GPUs of its own: placement separate)");
  }
  o.finish();
  return rl;
}

bool read_method(ObjectReader& t, TrainingJob& job) {
  static constexpr std::string_view kMethods[] = {"full", "lora", "qlora", "dpo", "simpo", "orpo", "kto", "reward", "rl"};
  // Each word is spelled by the method or the objective table (value_of below relies on it).
  static_assert([] {
    for (std::string_view w : kMethods) {
      if (!value_of(kMethodNames, w) && !value_of(kTrainingObjectiveNames, w)) return false;
    }
    return true;
  }());
  const std::string method = t.optional_choice("method", kMethods).value_or("full");
  if (const std::optional<Method> m = value_of(kMethodNames, method)) {
    job.method = *m;
    if (t.has("adapter")) t.fail("adapter", "no \"adapter\" with method " + method + " (it says the weights trained already)");
    if (t.has("preference")) t.fail("preference", "no \"preference\" block unless method is a preference objective (dpo, simpo, orpo, kto, reward)");
    if (t.has("rl")) t.fail("rl", "no \"rl\" block unless method is rl");
    return false;
  }
  job.objective = *value_of(kTrainingObjectiveNames, method);
  job.method = t.optional_enum("adapter", kMethodNames).value_or(Method::full);
  if (job.objective == TrainingObjective::rl) {
    if (t.has("preference")) t.fail("preference", "no \"preference\" block with method rl (training.rl says what a step does)");
    return false;
  }
  if (t.has("rl")) t.fail("rl", "no \"rl\" block unless method is rl");
  // DPO and KTO compare with a reference; SimPO, ORPO and a reward model have none.
  ReferenceSource reference = takes_reference(job.objective) ? ReferenceSource::model : ReferenceSource::none;
  bool pairs = paired(job.objective);
  if (std::optional<ObjectReader> p = t.optional_object("preference")) {
    if (const std::optional<ReferenceSource> given = p->optional_enum("reference", kReferenceSourceNames)) {
      if (!takes_reference(job.objective) && *given != ReferenceSource::none) {
        p->fail("reference", "none (" + method + " has no reference model)");
      }
      // TRL's DPO ran the reference even under reference_free (gone since 0.29) and KTO has no
      // reference-free mode: a DPO without one is SimPO's or ORPO's cost.
      if (takes_reference(job.objective) && *given == ReferenceSource::none) {
        p->fail("reference", "model or precomputed (" + method + " compares with a reference; simpo and orpo train pairs without one)");
      }
      reference = *given;
    }
    if (const std::optional<bool> given = p->optional_boolean("pairs")) {
      if (*given && !paired(job.objective)) p->fail("pairs", "false (kto trains on unpaired examples)");
      pairs = *given;
    }
    p->finish();
  }
  job.reference = reference;
  return paired(job.objective) && !pairs;
}

// An RL job's shapes: training.rl, then the sequences the trainer sees (a prompt and a mean
// response; seq_len is not given) and the responses an optimizer step trains on (global_batch_size,
// all of a step's by default; it divides them).
void read_rl_shape(ObjectReader& t, const ModelSpec& model, TrainingJob& job) {
  job.rl = read_rl(t, model);
  if (t.has("seq_len")) t.fail("seq_len", "no seq_len with method rl (a sequence is rl.prompt_len and a response of rl.response_len)");
  if (t.has("global_batch_tokens")) t.fail("global_batch_tokens", "global_batch_size (responses per optimizer step) with method rl");
  job.seq_len = job.rl->prompt_len + static_cast<std::int64_t>(std::llround(job.rl->response_mean));
  job.reference = job.rl->reference ? ReferenceSource::model : ReferenceSource::none;
  const std::int64_t responses = job.rl->sequences();
  job.global_batch_sequences = t.optional_integer("global_batch_size", 1, responses).value_or(responses);
  if (responses % job.global_batch_sequences != 0) {
    t.fail("global_batch_size", "a divisor of the step's " + std::to_string(responses) +
                                    " responses (prompts_per_step x rollouts_per_prompt): each optimizer step trains on an equal share");
  }
}

TrainingJob read_training(ObjectReader& r, ModelSpec& model, std::optional<Framework>& framework) {
  ObjectReader t = r.object("training");
  TrainingJob job;
  // Under a paired objective whose batches count sequences (preference.pairs false) a pair is two.
  const bool pairs_as_sequences = read_method(t, job);
  const double sample_sequences = paired(job.objective) && !pairs_as_sequences ? 2.0 : 1.0;
  const double rope_factor = read_rope_scaling(t, model);
  if (rope_factor > 1.0) {
    model.max_seq_len = static_cast<std::int64_t>(std::floor(static_cast<double>(model.max_seq_len) * rope_factor));
  }
  const std::string seq_allowed =
      "an integer from 1 to " + std::to_string(model.max_seq_len) +
      (rope_factor > 1.0 ? " (the model's max_position_embeddings x rope_scaling.factor)"
                         : " (the model's max_position_embeddings; training.rope_scaling stretches it)");
  if (job.objective == TrainingObjective::rl) {
    read_rl_shape(t, model, job);
  } else {
    const nlohmann::json& seq = t.raw("seq_len");
    if (!seq.is_number_integer() || seq.get<std::int64_t>() < 1 || seq.get<std::int64_t>() > model.max_seq_len) {
      t.fail("seq_len", seq_allowed);
    }
    job.seq_len = seq.get<std::int64_t>();
    if (t.has("global_batch_tokens") == t.has("global_batch_size")) {
      t.fail("global_batch_tokens", "exactly one of \"global_batch_tokens\" and \"global_batch_size\" (sequences)");
    }
    if (t.has("global_batch_tokens")) {
      const double tokens = t.number("global_batch_tokens", {1.0, 1e12, false, "tokens"});
      const double sequences = tokens / static_cast<double>(job.seq_len);
      if (sequences != std::floor(sequences) || sequences < 1.0) {
        t.fail("global_batch_tokens", "a whole multiple of seq_len (" + std::to_string(job.seq_len) + ")");
      }
      job.global_batch_sequences = static_cast<std::int64_t>(sequences);
      // Tokens count both sequences of a pair, whatever the batch sizes count.
      if (paired(job.objective)) {
        if (job.global_batch_sequences % 2 != 0) {
          t.fail("global_batch_tokens", "a whole multiple of 2 x seq_len (" + std::to_string(2 * job.seq_len) + "): a pair is two sequences");
        }
        job.global_batch_sequences /= 2;
      }
    } else {
      job.global_batch_sequences = t.integer("global_batch_size", 1, 100'000'000);
      if (pairs_as_sequences) {
        // The batch counts sequences, two to a pair: the examples are pairs.
        if (job.global_batch_sequences % 2 != 0) {
          t.fail("global_batch_size", "an even number of sequences (preference.pairs false: a pair is two)");
        }
        job.global_batch_sequences /= 2;
      }
    }
  }
  job.tokens = read_tokens(t, job, job.rl ? static_cast<double>(job.rl->rollouts_per_prompt) : sample_sequences);
  if (job.step_tokens() > job.tokens) {
    t.fail(job.rl ? (t.has("samples") ? "samples" : "tokens") : t.has("global_batch_tokens") ? "global_batch_tokens" : "global_batch_size",
           job.rl ? "an RL step no larger than the training tokens (" + io::describe(job.tokens) + ")"
                  : "a global batch no larger than the training tokens (" + io::describe(job.tokens) + ")");
  }
  job.precision = t.optional_enum("precision", kPrecisionNames).value_or(Precision::bf16);
  job.optimizer = t.optional_enum("optimizer", kOptimizerNames).value_or(OptimizerKind::adamw);
  job.master_weights = t.optional_boolean("master_weights").value_or(true);
  job.optimizer_in_backward = t.optional_boolean("optimizer_in_backward").value_or(false);
  framework = t.optional_enum("framework", kFrameworkNames);
  job.torch_compile = t.optional_boolean("torch_compile").value_or(false);
  job.compile_loss = t.optional_boolean("compile_loss");
  job.attention = t.optional_enum("attention", kAttentionKernelNames).value_or(AttentionKernel::automatic);
  if (job.method == Method::full && t.has("lora")) {
    t.fail("lora", job.objective == TrainingObjective::sft ? "no \"lora\" block unless method is lora or qlora"
                                                   : "no \"lora\" block unless adapter is lora or qlora");
  }
  if (job.method != Method::full) job.lora = read_lora(t, job.method);
  t.finish();
  return job;
}

Constraints read_constraints(ObjectReader& r) {
  Constraints c;
  std::optional<ObjectReader> o = r.optional_object("constraints");
  if (!o) return c;
  c.deadline_hours = o->optional_number("deadline_hours", {1e-3, 1e5, false, "hours"});
  c.budget_usd = o->optional_number("budget_usd", {0.01, 1e10, false, "USD"});
  c.value_of_time_usd_per_hour = o->optional_number("value_of_time_usd_per_hour", {0.0, 1e9, false, "USD per hour of wall time"});
  c.max_kwh = o->optional_number("max_kwh", {0.0, 1e12, true, "kWh"});
  c.min_completion_probability = o->optional_number("min_completion_probability", {0.0, 1.0, true}).value_or(0.9);
  c.vram_headroom = o->optional_number("vram_headroom", {0.0, 0.5}).value_or(memory_defaults::kDefaultVramHeadroom);
  if (o->has("quota")) {
    const nlohmann::json& list = o->raw("quota");
    if (!list.is_array()) o->fail("quota", "a list of {provider, region (optional), pricing (optional), gpus}");
    for (std::size_t i = 0; i < list.size(); ++i) {
      ObjectReader q(list[i], r.file(), o->path_of("quota") + "[" + std::to_string(i) + "]");
      GpuQuota g;
      g.provider = q.string("provider");
      g.region = q.optional_string("region");
      g.pricing = q.optional_enum("pricing", kPricingNames);
      if (g.pricing == Pricing::spot_with_fallback) q.fail("pricing", "on_demand or spot (a fallback plan counts against both)");
      g.gpus = static_cast<int>(q.integer("gpus", 0, 10'000'000));
      q.finish();
      c.quota.push_back(std::move(g));
    }
  }
  o->finish();
  return c;
}

SearchSpace read_search(ObjectReader& r) {
  SearchSpace s;
  std::optional<ObjectReader> o = r.optional_object("search");
  if (!o) return s;
  if (o->has("instances")) s.instances = o->string_list("instances");
  if (o->has("gpus")) s.gpus = o->string_list("gpus");
  s.max_nodes = static_cast<int>(o->optional_integer("max_nodes", 1, 4096).value_or(16));
  if (o->has("pricing")) {
    s.pricing = o->enum_list("pricing", kPricingNames);
  }
  if (o->has("frameworks")) s.frameworks = o->enum_list("frameworks", kFrameworkNames);
  if (std::optional<ObjectReader> fixed = o->optional_object("fixed")) {
    s.fixed = read_fixed_choices(*fixed);
    // The machine and pricing a user's launcher fixes replace the lists searched.
    if (s.fixed.instance) s.instances = {*s.fixed.instance};
    if (s.fixed.pricing) s.pricing = {*s.fixed.pricing};
  }
  o->finish();
  return s;
}

CheckpointSpec read_checkpoint(ObjectReader& r) {
  CheckpointSpec c;
  std::optional<ObjectReader> o = r.optional_object("checkpoint");
  if (!o) return c;
  CheckpointSettings& s = c.settings;
  if (const std::optional<std::string> where = o->optional_choice("storage", {"auto", "nvme", "network", "object_store"});
      where && *where != "auto") {
    c.storage = *value_of(kCheckpointStorageNames, *where);
  }
  s.keep = static_cast<int>(o->optional_integer("keep", 1, 1000).value_or(3));
  if (const std::optional<std::string> mode = o->optional_choice("mode", {"auto", "sync", "async"}); mode && *mode != "auto") {
    c.mode = *value_of(kCheckpointModeNames, *mode);
    s.mode = *c.mode;
  }
  s.resumable = o->optional_boolean("resumable").value_or(true);
  if (const auto gbps = o->optional_number("write_GBps", {1e-3, 1e4, false, "GB/s per node"})) {
    s.write_bytes_per_second_per_node = *gbps * 1e9;
  }
  o->finish();
  return c;
}

PreemptionSpec read_preemption(ObjectReader& r, const fs::path& scenario_file) {
  PreemptionSpec p;
  std::optional<ObjectReader> o = r.optional_object("preemption");
  if (!o) return p;
  const int given = (o->has("interruptions_per_node_hour") ? 1 : 0) + (o->has("bucket") ? 1 : 0) + (o->has("trace") ? 1 : 0);
  if (given > 1) {
    o->fail("trace", "at most one of \"interruptions_per_node_hour\", \"bucket\" and \"trace\"");
  }
  p.interruptions_per_node_hour = o->optional_number("interruptions_per_node_hour", {0.0, 100.0, false, "per node-hour"});
  p.bucket = o->optional_choice("bucket", kSpotAdvisorBuckets);
  p.reclaim_fraction = o->optional_number("reclaim_fraction", {0.0, 1.0});
  p.reacquire_hours = o->optional_number("reacquire_hours", {0.0, 1000.0, false, "hours"});
  if (const auto trace = o->optional_string("trace")) {
    fs::path path = *trace;
    if (path.is_relative()) path = scenario_file.parent_path() / path;
    if (const std::string problem = io::input_file_problem(path); !problem.empty()) {
      o->fail("trace", "the path of a readable spot trace file (" + path.string() + " is " + problem + ")");
    }
    p.trace = io::read_spot_trace(path);
  }
  o->finish();
  return p;
}

// "region": "x" or "regions": ["x", ...] (the same for zones): never both.
std::vector<std::string> one_or_list(ObjectReader& o, std::string_view one, std::string_view list) {
  if (o.has(one) && o.has(list)) o.fail(list, "either \"" + std::string(one) + "\" or \"" + std::string(list) + "\", not both");
  if (o.has(one)) return {o.string(one)};
  if (o.has(list)) {
    std::vector<std::string> values = o.string_list(list);
    if (values.empty()) o.fail(list, "a non-empty list (leave it out to allow every one)");
    return values;
  }
  return {};
}

PriceSpec read_prices(ObjectReader& r, const Catalog& catalog, const fs::path& scenario_file) {
  PriceSpec p;
  std::optional<ObjectReader> o = r.optional_object("prices");
  if (!o) return p;
  PricePolicy& policy = p.policy;
  policy.discount = o->optional_number("discount", {0.0, 0.95}).value_or(0.0);
  policy.regions = one_or_list(*o, "region", "regions");
  policy.zones = one_or_list(*o, "zone", "zones");
  policy.spot = o->optional_enum("spot", kSpotQuoteRuleNames).value_or(SpotQuoteRule::median);
  p.electricity_usd_per_kwh = o->optional_number("electricity_usd_per_kWh", {0.0, 10.0, false, "USD per kWh"});
  p.storage_usd_per_gb_month = o->optional_number("storage_usd_per_GB_month", {0.0, 10.0, false, "USD per GB-month"});
  p.egress_usd_per_gb = o->optional_number("egress_usd_per_GB", {0.0, 10.0, false, "USD per GB"});
  p.max_age_days = static_cast<int>(o->optional_integer("max_age_days", 1, 36500).value_or(120));
  if (const auto book = o->optional_string("book")) {
    fs::path path = *book;
    if (path.is_relative()) path = scenario_file.parent_path() / path;
    if (const std::string problem = io::input_file_problem(path); !problem.empty()) {
      o->fail("book", "the path of a readable price book (" + path.string() + " is " + problem + ")");
    }
    p.book = read_price_book_file(path, catalog);
  }
  if (std::optional<ObjectReader> overrides = o->optional_object("overrides")) {
    for (const std::string& id : overrides->keys()) {
      ObjectReader e = overrides->object(id);
      if (catalog.find_instance(id) == nullptr) overrides->fail(id, "a catalog instance id");
      const io::NumberRule usd{0.0, 1e6, false, "USD per hour"};
      p.overrides[id] = {e.optional_number("on_demand_usd_per_hour", usd), e.optional_number("spot_usd_per_hour", usd)};
      e.finish();
    }
    overrides->finish();
  }
  o->finish();
  return p;
}

EgressSpec read_egress(ObjectReader& r) {
  EgressSpec e;
  std::optional<ObjectReader> o = r.optional_object("egress");
  if (!o) return e;
  e.final_weights = o->optional_boolean("final_weights").value_or(false);
  e.extra_gb = o->optional_number("extra_GB", {0.0, 1e8, false, "GB"}).value_or(0.0);
  o->finish();
  return e;
}

NodeSpec read_cluster(const nlohmann::json& j, const Catalog& catalog, const std::string& file, const std::string& path) {
  ObjectReader r(j, file, path);
  NodeSpec n;
  n.id = r.string("id");
  if (!io::is_one_printable_line(n.id)) r.fail("id", "one line of printable text (no control character or bidirectional override)");
  n.provider = "inline";
  n.gpu = catalog.gpu_at(r, "gpu");
  n.gpus_per_node = static_cast<int>(r.integer("gpus_per_node", 1, 64));
  n.max_nodes = static_cast<int>(r.integer("max_nodes", 1, 100000));
  n.intra_node_bytes_per_second_per_gpu = r.number("intra_node_GBps", {0.1, 1e5, false, "GB/s"}) * 1e9;
  n.intra_node_link = r.optional_enum("intra_node_link", kIntraNodeLinkNames).value_or(IntraNodeLink::nvswitch);
  n.inter_node_bits_per_second = io::network_gbps(r, "inter_node_Gbps") * 1e9;
  n.host_memory_bytes = r.number("host_memory_GiB", {0.5, 1e6, false, "GiB"}) * kGiB;
  n.vcpus = static_cast<int>(r.optional_integer("vcpus", 1, 100000).value_or(kDefaultVcpusPerGpu * n.gpus_per_node));
  n.local_nvme_bytes = r.optional_number("local_nvme_GB", {0.0, 1e7, false, "GB"}).value_or(0.0) * 1e9;
  PriceQuote q;
  q.region = "inline";
  if (std::optional<ObjectReader> o = r.optional_object("owned")) {
    // Bought, not rented: a node-hour used costs the purchase spread over the hours used in its life.
    for (const char* rented : {"usd_per_hour", "spot_usd_per_hour"}) {
      if (r.has(rented)) r.fail(rented, "absent beside \"owned\" (an owned node's hourly cost is its purchase over the hours it is used)");
    }
    NodeSpec::Owned own;
    own.purchase_usd = o->number("purchase_usd", {0.0, 1e9, true, "USD per node"});
    own.lifetime_years = o->number("lifetime_years", {0.0, 30.0, true, "years"});
    own.utilisation = o->number("utilisation", {0.0, 1.0, true});
    o->finish();
    n.owned = own;
    q.on_demand_usd_per_hour = own.usd_per_node_hour();
  } else {
    q.on_demand_usd_per_hour = r.number("usd_per_hour", {0.0, 1e6, false, "USD per hour"});
  }
  q.spot_usd_per_hour = r.optional_number("spot_usd_per_hour", {0.0, 1e6, false, "USD per hour"});
  n.spot_interruptions_per_node_hour =
      r.optional_number("spot_interruptions_per_node_hour", {0.0, 100.0, false, "per node-hour"});
  n.prices.push_back(q);
  n.source = "scenario " + file;
  n.energy_sites = catalog.energy_sites();
  // Spot on a cluster without its own rate takes the traces' figures (said where it is priced).
  if (q.spot_usd_per_hour) {
    if (const SpotMarketFigures* f = catalog.spot_market("inline", n.gpus_per_node)) n.spot_market = *f;
  }
  r.finish();
  return n;
}

ModelSpec read_model(ObjectReader& r, const Catalog& catalog, const fs::path& scenario_file, ModelSource& source) {
  const nlohmann::json& m = r.raw("model");
  // model_family: read a config of a model_type preflight does not know as a family it does.
  const std::string family = r.optional_string("model_family").value_or("");
  if (!family.empty() && !hf::is_family(family)) r.fail("model_family", "a family preflight reads (" + hf::family_names() + ")");
  if (m.is_object()) {
    HfModel read = read_hf_model(m, "inline", scenario_file.string(), r.path_of("model"), family);
    source = {"inline", "scenario " + scenario_file.string(), read.notes};
    return read.spec;
  }
  if (!m.is_string() || m.get<std::string>().empty()) {
    r.fail("model", "a catalog model id, a path to a Hugging Face config.json, or an inline config object");
  }
  const std::string name = m.get<std::string>();
  if (catalog.has_model(name)) {
    if (!family.empty()) r.fail("model_family", "no model_family beside a catalog model (it names its own family)");
    CatalogModel cm = catalog.model(name);
    source = {"catalog " + name, cm.source + " (as of " + cm.as_of + ")", {}};
    return cm.spec;
  }
  const bool looks_like_path = name.find('/') != std::string::npos || name.ends_with(".json");
  if (!looks_like_path) r.fail("model", "a catalog model id (" + catalog.model_ids_text() + ") or a path to a config.json");
  fs::path path = name;
  if (path.is_relative()) path = scenario_file.parent_path() / path;
  if (const std::string problem = io::input_file_problem(path); !problem.empty()) {
    r.fail("model", "a catalog model id or a readable config.json (" + path.string() + " is " + problem + ")");
  }
  const nlohmann::json config = io::parse_file(path);
  HfModel read = read_hf_model(config, hf_model_name(path), path.string(), "$", family);
  // A downloaded model folder's weights say how many parameters the config should count.
  check_stored_weights(path.parent_path(), config, read.spec);
  source = {"file " + path.string(), path.string(), read.notes};
  return read.spec;
}

}  // namespace

Scenario load_scenario(const fs::path& file, const Catalog& catalog, const nlohmann::json& patch) {
  nlohmann::json doc = io::parse_file(file);
  if (patch.is_object() && doc.is_object()) doc.merge_patch(patch);
  return read_scenario(doc, file, catalog);
}

Scenario read_scenario(const nlohmann::json& doc, const fs::path& file, const Catalog& catalog) {
  ObjectReader r(doc, file.string(), "$");
  Scenario s;
  s.file = file;
  s.name = r.optional_string("name").value_or(file.stem().string());
  // The name goes into exported scripts' comments, report headings and pull-request comments.
  if (!io::is_one_printable_line(s.name)) {
    r.fail("name", "one line of printable text (no newline, control character or bidirectional override)");
  }
  r.optional_string("description");
  ModelSpec model = read_model(r, catalog, file, s.model_source);
  TrainingJob training = read_training(r, model, s.framework);
  s.workload = Workload(std::move(model), std::move(training));
  s.constraints = read_constraints(r);
  // A quota names a provider some machine has (a misspelt one would bound nothing, silently).
  for (std::size_t i = 0; i < s.constraints.quota.size(); ++i) {
    const std::string& provider = s.constraints.quota[i].provider;
    if (provider == "inline" || has_provider(catalog, provider)) continue;
    throw InputError(file.string(), "$.constraints.quota[" + std::to_string(i) + "].provider", "\"" + provider + "\"",
                     "a provider of the catalog or inline: " + catalog_providers_text(catalog));
  }
  s.objective = r.optional_enum("objective", kObjectiveNames).value_or(Objective::cost);
  s.search = read_search(r);
  s.checkpoint = read_checkpoint(r);
  s.preemption = read_preemption(r, file);
  s.prices = read_prices(r, catalog, s.file);
  if (s.search.fixed.region) s.prices.policy.regions = {*s.search.fixed.region};
  s.egress = read_egress(r);
  if (r.has("clusters")) {
    const nlohmann::json& clusters = r.raw("clusters");
    if (!clusters.is_array()) r.fail("clusters", "a list of machine descriptions");
    for (std::size_t i = 0; i < clusters.size(); ++i) {
      s.clusters.push_back(read_cluster(clusters[i], catalog, file.string(), "$.clusters[" + std::to_string(i) + "]"));
    }
  }
  for (std::size_t i = 0; i < s.search.instances.size(); ++i) {
    if (find_node(s, catalog, s.search.instances[i]) == nullptr) {
      throw InputError(file.string(), "$.search.instances[" + std::to_string(i) + "]", "\"" + s.search.instances[i] + "\"",
                       "a catalog instance id (" + catalog.instance_ids_text() + ") or an inline cluster id");
    }
  }
  for (std::size_t i = 0; i < s.search.gpus.size(); ++i) {
    if (catalog.find_gpu(s.search.gpus[i]) == nullptr) {
      throw InputError(file.string(), "$.search.gpus[" + std::to_string(i) + "]", "\"" + s.search.gpus[i] + "\"",
                       "a GPU id: " + catalog.gpu_ids_text());
    }
  }
  if (r.has("config")) s.config_json = r.raw("config");
  r.finish();
  return s;
}

const NodeSpec* find_node(const Scenario& scenario, const Catalog& catalog, const std::string& id) {
  for (const NodeSpec& n : scenario.clusters) {
    if (n.id == id) return &n;
  }
  return catalog.find_instance(id);
}

Framework default_framework(const Scenario& scenario, const Parallelism& layout) {
  if (scenario.framework) return *scenario.framework;
  return model_parallel(layout) ? Framework::megatron : Framework::transformers;
}

StrategyConfig with_offering_framework(StrategyConfig c, const Scenario& scenario) {
  if (layout_refusal(c.framework, c).empty()) return c;
  std::vector<Framework> candidates = searched_frameworks(scenario);
  for (const EnumName<Framework>& entry : kFrameworkNames) candidates.push_back(entry.value);
  for (const Framework f : candidates) {
    if (layout_refusal(f, c).empty()) {
      c.framework = f;
      return c;
    }
  }
  return c;
}

std::vector<Framework> searched_frameworks(const Scenario& scenario) {
  if (!scenario.search.frameworks.empty()) return scenario.search.frameworks;
  if (scenario.framework) return {*scenario.framework};
  // Adapters run on transformers alone, and so do the objectives Megatron's stacks do not run.
  if (scenario.training().method != Method::full || !runs_objective(Framework::megatron, scenario.training().objective)) {
    return {Framework::transformers};
  }
  return {Framework::transformers, Framework::megatron};
}

}  // namespace preflight
