// Reading users' own training files (--from): YAML typed as PyYAML types it, every key of every
// shipped example accounted for (read or ignored with a reason, never dropped), models found by Hub
// id, Megatron's arguments rebuilt into the architecture they describe, torchtitan's degrees into
// sharding, and the bounds on hostile input.

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <set>
#include <string>

#include "planner/import/config_import.hpp"
#include "planner/import/foreign_document.hpp"
#include "planner/io/input_file.hpp"
#include "planner/io/json_reader.hpp"
#include "planner/scenario/megatron_pipeline_layout.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

ImportContext context() {
  ImportContext c;
  c.catalog = &test::catalog();
  return c;
}

ImportedSetup imported(const std::string& text, const std::string& name) { return import_text(text, name, context()); }

nlohmann::json value_of(const ImportedSetup& s, const std::string& target) {
  const ImportedFact* f = s.fact(target);
  return f == nullptr ? nlohmann::json() : f->value;
}

TEST(ConfigImport, YamlScalarsAreTypedAsPyYamlTypesThem) {
  const nlohmann::json d = yaml_document("a: yes\nb: 1e-5\nc: 1.0e-5\nd: 010\ne: ~\nf: \"true\"\ng: 0x10\nh: Off\n", "t.yaml");
  EXPECT_EQ(d["a"], true);
  EXPECT_EQ(d["b"], "1e-5");  // YAML 1.1 floats need a dot: PyYAML reads this as a string
  EXPECT_DOUBLE_EQ(d["c"].get<double>(), 1e-5);
  EXPECT_EQ(d["d"], 8);  // a leading zero is octal in YAML 1.1
  EXPECT_TRUE(d["e"].is_null());
  EXPECT_EQ(d["f"], "true");
  EXPECT_EQ(d["g"], 16);
  EXPECT_EQ(d["h"], false);
}

TEST(ConfigImport, AnAliasBombIsRefusedNotExpanded) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    const char prev = static_cast<char>(c - 1);
    bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
            ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
  }
  try {
    yaml_document(bomb, "bomb.yaml");
    FAIL() << "an alias bomb was expanded";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bomb.yaml");
    EXPECT_NE(e.value().find("aliases expanded"), std::string::npos);
  }
}

TEST(ConfigImport, DeepSpeedAutoValuesAreLeftToTheTrainerOrTheScenario) {
  const ImportedSetup s = imported(R"({"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto", "bf16": {"enabled": "auto"},
    "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": true}}})",
                                   "ds.json");
  EXPECT_EQ(value_of(s, "config.sharding"), "zero3");
  EXPECT_EQ(value_of(s, "config.offload.optimizer"), "cpu");
  EXPECT_FALSE(s.has("config.micro_batch"));
  EXPECT_FALSE(s.has("training.global_batch_size"));
  EXPECT_FALSE(s.has("training.precision"));
}

// DeepSpeed's rule train_batch_size = micro x accumulation x ranks gives the data-parallel ranks.
TEST(ConfigImport, DeepSpeedBatchTermsGiveTheRanks) {
  const ImportedSetup s = imported(R"({"train_batch_size": 256, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4})", "ds.json");
  ASSERT_TRUE(s.world().gpus.has_value());
  EXPECT_EQ(s.world().gpus->value, 16);
}

TEST(ConfigImport, TwoFilesThatDisagreeAreNamedBoth) {
  ImportedSetup a = imported(R"({"zero_optimization": {"stage": 2}})", "a.json");
  const ImportedSetup b = imported("distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\n", "b.yaml");
  try {
    a.merge(b);
    FAIL() << "a contradiction was merged";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "b.yaml");
    EXPECT_EQ(e.json_path(), "deepspeed_config.zero_stage");
    EXPECT_NE(e.allowed().find("a.json: zero_optimization.stage"), std::string::npos);
  }
}

