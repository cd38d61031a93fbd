// The long-sequence runs this repository ships (published/long_sequence_runs.csv): read into one
// dataset per source with the publications' own units, and a malformed row named by file, line and
// column.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/validation/datasets.hpp"
#include "simulator/spec/errors.hpp"
#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

const Catalog& catalog() {
  static const Catalog c = Catalog::load(fs::path(PREFLIGHT_SOURCE_DIR) / "catalogs");
  return c;
}

const validation::ValidationCase& find(const std::vector<validation::Dataset>& sets, const std::string& id) {
  for (const validation::Dataset& d : sets) {
    for (const validation::ValidationCase& c : d.cases) {
      if (c.id == id) return c;
    }
  }
  throw std::runtime_error("no row " + id);
}

TEST(LongSequenceDataset, OneDatasetPerSourceInThePublicationsUnits) {
  const std::vector<validation::Dataset> sets = validation::long_sequence_datasets(validation::published_runs_file(), catalog());
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0].name, "nemo-h100");
  EXPECT_EQ(sets[0].cases.size(), 9u);
  EXPECT_EQ(sets[1].name, "nemo-b200");
  EXPECT_EQ(sets[1].cases.size(), 8u);
  EXPECT_EQ(sets[2].name, "torchtitan-h100");
  EXPECT_EQ(sets[2].cases.size(), 4u);
  // NeMo's Llama 2 7B at 128K tokens, 555 TFLOP/s per GPU: NeMo's formula, worked by hand,
  // 32 x 4096^2 x (12 + 12 x 32/32 + 18 x 11008/4096 + 12 x 131072/4096 + 6 x 32000/(32 x 4096))
  // = 245,800,894,464 FLOP per token, so 4.4288e-4 s per token per GPU.
  EXPECT_NEAR(find(sets, "nemo-h100-128k").measured_seconds, 245800894464.0 / 555e12, 1e-12);
  // torchtitan's 548 tokens/s per GPU at 256K tokens.
  EXPECT_NEAR(find(sets, "torchtitan-h100-256k").measured_seconds, 1.0 / 548.0, 1e-15);
  EXPECT_EQ(find(sets, "torchtitan-h100-256k").framework, Framework::torchtitan);
  EXPECT_EQ(find(sets, "nemo-b200-1024k").architecture, GpuArchitecture::blackwell);
  // Transformer Engine's cuDNN attention on Blackwell; torchtitan's SDPA runs FlashAttention-2.
  EXPECT_EQ(find(sets, "nemo-b200-1024k").attention, AttentionKernel::cudnn);
  EXPECT_EQ(find(sets, "torchtitan-h100-256k").attention, AttentionKernel::flash2);
}

// NeMo's 32K row with one cell changed.
std::string row_with(const std::string& column, const std::string& value) {
  const std::vector<std::string> columns{"id", "source", "model", "instance", "gpus", "seq_len", "tp", "pp", "cp", "dp", "micro_batch",
                                         "global_batch", "precision", "framework", "sharding", "recompute", "torch_compile",
                                         "memory_GiB", "memory_TBps", "measured", "unit"};
  std::vector<std::string> cells{"x", "nemo-h100", "llama-2-7b", "onprem/dgx-h100", "32", "32768", "2", "1", "2", "8", "1",
                                 "32", "fp8", "megatron", "zero1", "selective", "false", "", "", "610", "model_tflops_per_gpu"};
  std::string header, row;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    header += (i ? "," : "") + columns[i];
    row += (i ? "," : "") + (columns[i] == column ? value : cells[i]);
  }
  return header + "\n" + row + "\n";
}

TEST(LongSequenceDataset, AMalformedRowIsNamed) {
  const fs::path file = test::scratch_dir("long-sequence") / "runs.csv";
  test::write_text(file, row_with("", ""));
  EXPECT_EQ(validation::long_sequence_datasets(file, catalog()).at(0).cases.size(), 1u);
  for (const auto& [column, value] : std::vector<std::pair<std::string, std::string>>{
           {"unit", "tflops"}, {"source", "nemo-a100"}, {"sharding", "zero9"}, {"precision", "fp4"}, {"dp", "4"}, {"measured", "-1"},
           {"instance", "aws/p9.48xlarge"}, {"model", "llama-9"}, {"torch_compile", "yes"}}) {
    test::write_text(file, row_with(column, value));
    try {
      validation::long_sequence_datasets(file, catalog());
      ADD_FAILURE() << column << " = " << value << " accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(file.string()), std::string::npos) << what;
      EXPECT_NE(what.find("line 2"), std::string::npos) << what;
      EXPECT_NE(what.find("\"" + column + "\""), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace preflight
