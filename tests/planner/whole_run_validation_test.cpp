// `validate`'s whole runs: published pre-training runs planned on their published GPUs, their
// GPU-hours against the team's, and the median absolute and mean signed errors the issue bounds.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "planner/whole_run/whole_run_validation.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"

namespace preflight::whole_run {
namespace {

namespace fs = std::filesystem;

const std::string kHeader =
    "id,family,model,instance,gpus,gpus_published,tokens,seq_len,global_batch,precision,framework,tp,pp,micro_batch,recompute,"
    "published_gpu_hours,gpu_hours_from,basis\n";

fs::path write_runs(const std::string& name, const std::string& rows) {
  const fs::path file = fs::temp_directory_path() / ("preflight-whole-runs-" + name + ".csv");
  std::ofstream(file) << "# a test file\n" << kHeader << rows;
  return file;
}

// The shipped row `id`, planned as `validate` plans it.
WholeRunResult shipped(const std::string& id) {
  const fs::path file = whole_runs_file();
  std::vector<PublishedWholeRun> runs;
  for (PublishedWholeRun& r : read_whole_runs(file)) {
    if (r.id == id) runs.push_back(std::move(r));
  }
  if (runs.size() != 1) throw std::runtime_error("no shipped row " + id);
  return validate_whole_runs(runs, file, test::catalog(), test::catalog().step_model_fit()).rows.front();
}

WholeRunResult result(double published, std::optional<double> predicted) {
  WholeRunResult r;
  r.run.published_gpu_hours = published;
  r.predicted_gpu_hours = predicted;
  return r;
}

// Hand-worked: errors -60%, -10%, +20% (a fourth row unplanned): median |error| 20%, mean -16.7%
// (past the -15% bound), worst -60%; without the -60% row both bounds hold.
TEST(WholeRunSummary, MedianAbsoluteAndMeanSignedByHand) {
  const WholeRunResult a = result(100, 40), b = result(100, 90), c = result(100, 120), none = result(100, std::nullopt);
  const WholeRunSummary s = summarize({&a, &b, &c, &none});
  EXPECT_EQ(s.rows, 3);
  EXPECT_EQ(s.unplanned, 1);
  EXPECT_NEAR(s.median_absolute, 0.20, 1e-12);
  EXPECT_NEAR(s.mean_signed, -0.5 / 3.0, 1e-12);
  EXPECT_NEAR(s.worst, -0.6, 1e-12);
  EXPECT_FALSE(s.within_tolerance());  // a row without a plan fails the set
  const WholeRunSummary planned = summarize({&b, &c});
  EXPECT_NEAR(planned.median_absolute, 0.15, 1e-12);  // two rows: the mean of the middle pair
  EXPECT_TRUE(planned.within_tolerance());
  EXPECT_FALSE(summarize({&a, &b, &c}).within_tolerance());
}

// BLOOM's published layout (384 A100s, tp 4, pp 12: twelve stages, not a power of two, over 70
// layers) is planned as fixed; the search once offered only power-of-two depths and refused every
// candidate of the row ("DP degree 384 does not divide the global batch").
TEST(WholeRunValidation, BloomPlansOnItsPublishedTwelveStageLayout) {
  const WholeRunResult r = shipped("bloom-176b");
  ASSERT_TRUE(r.predicted_gpu_hours.has_value()) << r.refusal;
  EXPECT_NE(r.layout.find("tp 4"), std::string::npos) << r.layout;
  EXPECT_NE(r.layout.find("pp 12"), std::string::npos) << r.layout;
  EXPECT_EQ(r.run.gpus, 384);
}

// LLaMA-65B: "around 380 tokens/sec/GPU on 2048 A100 GPU with 80GB of RAM" over 1.4T tokens is
// 1.4e12 / 380 / 3600 = 1,023,392 GPU-hours (the paper's Table 15 says 1,022,362, so the table counts
// tokens over that throughput): the plan's stepping time on the published GPUs lands within the step
// model's 15%, and its wall time (faults, checkpoints, start-up) is longer than its steps.
TEST(WholeRunValidation, LlamaSixtyFiveBAgainstItsPublishedThroughput) {
  const WholeRunResult r = shipped("llama-65b");
  ASSERT_TRUE(r.run.from_throughput);
  ASSERT_TRUE(r.predicted_gpu_hours.has_value()) << r.refusal;
  const double from_throughput = 1.4e12 / 380.0 / 3600.0;
  EXPECT_NEAR(*r.predicted_gpu_hours / from_throughput, 1.0, 0.15);
  EXPECT_LT(*r.predicted_gpu_hours, r.wall_hours * 2048);  // the steps alone, not the run's wall time
  EXPECT_GT(r.failure_free_share, 0.8);                   // faults and checkpoints cost something, not most
  EXPECT_LT(r.failure_free_share, 1.0);
  EXPECT_GT(r.mfu, 0.3);
  EXPECT_LT(r.mfu, 0.65);
}

// A run counted in wall time is predicted as the plan's expected hours on its GPUs.
TEST(WholeRunValidation, WallTimeRowsCountThePlansExpectedHours) {
  const WholeRunResult r = shipped("llama-2-70b");
  ASSERT_FALSE(r.run.from_throughput);
  ASSERT_TRUE(r.predicted_gpu_hours.has_value()) << r.refusal;
  EXPECT_NEAR(*r.predicted_gpu_hours, r.wall_hours * 1024, 1.0);
}

// Every shipped row reads with its basis and a GPU-hour figure (CliValidate checks that each plans).
TEST(WholeRunValidation, EveryShippedRowReadsWithItsBasis) {
  const std::vector<PublishedWholeRun> runs = read_whole_runs(whole_runs_file());
  ASSERT_GE(runs.size(), 13u);
  for (const PublishedWholeRun& r : runs) {
    EXPECT_FALSE(r.basis.empty()) << r.id;
    EXPECT_GT(r.published_gpu_hours, 1000.0) << r.id;
  }
}

TEST(WholeRunValidation, BadCellsNameTheFileLineAndColumn) {
  const fs::path file = write_runs("bad-flag", "x,f,llama-2-7b,aws/p5.48xlarge,8,maybe,1e9,4096,64,bf16,megatron,,,,,100,wall_time,b\n");
  try {
    (void)read_whole_runs(file);
    FAIL() << "a yes/no column read \"maybe\"";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file.string());
    EXPECT_NE(e.json_path().find("gpus_published"), std::string::npos) << e.what();
    EXPECT_NE(e.json_path().find("line 3"), std::string::npos) << e.what();
    EXPECT_EQ(e.allowed(), "yes or no");
  }
}

// A row the scenario reader or the search refuses names the row.
TEST(WholeRunValidation, ARowTheScenarioRefusesNamesTheRow) {
  const fs::path file = write_runs("bad-instance", "mine,f,llama-2-7b,aws/no-such-machine,8,yes,1e9,4096,64,bf16,megatron,,,,,100,wall_time,b\n");
  const std::vector<PublishedWholeRun> runs = read_whole_runs(file);
  try {
    (void)validate_whole_runs(runs, file, test::catalog(), nullptr);
    FAIL() << "an unknown instance planned";
  } catch (const InputError& e) {
    EXPECT_NE(e.json_path().find("row \"mine\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no-such-machine"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace preflight::whole_run