TEST(ConfigImport, HubIdsOfCatalogModelsAndTheirVariants) {
  const Catalog& c = test::catalog();
  EXPECT_EQ(catalog_model_for_hub_id(c, "meta-llama/Llama-2-7b-hf"), "llama-2-7b");
  EXPECT_EQ(catalog_model_for_hub_id(c, "meta-llama/Meta-Llama-3.1-8B-Instruct"), "llama-3.1-8b");
  EXPECT_EQ(catalog_model_for_hub_id(c, "NousResearch/Llama-2-13b-chat-hf"), "llama-2-13b");
  EXPECT_EQ(catalog_model_for_hub_id(c, "Qwen/Qwen2.5-7B-Instruct"), "qwen2.5-7b");
  EXPECT_EQ(catalog_model_for_hub_id(c, "mistralai/Mistral-7B-Instruct-v0.2"), "mistral-7b");
  EXPECT_EQ(catalog_model_for_hub_id(c, "someone/llama-2-7b-but-different"), std::nullopt);
  EXPECT_EQ(catalog_model_for_hub_id(c, "llama-2-7b"), std::nullopt);  // a catalog id, not a Hub id
}

// GPT-3 175B as Megatron-LM trains it: the vocabulary padded to a multiple of 128 x tp = 1024, the
// 51,200 of Narayanan et al. 2021 (section 5.1); the architecture of Brown et al. 2020, Table 2.1.
TEST(ConfigImport, MegatronArgumentsAreTheArchitecture) {
  const ImportedSetup s = imported(
      "torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 "
      "--num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048 --max-position-embeddings 2048 "
      "--micro-batch-size 1 --global-batch-size 1536 --vocab-file gpt2-vocab.json --fp16\n",
      "gpt3.sh");
  const nlohmann::json m = value_of(s, "model");
  ASSERT_TRUE(m.is_object()) << m.dump();
  EXPECT_EQ(m["n_embd"], 12288);
  EXPECT_EQ(m["n_layer"], 96);
  EXPECT_EQ(m["n_inner"], 4 * 12288);
  EXPECT_EQ(m["vocab_size"], 51200);
  EXPECT_EQ(value_of(s, "config.parallelism.tp"), 8);
  EXPECT_EQ(value_of(s, "config.parallelism.pp"), 16);
  EXPECT_EQ(value_of(s, "config.nodes"), 16);
  EXPECT_EQ(value_of(s, "training.global_batch_size"), 1536);
  EXPECT_EQ(value_of(s, "training.precision"), "fp16");
  EXPECT_EQ(value_of(s, "training.framework"), "megatron");
  // Without --overlap-grad-reduce Megatron-LM reduces after backward, slower than simulated: said.
  bool said = false;
  for (const std::string& n : s.notes()) said = said || n.find("without --overlap-grad-reduce") != std::string::npos;
  EXPECT_TRUE(said);
}

// A Megatron-LM launch of Mixtral's shape with `experts` experts on `nodes` nodes of 8 and `layout`'s arguments.
std::string mixtral_launch(int nodes, const std::string& layout, int experts) {
  return "torchrun --nproc_per_node 8 --nnodes " + std::to_string(nodes) + " pretrain_gpt.py " + layout +
         " --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 --group-query-attention "
         "--num-query-groups 8 --swiglu --normalization RMSNorm --num-experts " + std::to_string(experts) +
         " --moe-router-topk 2 --seq-length 4096 --max-position-embeddings 32768 --vocab-size 32000 --micro-batch-size 1 "
         "--global-batch-size 256 --bf16 --use-distributed-optimizer\n";
}

TEST(ConfigImport, MegatronExpertParallelismIsTheLayoutsEp) {
  const ImportedSetup s =
      imported(mixtral_launch(8, "--pipeline-model-parallel-size 2 --expert-model-parallel-size 8", 8), "mixtral.sh");
  EXPECT_EQ(value_of(s, "config.parallelism.ep"), 8);
  EXPECT_EQ(value_of(s, "config.parallelism.pp"), 2);
  EXPECT_EQ(value_of(s, "model")["num_local_experts"], 8);
  // Whole experts (parallel folding): ep 16 over tp 2 x dp 8, as `export` writes it back.
  const ImportedSetup folded = imported(
      mixtral_launch(2, "--tensor-model-parallel-size 2 --sequence-parallel --expert-tensor-parallel-size 1 "
                        "--expert-model-parallel-size 16 --moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep",
                     16),
      "folded.sh");
  EXPECT_EQ(value_of(folded, "config.parallelism.etp"), 1);
  EXPECT_EQ(value_of(folded, "config.parallelism.ep"), 16);
  // Megatron-Core's combined 1F1B, which `export` writes for ep_comm_overlap.
  const ImportedSetup overlapped =
      imported(mixtral_launch(8, "--expert-model-parallel-size 8 --overlap-moe-expert-parallel-comm", 8), "overlap.sh");
  EXPECT_EQ(value_of(overlapped, "config.parallelism.ep_comm_overlap"), true);
}

