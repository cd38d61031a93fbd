// What whole runs sustain of a simulated step: the share shipped in catalogs/fitted/step_model.json is
// what `validate --refit-sustained` fits from published/whole_runs.csv over the shipped step factors
// (step_model_fit_test.cpp proves those), inside its plausible range, carrying the error it reports
// on runs it did not see (each family predicted by the share fitted to the others).

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <stdexcept>

#include "planner/whole_run/sustained_share_fit.hpp"
#include "planner/whole_run/whole_run_validation.hpp"
#include "support/catalog.hpp"

namespace preflight::whole_run {
namespace {

const StepModelFit& shipped_fit() {
  const StepModelFit* fit = test::catalog().step_model_fit();
  if (fit == nullptr) throw std::runtime_error("the bundled catalog has no fitted/step_model.json");
  return *fit;
}

TEST(SustainedShareFit, RefitReproducesTheShippedShareWithItsHeldOutError) {
  const Catalog& catalog = test::catalog();
  const SustainedThroughput& shipped = shipped_fit().sustained;
  const SustainedShareFit fit = fit_sustained_share(read_whole_runs(whole_runs_file()), catalog, shipped_fit());
  const SustainedThroughput& t = fit.sustained;
  // scripts/fit_step_model.sh (or validate --refit-sustained catalogs/fitted) writes these.
  EXPECT_NEAR(t.share, shipped.share, 1e-6);
  EXPECT_NEAR(t.interval.low, shipped.interval.low, 1e-6);
  EXPECT_NEAR(t.interval.high, shipped.interval.high, 1e-6);
  EXPECT_EQ(t.interval.rows, shipped.interval.rows);
  EXPECT_EQ(t.families, shipped.families);
  EXPECT_NEAR(t.held_out_median_absolute, shipped.held_out_median_absolute, 1e-6);
  EXPECT_NEAR(t.held_out_mean_signed, shipped.held_out_mean_signed, 1e-6);
  EXPECT_EQ(t.basis, shipped.basis);

  EXPECT_GE(t.share, kMinSustainedShare);
  EXPECT_LE(t.share, kMaxSustainedShare);
  // The gap the whole-run issue measured on published runs (1.3-1.5x the GPU-hours of their steps),
  // within the spread of the families.
  EXPECT_GT(1.0 / t.share, 1.2);
  EXPECT_LT(1.0 / t.share, 1.8);
  // Its 80% interval holds the median it is centred on.
  EXPECT_LT(t.interval.low, 1.0 / t.share);
  EXPECT_GT(t.interval.high, 1.0 / t.share);
  // Every family is held out once, with runs of its own; out of sample the runs are not
  // systematically optimistic (the bound on the mean signed error).
  ASSERT_EQ(static_cast<int>(fit.held_out.size()), t.families);
  ASSERT_GE(t.families, 3);
  for (const HeldOutFamily& h : fit.held_out) {
    EXPECT_GT(h.runs, 0) << h.family;
    EXPECT_GE(h.share, kMinSustainedShare) << h.family;
    std::cout << h.family << ": share without it " << h.share << ", its runs' median |error| " << h.median_absolute
              << ", mean signed " << h.mean_signed << "\n";
  }
  EXPECT_LE(std::abs(t.held_out_mean_signed), kMeanSignedTolerance);
}

// A team's measured throughput (LLaMA's tokens per second per GPU) is a step's: the share is neither
// fitted to it nor applied to it, so the row stays at the step model's own error.
TEST(SustainedShareFit, ThroughputCountedRunsKeepTheStepModelsError) {
  std::vector<PublishedWholeRun> runs;
  for (PublishedWholeRun& r : read_whole_runs(whole_runs_file())) {
    if (r.id == "llama-65b") runs.push_back(std::move(r));
  }
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_TRUE(runs.front().from_throughput);
  const Catalog& catalog = test::catalog();
  StepModelFit without = shipped_fit();
  without.sustained = SustainedThroughput{};
  const WholeRunResult with_share = predict_whole_run(runs.front(), catalog, &shipped_fit());
  const WholeRunResult step_only = predict_whole_run(runs.front(), catalog, &without);
  ASSERT_TRUE(with_share.predicted_gpu_hours && step_only.predicted_gpu_hours);
  EXPECT_NEAR(*with_share.predicted_gpu_hours / *step_only.predicted_gpu_hours, 1.0, 1e-9);
  // Its wall time does carry it.
  EXPECT_GT(with_share.wall_hours, step_only.wall_hours * 1.2);
}

}  // namespace
}  // namespace preflight::whole_run
