#include "support/fixtures.hpp"

#include "simulator/model/gpt_style_model.hpp"
#include "simulator/spec/units.hpp"

namespace preflight::test::fixtures {

namespace {

// A Llama-style config.json (LlamaForCausalLM and its relatives Mistral, Mixtral, Qwen2): SwiGLU MLP,
// RMSNorm, rotary positions, untied embeddings (tie_word_embeddings false), no biases, no dropout,
// head_dim = hidden_size / num_attention_heads (no config below sets head_dim).
ModelSpec llama_style(const char* id, std::int64_t hidden_size, std::int64_t num_hidden_layers,
                      std::int64_t num_attention_heads, std::int64_t num_key_value_heads,
                      std::int64_t intermediate_size, std::int64_t vocab_size, std::int64_t max_position_embeddings) {
  ModelSpec m;
  m.id = id;
  m.hidden = hidden_size;
  m.layers = num_hidden_layers;
  m.heads = num_attention_heads;
  m.kv_heads = num_key_value_heads;
  m.head_dim = hidden_size / num_attention_heads;
  m.intermediate = intermediate_size;
  m.vocab = vocab_size;
  m.max_seq_len = max_position_embeddings;
  m.tied_embeddings = false;
  m.learned_positions = false;
  m.mlp = MlpKind::gated;
  m.norm = NormKind::rms;
  return m;
}

}  // namespace

// A GPT-2-style config.json (n_embd, n_layer, n_head, n_positions): learned positions, LayerNorm,
// GELU MLP of n_inner = 4 x n_embd (n_inner absent or null), biases everywhere, tied embeddings,
// attn_pdrop and resid_pdrop 0.1.
ModelSpec gpt2_style(const std::string& id, std::int64_t n_embd, std::int64_t n_layer, std::int64_t n_head,
                     std::int64_t vocab_size, std::int64_t n_positions) {
  return gpt_style_model(id, n_embd, n_layer, n_head, vocab_size, n_positions, 0.1);
}

// Models: the values of catalogs/models/<id>.json, which copies the Hugging Face config.json.

// huggingface.co/openai-community/gpt2/blob/main/config.json: n_embd 768, n_layer 12, n_head 12,
// vocab_size 50257, n_positions 1024, attn_pdrop 0.1, resid_pdrop 0.1 (no n_inner, no tie_word_embeddings).
ModelSpec gpt2() { return gpt2_style("gpt2", 768, 12, 12, 50257, 1024); }

// No Hugging Face release: catalogs/models/gpt3-175b.json is a GPT-2-style config written from Brown
// et al. 2020 (arXiv:2005.14165, Table 2.1): n_embd 12288, n_layer 96, n_head 96, n_inner null,
// vocab_size 50257, n_positions 2048, tie_word_embeddings true, attn_pdrop 0.1, resid_pdrop 0.1.
ModelSpec gpt3_175b() { return gpt2_style("gpt3-175b", 12288, 96, 96, 50257, 2048); }

// huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json: hidden_size 4096, num_hidden_layers 32,
// num_attention_heads 32, num_key_value_heads 32, intermediate_size 11008, vocab_size 32000,
// max_position_embeddings 4096, tie_word_embeddings false.
ModelSpec llama_2_7b() { return llama_style("llama-2-7b", 4096, 32, 32, 32, 11008, 32000, 4096); }

// huggingface.co/meta-llama/Llama-2-13b-hf/blob/main/config.json: hidden_size 5120, num_hidden_layers 40,
// num_attention_heads 40, num_key_value_heads 40, intermediate_size 13824, vocab_size 32000,
// max_position_embeddings 4096, tie_word_embeddings false.
ModelSpec llama_2_13b() { return llama_style("llama-2-13b", 5120, 40, 40, 40, 13824, 32000, 4096); }

// huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json: hidden_size 8192, num_hidden_layers 80,
// num_attention_heads 64, num_key_value_heads 8, intermediate_size 28672, vocab_size 32000,
// max_position_embeddings 4096, tie_word_embeddings false.
ModelSpec llama_2_70b() { return llama_style("llama-2-70b", 8192, 80, 64, 8, 28672, 32000, 4096); }

// huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json: hidden_size 4096, num_hidden_layers 32,
// num_attention_heads 32, num_key_value_heads 8, intermediate_size 14336, vocab_size 128256,
// max_position_embeddings 131072, tie_word_embeddings false, attention_bias false, mlp_bias false,
// attention_dropout 0.0.
ModelSpec llama_3_1_8b() { return llama_style("llama-3.1-8b", 4096, 32, 32, 8, 14336, 128256, 131072); }

// huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json: hidden_size 8192, num_hidden_layers 80,
// num_attention_heads 64, num_key_value_heads 8, intermediate_size 28672, vocab_size 128256,
// max_position_embeddings 131072, tie_word_embeddings false, attention_bias false, mlp_bias false,
// attention_dropout 0.0.
ModelSpec llama_3_1_70b() { return llama_style("llama-3.1-70b", 8192, 80, 64, 8, 28672, 128256, 131072); }

// huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json: hidden_size 16384, num_hidden_layers 126,
// num_attention_heads 128, num_key_value_heads 8, intermediate_size 53248, vocab_size 128256,
// max_position_embeddings 131072, tie_word_embeddings false, attention_bias false, mlp_bias false,
// attention_dropout 0.0.
ModelSpec llama_3_1_405b() { return llama_style("llama-3.1-405b", 16384, 126, 128, 8, 53248, 128256, 131072); }

// huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json: hidden_size 4096, num_hidden_layers 32,
// num_attention_heads 32, num_key_value_heads 8, intermediate_size 14336, vocab_size 32000,
// max_position_embeddings 32768, tie_word_embeddings false.
ModelSpec mistral_7b() { return llama_style("mistral-7b", 4096, 32, 32, 8, 14336, 32000, 32768); }

// huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json: hidden_size 4096, num_hidden_layers 32,
// num_attention_heads 32, num_key_value_heads 8, intermediate_size 14336 (per expert), vocab_size 32000,
// max_position_embeddings 32768, tie_word_embeddings false, num_local_experts 8, num_experts_per_tok 2,
// attention_dropout 0.0.
ModelSpec mixtral_8x7b() {
  ModelSpec m = llama_style("mixtral-8x7b", 4096, 32, 32, 8, 14336, 32000, 32768);
  m.experts = 8;
  m.experts_per_token = 2;
  return m;
}

// Qwen2 (model_type "qwen2"): Qwen2Attention has biases on q, k and v whatever the config says.
// huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json: hidden_size 3584, num_hidden_layers 28,
// num_attention_heads 28, num_key_value_heads 4, intermediate_size 18944, vocab_size 152064,
// max_position_embeddings 131072, tie_word_embeddings false, attention_dropout 0.0.
ModelSpec qwen2_5_7b() {
  ModelSpec m = llama_style("qwen2.5-7b", 3584, 28, 28, 4, 18944, 152064, 131072);
  m.qkv_bias = true;
  return m;
}

// huggingface.co/Qwen/Qwen2.5-14B/blob/main/config.json: hidden_size 5120, num_hidden_layers 48,
// num_attention_heads 40, num_key_value_heads 8, intermediate_size 13824, vocab_size 152064,
// max_position_embeddings 131072, tie_word_embeddings false, attention_dropout 0.0.
ModelSpec qwen2_5_14b() {
  ModelSpec m = llama_style("qwen2.5-14b", 5120, 48, 40, 8, 13824, 152064, 131072);
  m.qkv_bias = true;
  return m;
}

// huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json: hidden_size 8192, num_hidden_layers 80,
// num_attention_heads 64, num_key_value_heads 8, intermediate_size 29568, vocab_size 152064,
// max_position_embeddings 131072, tie_word_embeddings false, attention_dropout 0.0.
ModelSpec qwen2_5_72b() {
  ModelSpec m = llama_style("qwen2.5-72b", 8192, 80, 64, 8, 29568, 152064, 131072);
  m.qkv_bias = true;
  return m;
}

std::vector<ModelSpec> models() {
  return {gpt2(),         gpt3_175b(),  llama_2_13b(),  llama_2_70b(), llama_2_7b(),  llama_3_1_405b(), llama_3_1_70b(),
          llama_3_1_8b(), mistral_7b(), mixtral_8x7b(), qwen2_5_14b(), qwen2_5_72b(), qwen2_5_7b()};
}

// GPUs: catalogs/gpus.json (memory_GiB x GiB, GB/s x 1e9, dense peaks in TFLOP/s).

// catalogs/gpus.json "a100-40gb": datasheet figures from `source` below.
GpuSpec a100_40gb() {
  GpuSpec g;
  g.id = "a100-40gb";
  g.name = "NVIDIA A100 40GB SXM4";
  g.architecture = GpuArchitecture::ampere;
  g.memory_bytes = 40 * kGiB;
  g.memory_bandwidth_bytes_per_second = 1555e9;
  g.peak_tflops.fp32 = 19.5;
  g.peak_tflops.tf32 = 156.0;
  g.peak_tflops.bf16 = 312.0;
  g.peak_tflops.fp16 = 312.0;
  // peak_tflops.fp8: null in the catalog (not supported or not published)
  g.nvlink_bytes_per_second_bidirectional = 600e9;
  g.sm_count = 108;  // A100 whitepaper: 108 SMs
  g.source =
      "nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf";
  g.as_of = "2026-11-29";
  return g;
}

// catalogs/gpus.json "a100-80gb": datasheet figures from `source` below.
GpuSpec a100_80gb() {
  GpuSpec g;
  g.id = "a100-80gb";
  g.name = "NVIDIA A100 80GB SXM4";
  g.architecture = GpuArchitecture::ampere;
  g.memory_bytes = 80 * kGiB;
  g.memory_bandwidth_bytes_per_second = 2039e9;
  g.peak_tflops.fp32 = 19.5;
  g.peak_tflops.tf32 = 156.0;
  g.peak_tflops.bf16 = 312.0;
  g.peak_tflops.fp16 = 312.0;
  // peak_tflops.fp8: null in the catalog (not supported or not published)
  g.nvlink_bytes_per_second_bidirectional = 600e9;
  g.sm_count = 108;  // A100 whitepaper: 108 SMs
  g.source =
      "nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf";
  g.as_of = "2026-11-29";
  return g;
}

// catalogs/gpus.json "h100-80gb": datasheet figures from `source` below.
GpuSpec h100_80gb() {
  GpuSpec g;
  g.id = "h100-80gb";
  g.name = "NVIDIA H100 80GB SXM5";
  g.architecture = GpuArchitecture::hopper;
  g.memory_bytes = 80 * kGiB;
  g.memory_bandwidth_bytes_per_second = 3350e9;
  g.peak_tflops.fp32 = 67.0;
  g.peak_tflops.tf32 = 494.5;
  g.peak_tflops.bf16 = 989.4;
  g.peak_tflops.fp16 = 989.4;
  g.peak_tflops.fp8 = 1979.0;
  g.nvlink_bytes_per_second_bidirectional = 900e9;
  g.sm_count = 132;  // H100 whitepaper: 132 SMs on SXM5
  g.source =
      "resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet + H100 whitepaper (Table 1/3) + H100 "
      "PCIe product brief PB-11133";
  g.as_of = "2026-11-29";
  return g;
}

// catalogs/gpus.json "h200": datasheet figures from `source` below.
GpuSpec h200() {
  GpuSpec g;
  g.id = "h200";
  g.name = "NVIDIA H200 141GB SXM";
  g.architecture = GpuArchitecture::hopper;
  g.memory_bytes = 141 * kGiB;
  g.memory_bandwidth_bytes_per_second = 4800e9;
  g.peak_tflops.fp32 = 67.0;
  g.peak_tflops.tf32 = 494.5;
  g.peak_tflops.bf16 = 989.0;
  g.peak_tflops.fp16 = 989.0;
  g.peak_tflops.fp8 = 1979.0;
  g.nvlink_bytes_per_second_bidirectional = 900e9;
  g.sm_count = 132;  // H200 is the GH100 die of H100 SXM5 with HBM3e: 132 SMs
  g.source = "nvidia.com/en-us/data-center/h200 datasheet";
  g.as_of = "2026-11-29";
  return g;
}

std::vector<GpuSpec> gpus() { return {a100_40gb(), a100_80gb(), h100_80gb(), h200()}; }

// Machines: catalogs/instances/<provider>.json (host_memory_GiB x GiB, GB/s and Gb/s x 1e9, local_nvme_GB x 1e9),
// every price quote as listed (region, zone, on-demand, spot, note). interruption_bucket is null for all of them.

// catalogs/instances/aws.json "aws/p4d.24xlarge": the specifications from `source` below,
// the prices from github.com/skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv @ commit
// 00148f2af3672e2229b4f7bf8157d5a3f36e3c35 (transcribed into shared/reference/gpu_instances.csv, source_path_at_commit
// catalogs/v8/aws/vms.csv@00148f2af367)
NodeSpec aws_p4d_24xlarge() {
  NodeSpec n;
  n.id = "aws/p4d.24xlarge";
  n.provider = "aws";
  n.gpu = a100_40gb();
  n.gpus_per_node = 8;
  n.vcpus = 96;
  n.host_memory_bytes = 1152 * kGiB;
  n.intra_node_link = IntraNodeLink::nvswitch;
  n.intra_node_bytes_per_second_per_gpu = 300e9;
  n.inter_node_bits_per_second = 400e9;
  n.local_nvme_bytes = 8000e9;
  n.prices = {
      {"us-east-1", "use1-az1", 21.957642, 2.4655, "outlier: spot 11% of on-demand in this AZ", true},
      {"us-east-1", "use1-az2", 21.957642, 8.1915, ""},
      {"us-east-1", "use1-az4", 21.957642, 8.1203, ""},
      {"us-east-1", "use1-az6", 21.957642, 7.8799, ""},
      {"us-east-2", "use2-az1", 21.95764, 6.0374, ""},
      {"us-east-2", "use2-az2", 21.95764, 6.0965, ""},
      {"us-east-2", "use2-az3", 21.95764, 21.8535, ""},
      {"us-west-2", "usw2-az1", 21.95764, 7.9992, ""},
      {"us-west-2", "usw2-az2", 21.95764, 8.2259, ""},
      {"us-west-2", "usw2-az3", 21.95764, 9.7315, ""},
      {"us-west-2", "usw2-az4", 21.95764, 8.4794, ""},
      {"eu-central-1", "euc1-az1", 27.43298, 13.3383, ""},
      {"eu-central-1", "euc1-az2", 27.43298, 27.433,
       "spot==on-demand in catalog (no real spot discount / capacity-constrained AZ)"},
      {"ap-northeast-1", "apne1-az4", 30.09784, 7.5205, ""},
  };
  n.source =
      "AWS EC2 Instance Types Guide, 'Specifications for Amazon EC2 accelerated computing instances' "
      "(docs.aws.amazon.com/ec2/latest/instancetypes/ac.html): network and instance store tables: 4x 100 Gigabit "
      "(EFA), 8 x 1000 GB NVMe SSD; P4 instances use NVSwitch (AWS EC2 User Guide, "
      "github.com/awsdocs/amazon-ec2-user-guide doc_source/accelerated-computing-instances.md); 600 GB/s bidirectional "
      "per GPU from gpus.csv [A100].";
  n.as_of = "2026-11-29";
  return n;
}

// catalogs/instances/aws.json "aws/p4de.24xlarge": the specifications from `source` below,
// the prices from github.com/skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv @ commit
// 00148f2af3672e2229b4f7bf8157d5a3f36e3c35 (transcribed into shared/reference/gpu_instances.csv, source_path_at_commit
// catalogs/v8/aws/vms.csv@00148f2af367)
NodeSpec aws_p4de_24xlarge() {
  NodeSpec n;
  n.id = "aws/p4de.24xlarge";
  n.provider = "aws";
  n.gpu = a100_80gb();
  n.gpus_per_node = 8;
  n.vcpus = 96;
  n.host_memory_bytes = 1152 * kGiB;
  n.intra_node_link = IntraNodeLink::nvswitch;
  n.intra_node_bytes_per_second_per_gpu = 300e9;
  n.inter_node_bits_per_second = 400e9;
  n.local_nvme_bytes = 8000e9;
  n.prices = {
      {"ap-northeast-1", "apne1-az1", 37.6223, 15.9785, ""},
      {"ap-northeast-1", "apne1-az4", 37.6223, 37.6223,
       "spot==on-demand in catalog (no real spot discount / capacity-constrained AZ)"},
      {"ap-southeast-1", "apse1-az2", 32.93646, 13.7534, ""},
      {"eu-central-1", "euc1-az1", 34.29122, 8.8218, ""},
      {"eu-central-1", "euc1-az2", 34.29122, 8.0274, ""},
      {"us-east-1", "use1-az4", 27.44705, 9.9734, ""},
      {"us-east-1", "use1-az6", 27.44705, 8.6505, ""},
      {"us-west-2", "usw2-az1", 27.44705, 10.9991, ""},
      {"us-west-2", "usw2-az2", 27.44705, 11.0144, ""},
      {"us-west-2", "usw2-az3", 27.44705, 10.3338, ""},
  };
  n.source =
      "AWS EC2 Instance Types Guide, 'Specifications for Amazon EC2 accelerated computing instances' "
      "(docs.aws.amazon.com/ec2/latest/instancetypes/ac.html): network and instance store tables: 4x 100 Gigabit "
      "(EFA), 8 x 1000 GB NVMe SSD; NVSwitch as p4d; 600 GB/s bidirectional per GPU from gpus.csv [A100].";
  n.as_of = "2026-11-29";
  return n;
}

// catalogs/instances/aws.json "aws/p5.48xlarge": the specifications from `source` below,
// the prices from github.com/skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv @ commit
// 00148f2af3672e2229b4f7bf8157d5a3f36e3c35 (transcribed into shared/reference/gpu_instances.csv, source_path_at_commit
// catalogs/v8/aws/vms.csv@00148f2af367)
NodeSpec aws_p5_48xlarge() {
  NodeSpec n;
  n.id = "aws/p5.48xlarge";
  n.provider = "aws";
  n.gpu = h100_80gb();
  n.gpus_per_node = 8;
  n.vcpus = 192;
  n.host_memory_bytes = 2048 * kGiB;
  n.intra_node_link = IntraNodeLink::nvswitch;
  n.intra_node_bytes_per_second_per_gpu = 450e9;
  n.inter_node_bits_per_second = 3200e9;
  n.local_nvme_bytes = 30400e9;
  n.prices = {
      {"ap-northeast-1", "apne1-az1", 68.8, 68.8,
       "spot==on-demand in catalog (no real spot discount / capacity-constrained AZ)"},
      {"ap-northeast-1", "apne1-az4", 68.8, 23.1449, ""},
      {"ap-south-1", "aps1-az3", 66.048, 18.8933, ""},
      {"eu-north-1", "eun1-az3", 58.8928, 28.3188, ""},
      {"eu-west-2", "euw2-az1", 71.552, 15.7259, ""},
      {"eu-west-2", "euw2-az2", 71.552, 15.5259, ""},
      {"eu-west-2", "euw2-az3", 71.552, 16.3251, ""},
      {"us-east-1", "use1-az1", 55.04, 55.04,
       "spot==on-demand in catalog (no real spot discount / capacity-constrained AZ)"},
      {"us-east-1", "use1-az2", 55.04, 19.2531, ""},
      {"us-east-1", "use1-az3", 55.04, 21.1543, ""},
      {"us-east-1", "use1-az4", 55.04, 55.04,
       "spot==on-demand in catalog (no real spot discount / capacity-constrained AZ)"},
      {"us-east-1", "use1-az5", 55.04, 25.7522, ""},
      {"us-east-1", "use1-az6", 55.04, 17.6289, ""},
      {"us-east-2", "use2-az1", 55.04, 11.2543, ""},
      {"us-east-2", "use2-az2", 55.04, 11.5616, ""},
      {"us-east-2", "use2-az3", 55.04, 11.9912, ""},
      {"us-west-2", "usw2-az1", 55.04, 12.6935, ""},
      {"us-west-2", "usw2-az2", 55.04, 12.9785, ""},
      {"us-west-2", "usw2-az3", 55.04, 12.9727, ""},
      {"us-west-2", "usw2-az4", 55.04, 16.1301, ""},
  };
  n.source =
      "AWS EC2 Instance Types Guide, 'Specifications for Amazon EC2 accelerated computing instances' "
      "(docs.aws.amazon.com/ec2/latest/instancetypes/ac.html): network and instance store tables: 3200 Gigabit (EFA, "
      "32 network cards), 8 x 3800 GB NVMe SSD; 900 GB/s bidirectional NVLink per GPU via NVSwitch from gpus.csv "
      "[H100].";
  n.as_of = "2026-11-29";
  return n;
}

// catalogs/instances/aws.json "aws/p5e.48xlarge": the specifications from `source` below,
// the prices from github.com/skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv @ commit
// 00148f2af3672e2229b4f7bf8157d5a3f36e3c35 (transcribed into shared/reference/gpu_instances.csv, source_path_at_commit
// catalogs/v8/aws/vms.csv@00148f2af367)
NodeSpec aws_p5e_48xlarge() {
  NodeSpec n;
  n.id = "aws/p5e.48xlarge";
  n.provider = "aws";
  n.gpu = h200();
  n.gpus_per_node = 8;
  n.vcpus = 192;
  n.host_memory_bytes = 2048 * kGiB;
  n.intra_node_link = IntraNodeLink::nvswitch;
  n.intra_node_bytes_per_second_per_gpu = 450e9;
  n.inter_node_bits_per_second = 3200e9;
  n.local_nvme_bytes = 30400e9;
  n.prices = {
      {"us-east-2", "use2-az1", std::nullopt, std::nullopt,
       "on-demand price empty in catalog (capacity-block-only type); spot column dropped (62.9957: capacity blocks are not spot)"},
      {"us-east-2", "use2-az3", std::nullopt, std::nullopt,
       "on-demand price empty in catalog (capacity-block-only type); spot column dropped (18.7359: capacity blocks are not spot)"},
      {"us-west-2", "usw2-az3", std::nullopt, std::nullopt,
       "on-demand price empty in catalog (capacity-block-only type); spot column dropped (19.5387: capacity blocks are not spot)"},
  };
  n.source =
      "AWS EC2 Instance Types Guide, 'Specifications for Amazon EC2 accelerated computing instances' "
      "(docs.aws.amazon.com/ec2/latest/instancetypes/ac.html): network and instance store tables: 3200 Gigabit (EFA), "
      "8 x 3800 GB NVMe SSD; 900 GB/s bidirectional NVLink per GPU from gpus.csv [H200].";
  n.as_of = "2026-11-29";
  return n;
}

// catalogs/instances/onprem.json "onprem/dgx-a100-80gb": the specifications from `source` below,
// the prices from none: owned hardware, no market price; prices is empty on purpose (the planner prices owned hardware
// at 0 or at the user's own figure)
NodeSpec onprem_dgx_a100_80gb() {
  NodeSpec n;
  n.id = "onprem/dgx-a100-80gb";
  n.provider = "onprem";
  n.gpu = a100_80gb();
  n.gpus_per_node = 8;
  n.vcpus = 256;
  n.host_memory_bytes = 2048 * kGiB;
  n.intra_node_link = IntraNodeLink::nvswitch;
  n.intra_node_bytes_per_second_per_gpu = 300e9;
  n.inter_node_bits_per_second = 1600e9;
  n.local_nvme_bytes = 30720e9;
  // prices: empty in the catalog (owned hardware)
  n.source =
      "NVIDIA DGX A100 datasheet (640 GB system; "
      "images.nvidia.com/aem-dam/Solutions/Data-Center/nvidia-dgx-a100-80gb-datasheet.pdf): 8x A100 80GB SXM4, 6x "
      "NVSwitch (600 GB/s bidirectional per GPU), 8x single-port ConnectX-6 200 Gb/s HDR InfiniBand for compute, 2x "
      "AMD EPYC 7742 (2x 64 cores, 256 threads), 2 TB system memory, 30 TB internal NVMe (8x 3.84 TB U.2).";
  n.as_of = "2026-11-29";
  return n;
}

// catalogs/instances/onprem.json "onprem/dgx-h100": the specifications from `source` below,
// the prices from none: owned hardware, no market price; prices is empty on purpose (the planner prices owned hardware
// at 0 or at the user's own figure)
NodeSpec onprem_dgx_h100() {
  NodeSpec n;
  n.id = "onprem/dgx-h100";
  n.provider = "onprem";
  n.gpu = h100_80gb();
  n.gpus_per_node = 8;
  n.vcpus = 224;
  n.host_memory_bytes = 2048 * kGiB;
  n.intra_node_link = IntraNodeLink::nvswitch;
  n.intra_node_bytes_per_second_per_gpu = 450e9;
  n.inter_node_bits_per_second = 3200e9;
  n.local_nvme_bytes = 30720e9;
  // prices: empty in the catalog (owned hardware)
  n.source =
      "NVIDIA DGX H100 datasheet (resources.nvidia.com/en-us-dgx-systems/ai-enterprise-dgx): 8x H100 80GB SXM5, 4x "
      "NVSwitch (900 GB/s bidirectional per GPU), 8x single-port ConnectX-7 up to 400 Gb/s InfiniBand/Ethernet for "
      "compute, 2x Intel Xeon Platinum 8480C (2x 56 cores, 224 threads), 2 TB system memory, 30 TB internal NVMe (8x "
      "3.84 TB U.2).";
  n.as_of = "2026-11-29";
  return n;
}

std::vector<NodeSpec> nodes() {
  return {aws_p4d_24xlarge(), aws_p4de_24xlarge(),    aws_p5_48xlarge(),
          aws_p5e_48xlarge(), onprem_dgx_a100_80gb(), onprem_dgx_h100()};
}

}  // namespace preflight::test::fixtures