// Transformer Engine's userbuffers overlap (--tp-comm-overlap), which `export` writes for
// tp_comm_overlap; Megatron-LM refuses it without sequence parallelism, and so does the importer.
TEST(ConfigImport, MegatronTensorParallelOverlapIsReadAndNeedsSequenceParallelism) {
  const ImportedSetup s = imported(
      mixtral_launch(8, "--tensor-model-parallel-size 2 --sequence-parallel --tp-comm-overlap --expert-model-parallel-size 8", 8),
      "tp-overlap.sh");
  EXPECT_EQ(value_of(s, "config.parallelism.tp_comm_overlap"), true);
  EXPECT_THROW(imported(mixtral_launch(8, "--tensor-model-parallel-size 2 --tp-comm-overlap", 8), "no-sp.sh"), InputError);
  EXPECT_THROW(imported(mixtral_launch(8, "--sequence-parallel --tp-comm-overlap --expert-model-parallel-size 8", 8), "tp1.sh"),
               InputError);
  // A launch that leaves it out runs the collectives in line: plan keeps that instead of searching it.
  const ImportedSetup in_line = imported(
      mixtral_launch(8, "--tensor-model-parallel-size 2 --sequence-parallel --expert-model-parallel-size 8", 8), "in-line.sh");
  EXPECT_EQ(value_of(in_line, "config.parallelism.tp_comm_overlap"), false);
}

// Megatron-FSDP as Megatron-LM's examples launch it: optim_grads_params shards everything
// (fsdp_full), optim what the distributed optimizer shards; optim_grads and hybrid sharding are not modelled.
TEST(ConfigImport, MegatronFsdpIsReadAsItsShardingStrategy) {
  const std::string fsdp = "--use-megatron-fsdp --no-gradient-accumulation-fusion --ckpt-format fsdp_dtensor";
  EXPECT_EQ(value_of(imported(mixtral_launch(8, fsdp + " --data-parallel-sharding-strategy optim_grads_params", 8), "f.sh"),
                     "config.sharding"),
            "fsdp_full");
  // Without a strategy Megatron-Core's default, no_shard: the distributed optimizer's sharding at most.
  EXPECT_EQ(value_of(imported(mixtral_launch(8, fsdp, 8), "default.sh"), "config.sharding"), "zero1");
  EXPECT_EQ(value_of(imported(mixtral_launch(8, "--use-custom-fsdp --data-parallel-sharding-strategy optim_grads_params", 8),
                              "custom.sh"),
                     "config.sharding"),
            "fsdp_full");
  EXPECT_THROW(imported(mixtral_launch(8, fsdp + " --data-parallel-sharding-strategy optim_grads_params "
                                                 "--outer-dp-sharding-strategy optim", 8), "hsdp.sh"),
               InputError);
  EXPECT_EQ(value_of(imported(mixtral_launch(8, fsdp + " --data-parallel-sharding-strategy optim", 8), "o.sh"), "config.sharding"),
            "zero1");
  EXPECT_THROW(imported(mixtral_launch(8, fsdp + " --data-parallel-sharding-strategy optim_grads", 8), "og.sh"), InputError);
}

