// The simulator's tests run on hand-written models and machines (tests/support/fixtures) instead of
// loading the catalog. Each must stay the catalog's entry, field by field, and the models must stay
// every catalog model (the memory invariants loop over them): a catalog edit fails here until the
// fixture follows it.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/catalog.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

void expect_same_model(const ModelSpec& f, const ModelSpec& c) {
  EXPECT_EQ(f.id, c.id);
  EXPECT_EQ(f.hidden, c.hidden) << c.id;
  EXPECT_EQ(f.layers, c.layers) << c.id;
  EXPECT_EQ(f.heads, c.heads) << c.id;
  EXPECT_EQ(f.kv_heads, c.kv_heads) << c.id;
  EXPECT_EQ(f.head_dim, c.head_dim) << c.id;
  EXPECT_EQ(f.intermediate, c.intermediate) << c.id;
  EXPECT_EQ(f.vocab, c.vocab) << c.id;
  EXPECT_EQ(f.max_seq_len, c.max_seq_len) << c.id;
  EXPECT_EQ(f.tied_embeddings, c.tied_embeddings) << c.id;
  EXPECT_EQ(f.learned_positions, c.learned_positions) << c.id;
  EXPECT_EQ(f.mlp, c.mlp) << c.id;
  EXPECT_EQ(f.norm, c.norm) << c.id;
  EXPECT_EQ(f.qkv_bias, c.qkv_bias) << c.id;
  EXPECT_EQ(f.o_bias, c.o_bias) << c.id;
  EXPECT_EQ(f.mlp_bias, c.mlp_bias) << c.id;
  EXPECT_EQ(f.experts, c.experts) << c.id;
  EXPECT_EQ(f.experts_per_token, c.experts_per_token) << c.id;
  EXPECT_EQ(f.attention_dropout, c.attention_dropout) << c.id;
  EXPECT_EQ(f.hidden_dropout, c.hidden_dropout) << c.id;
}

void expect_same_gpu(const GpuSpec& f, const GpuSpec& c) {
  EXPECT_EQ(f.id, c.id);
  EXPECT_EQ(f.name, c.name) << c.id;
  EXPECT_EQ(f.architecture, c.architecture) << c.id;
  EXPECT_EQ(f.memory_bytes, c.memory_bytes) << c.id;
  EXPECT_EQ(f.memory_bandwidth_bytes_per_second, c.memory_bandwidth_bytes_per_second) << c.id;
  EXPECT_EQ(f.peak_tflops.fp32, c.peak_tflops.fp32) << c.id;
  EXPECT_EQ(f.peak_tflops.tf32, c.peak_tflops.tf32) << c.id;
  EXPECT_EQ(f.peak_tflops.bf16, c.peak_tflops.bf16) << c.id;
  EXPECT_EQ(f.peak_tflops.fp16, c.peak_tflops.fp16) << c.id;
  EXPECT_EQ(f.peak_tflops.fp8, c.peak_tflops.fp8) << c.id;
  EXPECT_EQ(f.nvlink_bytes_per_second_bidirectional, c.nvlink_bytes_per_second_bidirectional) << c.id;
  EXPECT_EQ(f.sm_count, c.sm_count) << c.id;
  EXPECT_EQ(f.source, c.source) << c.id;
  EXPECT_EQ(f.as_of, c.as_of) << c.id;
}

void expect_same_node(const NodeSpec& f, const NodeSpec& c) {
  EXPECT_EQ(f.id, c.id);
  EXPECT_EQ(f.provider, c.provider) << c.id;
  expect_same_gpu(f.gpu, c.gpu);
  EXPECT_EQ(f.gpus_per_node, c.gpus_per_node) << c.id;
  EXPECT_EQ(f.vcpus, c.vcpus) << c.id;
  EXPECT_EQ(f.host_memory_bytes, c.host_memory_bytes) << c.id;
  EXPECT_EQ(f.intra_node_link, c.intra_node_link) << c.id;
  EXPECT_EQ(f.intra_node_bytes_per_second_per_gpu, c.intra_node_bytes_per_second_per_gpu) << c.id;
  EXPECT_EQ(f.inter_node_bits_per_second, c.inter_node_bits_per_second) << c.id;
  EXPECT_EQ(f.local_nvme_bytes, c.local_nvme_bytes) << c.id;
  EXPECT_EQ(f.interruption_bucket, c.interruption_bucket) << c.id;
  EXPECT_EQ(f.spot_interruptions_per_node_hour, c.spot_interruptions_per_node_hour) << c.id;
  EXPECT_EQ(f.max_nodes, c.max_nodes) << c.id;
  ASSERT_EQ(f.prices.size(), c.prices.size()) << c.id;
  for (std::size_t i = 0; i < c.prices.size(); ++i) {
    const PriceQuote& fq = f.prices[i];
    const PriceQuote& cq = c.prices[i];
    EXPECT_EQ(fq.region, cq.region) << c.id << " quote " << i;
    EXPECT_EQ(fq.zone, cq.zone) << c.id << " quote " << i;
    EXPECT_EQ(fq.on_demand_usd_per_hour, cq.on_demand_usd_per_hour) << c.id << " quote " << i;
    EXPECT_EQ(fq.spot_usd_per_hour, cq.spot_usd_per_hour) << c.id << " quote " << i;
    EXPECT_EQ(fq.note, cq.note) << c.id << " quote " << i;
    EXPECT_EQ(fq.spot_outlier, cq.spot_outlier) << c.id << " quote " << i;
  }
  EXPECT_EQ(f.source, c.source) << c.id;
  EXPECT_EQ(f.as_of, c.as_of) << c.id;
  // `warnings` are the catalog loader's messages about the prices (CatalogTest checks them), not
  // figures of the machine: the fixtures leave them empty and no simulator test reads them.
  EXPECT_TRUE(f.warnings.empty()) << c.id;
}

TEST(FixturesMatchCatalog, ModelsAreEveryCatalogModel) {
  std::vector<std::string> ids;
  for (const ModelSpec& m : test::fixtures::models()) ids.push_back(m.id);
  EXPECT_EQ(ids, test::catalog().model_ids());
}

TEST(FixturesMatchCatalog, ModelsFieldByField) {
  for (const ModelSpec& f : test::fixtures::models()) {
    SCOPED_TRACE(f.id);
    expect_same_model(f, test::catalog().model(f.id).spec);
  }
}

TEST(FixturesMatchCatalog, GpusFieldByField) {
  for (const GpuSpec& f : test::fixtures::gpus()) {
    const GpuSpec* c = test::catalog().find_gpu(f.id);
    ASSERT_NE(c, nullptr) << f.id;
    expect_same_gpu(f, *c);
  }
}

TEST(FixturesMatchCatalog, MachinesFieldByField) {
  for (const NodeSpec& f : test::fixtures::nodes()) {
    const NodeSpec* c = test::catalog().find_instance(f.id);
    ASSERT_NE(c, nullptr) << f.id;
    SCOPED_TRACE(f.id);
    expect_same_node(f, *c);
  }
}

}  // namespace
}  // namespace preflight