// Megatron-Core's own layout example for DeepSeek-V3 (61 layers and an MTP layer over pp 16 x 2
// virtual stages, docs/user-guide/features/pipeline_parallel_layout.md) unrolls to 32 chunks: two
// virtual stages per rank. What `export` writes for layers pp x interleave does not divide reads back.
TEST(ConfigImport, MegatronPipelineLayoutIsTheVirtualStages) {
  const PipelineLayoutCount example = read_pipeline_layout("Et*3|(tt|)*29,m|L");
  EXPECT_EQ(example.chunks(), 32);
  EXPECT_EQ(example.decoder_layers, 61);
  EXPECT_EQ(example.heaviest_rank_layers(16), 5);  // rank 0: its 3 layers beside the embedding, then 2
  // 29 chunks of 2 layers then 3 of 1 (pipeline_chunk_layers), the embedding's first, the loss's last.
  const std::string written = write_pipeline_layout(61, 16, 2);
  EXPECT_EQ(written, "Et*2|(t*2|)*28(t|)*2tL");
  const PipelineLayoutCount back = read_pipeline_layout(written);
  EXPECT_EQ(back.chunks(), 32);
  EXPECT_EQ(back.decoder_layers, 61);
  EXPECT_EQ(back.heaviest_rank_layers(16), 4);  // ceil(61 / 16), what is simulated
  EXPECT_EQ(write_pipeline_layout(4, 1, 1), "Et*4L");
  // What Megatron-Core's parser and validate_layer_layout take, and what they refuse.
  EXPECT_EQ(read_pipeline_layout("E|*3t,*2|tL").chunks(), 5);  // "|*3" repeats the separator; commas go first
  EXPECT_EQ(read_pipeline_layout("Et*0|tL").decoder_layers, 1);
  for (const char* bad : {"Et*|L", "(tt|L", "Ex|L", "(tt)|L)", "(t)|L", "t*9999999", "t|L)", "Et| tL", "E((t)*2)*2L", "E()*3L",
                          "tt|tt", "Et|L|t", "ELt", "EEt|L", "Et|m|tL", "E(mt)*2L", "Et|LL"}) {
    EXPECT_THROW(read_pipeline_layout(bad), InvalidConfig) << bad;
  }
  // Hostile text costs time linear in its length: repeats inside a chunk are counted, not unrolled.
  std::string hostile;
  for (int i = 0; i < 50'000; ++i) hostile += "(t*999999)*0";
  EXPECT_THROW(read_pipeline_layout(hostile), InvalidConfig);  // no embedding
  const auto launch = [](const std::string& layout, const std::string& extra = "") {
    return "torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py --pipeline-model-parallel-size 16 "
           "--pipeline-model-parallel-layout \"" + layout + "\" --num-layers 61 --hidden-size 7168 --num-attention-heads 128 "
           "--swiglu --vocab-size 129280 --seq-length 4096 --micro-batch-size 1 --global-batch-size 1920 --bf16" + extra + "\n";
  };
  const ImportedSetup s = imported(launch("Et*3|(tt|)*29,m|L"), "deepseek.sh");
  EXPECT_EQ(value_of(s, "config.parallelism.interleave"), 2);
  EXPECT_EQ(value_of(s, "config.parallelism.pp"), 16);
  // Megatron's older uneven split: reported, since the heaviest stage simulated stays ceil(61 / 16).
  const ImportedSetup first_last = imported(
      "torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py --pipeline-model-parallel-size 16 --decoder-first-pipeline-num-layers 3 "
      "--decoder-last-pipeline-num-layers 2 --num-layers 61 --hidden-size 7168 --num-attention-heads 128 --swiglu --vocab-size 129280 "
      "--seq-length 4096 --micro-batch-size 1 --global-batch-size 1920 --bf16\n",
      "first-last.sh");
  int reported = 0;
  for (const IgnoredKey& i : first_last.ignored()) reported += i.key.find("pipeline-num-layers") != std::string::npos ? 1 : 0;
  EXPECT_EQ(reported, 2);
  EXPECT_THROW(imported(launch("Et*3|(tt|)*28,m|L"), "short.sh"), InputError);  // 59 decoder layers, not 61
  EXPECT_THROW(imported(launch("Et*3|(tt|)*29,m|L", " --num-virtual-stages-per-pipeline-rank 2"), "both.sh"), InputError);
  bool underestimated = false;  // the documented layout gives rank 0 five layers, one more than simulated
  for (const std::string& n : s.notes()) underestimated = underestimated || n.find("gives a rank 5") != std::string::npos;
  EXPECT_TRUE(underestimated);
  EXPECT_THROW(imported(launch("Et*3|(tt|)*30L"), "odd.sh"), InputError);        // 31 chunks over 16 ranks
}

TEST(ConfigImport, ContextParallelDegreesAreTheLayoutsCp) {
  const ImportedSetup megatron = imported(
      "torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py --tensor-model-parallel-size 2 --context-parallel-size 4 "
      "--num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 --group-query-attention "
      "--num-query-groups 8 --swiglu --normalization RMSNorm --seq-length 131072 --max-position-embeddings 131072 "
      "--vocab-size 128256 --micro-batch-size 1 --global-batch-size 16 --bf16 --use-distributed-optimizer\n",
      "llama-128k.sh");
  EXPECT_EQ(value_of(megatron, "config.parallelism.cp"), 4);
  EXPECT_EQ(value_of(megatron, "config.parallelism.tp"), 2);
  // torchtitan's mesh: dp_replicate x dp_shard x cp x tp x pp GPUs; the batch is split over dp only.
  const ImportedSetup titan = imported("[training]\nlocal_batch_size = 1\n[parallelism]\ndata_parallel_shard_degree = 2\n"
                                       "context_parallel_degree = 4\n",
                                       "job.toml");
  EXPECT_EQ(value_of(titan, "config.parallelism.cp"), 4);
  EXPECT_EQ(value_of(titan, "config.sharding"), "fsdp_full");
}

TEST(ConfigImport, TorchtitanDegreesAreTheSharding) {
  const auto sharding = [](const std::string& parallelism) {
    return value_of(imported("[parallelism]\n" + parallelism, "job.toml"), "config.sharding");
  };
  EXPECT_EQ(sharding("data_parallel_shard_degree = 8\n"), "fsdp_full");
  EXPECT_EQ(sharding("data_parallel_shard_degree = 4\ndata_parallel_replicate_degree = 2\n"), "fsdp_hybrid");
  EXPECT_EQ(sharding("data_parallel_shard_degree = 1\ndata_parallel_replicate_degree = 8\n"), "ddp");
  EXPECT_EQ(sharding("data_parallel_shard_degree = 8\nfsdp_reshard_after_forward = \"never\"\n"), "fsdp_grad_op");
  const ImportedSetup hsdp = imported("[parallelism]\ndata_parallel_shard_degree = 4\ndata_parallel_replicate_degree = 2\ntensor_parallel_degree = 2\n", "job.toml");
  EXPECT_EQ(hsdp.world().gpus->value, 16);
  EXPECT_EQ(value_of(hsdp, "config.parallelism.sequence_parallel"), true);
}

// The dotted paths of a document's leaves (objects only: a list is one value).
void leaves(const nlohmann::json& j, const std::string& prefix, std::vector<std::string>& out) {
  if (!j.is_object() || j.empty()) {
    if (!prefix.empty()) out.push_back(prefix);
    return;
  }
  for (const auto& [k, v] : j.items()) leaves(v, prefix.empty() ? k : prefix + "." + k, out);
}

bool accounted(const ImportedSetup& s, const std::string& path) {
  const auto covers = [&](const std::string& key) {
    // The key itself, a parent of it, or the key as its file names it under a prefix (a launch's
    // "--deepspeed_config.zero_stage"): whole path components only.
    return key == path || path.starts_with(key + ".") || key.ends_with("." + path) || key.ends_with(" " + path);
  };
  for (const auto& [target, f] : s.facts()) {
    if (covers(f.key)) return true;
  }
  for (const IgnoredKey& i : s.ignored()) {
    if (covers(i.key)) return true;
  }
  for (const std::string& c : s.considered()) {
    if (c.ends_with(": " + path) || path.starts_with(c.substr(c.find(": ") + 2) + ".")) return true;
  }
  for (const auto* w : {&s.world().gpus, &s.world().gpus_per_node, &s.batch_per_rank()}) {
    if (w->has_value() && covers((*w)->key)) return true;
  }
  return false;
}

// "What it says that preflight does not model is reported as ignored, never silently dropped":
// every key of every shipped example is read or reported.
TEST(ConfigImport, EveryKeyOfEveryShippedExampleIsReadOrReported) {
  const fs::path dir = fs::path(PREFLIGHT_SOURCE_DIR) / "examples" / "from";
  int checked = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (ext != ".json" && ext != ".yaml" && ext != ".yml" && ext != ".toml") continue;
    if (e.path().filename() == "scenario.json") continue;
    const std::string text = io::read_input_file(e.path(), "an example");
    nlohmann::json doc = ext == ".json" ? io::parse_json(text, e.path().string())
                         : ext == ".toml" ? toml_document(text, e.path().string())
                                          : yaml_document(text, e.path().string());
    // The examples preflight refuses (their messages are tested in config_import_cli_test.cpp).
    // Refused on their own: a file they name is not shipped beside them, or what they run is no
    // training launch preflight models (their messages: config_import_cli_test.cpp, SOURCES.md).
    static const std::set<std::string> kRefused{"accelerate_deepspeed_config_file_template.yaml", "hf_trainingargs_llamafactory_lora_ppo.yaml",
                                                "skypilot_torchtitan_multinode.yaml", "skypilot_spot_resnet_multinode.yaml",
                                                "skypilot_spot_bert_qa.yaml"};
    if (kRefused.contains(e.path().filename().string())) {
      EXPECT_THROW(imported(text, e.path().string()), InputError) << e.path().filename();
      continue;
    }
    const ImportedSetup s = imported(text, e.path().string());
    std::vector<std::string> paths;
    leaves(doc, "", paths);
    for (const std::string& p : paths) EXPECT_TRUE(accounted(s, p)) << e.path().filename() << ": " << p;
    ++checked;
  }
  EXPECT_EQ(checked, 26);  // every shipped example but the refused ones
}

// The config_import fuzzer's find (minimised): accelerate launch followed by a word of dashes alone
// stripped its dashes with substr(npos), an std::out_of_range instead of a read.
TEST(ConfigImport, AWordOfDashesAloneIsNoAccelerateOption) {
  for (const std::string text : {"sh -c 'accelerate launch -'", "accelerate launch -- train.py --lr 1", "accelerate launch --=1 train.py"}) {
    EXPECT_NO_THROW(imported(text, "job.sh")) << text;
  }
}

// The config_import fuzzer's find: a value with bytes that are not UTF-8 quoted into a note by
// json::dump(), which throws on them; quoted with the replacement character now.
TEST(ConfigImport, AValueThatIsNotUtf8IsQuotedNotThrown) {
  const ImportedSetup s = imported("base_model: meta-llama/Meta-Llama-3-8B\ngradient_checkpointing: offload\xA9\n", "axolotl.yaml");
  bool noted = false;
  for (const std::string& n : s.notes()) noted = noted || n.find("gradient_checkpointing") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(ConfigImport, FilesLargerThanAConfigAreRefused) {
  // A valid DeepSpeed config padded to the limit is read; one byte more is refused for its size.
  std::string config = R"({"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 3}})";
  config.resize(kMaxForeignBytes, ' ');
  EXPECT_EQ(value_of(imported(config, "ds.json"), "config.sharding"), "zero3");
  config.push_back(' ');
  try {
    imported(config, "ds.json");
    FAIL() << "a file past the limit was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 1048576 bytes"), std::string::npos) << e.what();
  }
}

// What each stack casts to fp32 around a 4-bit base, as its file says: axolotl casts the norms and
// embeddings back after PEFT's preparation (none); TRL keeps the norms fp32 under bf16 (norms), and
// without bf16 in the file leaves it to the default (the scenario's precision decides); LLaMA-Factory
// prepares nothing unless upcast_layernorm. (A sharded 4-bit base is prepared by no stack whatever the
// file says: kbit_upcast, tested with it.)
TEST(ConfigImport, KbitUpcastAsEachStackRunsIt) {
  const ImportedSetup axolotl = imported(
      "base_model: meta-llama/Llama-3.1-8B\nadapter: qlora\nload_in_4bit: true\ngradient_checkpointing: unsloth\n", "axolotl.yml");
  EXPECT_EQ(value_of(axolotl, "training.lora.upcast"), "none");
  // Its "unsloth" (or "offload") checkpointing: every layer checkpointed, the inputs kept on the host.
  EXPECT_EQ(value_of(axolotl, "config.activation_checkpointing"), "full");
  EXPECT_EQ(value_of(axolotl, "config.offload.activations"), "cpu");
  const ImportedSetup trl_bf16 = imported("use_peft: true\nload_in_4bit: true\nbf16: true\nper_device_train_batch_size: 1\n", "sft.yaml");
  EXPECT_EQ(value_of(trl_bf16, "training.lora.upcast"), "norms");
  const ImportedSetup trl_unstated = imported("use_peft: true\nload_in_4bit: true\nper_device_train_batch_size: 1\n", "sft.yaml");
  EXPECT_FALSE(trl_unstated.has("training.lora.upcast"));
  const ImportedSetup factory =
      imported("finetuning_type: lora\nquantization_bit: 4\nper_device_train_batch_size: 1\n", "llamafactory.yaml");
  EXPECT_EQ(value_of(factory, "training.lora.upcast"), "none");
  const ImportedSetup factory_norms = imported(
      "finetuning_type: lora\nquantization_bit: 4\nupcast_layernorm: true\nper_device_train_batch_size: 1\n", "llamafactory.yaml");
  EXPECT_EQ(value_of(factory_norms, "training.lora.upcast"), "norms");
}

}  // namespace
}  // namespace preflight
