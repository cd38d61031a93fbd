// Every row of ../shared/validation/zero_paper_model_states.csv (ZeRO, Rajbhandari et al. SC'20,
// Figure 1 / Table 1): model-state memory per device for mixed-precision Adam, within 1%.
// The paper prints its figures rounded (Figure 1 shows 16P/N = 1.875 GB as "1.9GB"), so the model's
// value is rounded to the digits the table prints before it is compared.

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "simulator/memory/model_state_memory.hpp"
#include "support/csv.hpp"

namespace preflight {
namespace {

int printed_decimals(const std::string& value) {
  const std::size_t dot = value.find('.');
  return dot == std::string::npos ? 0 : static_cast<int>(value.size() - dot - 1);
}

double round_to(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

Sharding stage_of(const std::string& paper_stage) {
  if (paper_stage == "os") return Sharding::zero1;
  if (paper_stage == "os_g") return Sharding::zero2;
  if (paper_stage == "os_g_p") return Sharding::zero3;
  return Sharding::ddp;
}

TEST(ZeroPaper, EveryRowWithinOnePercent) {
  const auto rows = test::read_csv(test::validation_file("zero_paper_model_states.csv"));
  ASSERT_EQ(rows.size(), 20u);
  double worst = 0.0;
  for (const auto& row : rows) {
    ParameterFootprint footprint;
    footprint.trainable = std::stod(row.at("params"));
    ShardingLayout layout;
    layout.scheme = sharding_scheme(stage_of(row.at("stage")));
    layout.shard_degree = std::stod(row.at("dp_degree"));
    layout.world_size = layout.shard_degree;
    const ModelStateMemory m =
        model_state_memory(footprint, state_bytes(Precision::bf16, OptimizerKind::adamw, false), layout);
    const double expected = std::stod(row.at("gb_per_device"));
    const double got = round_to(m.zero_paper_model_states() / 1e9, printed_decimals(row.at("gb_per_device")));
    const double error = std::abs(got / expected - 1.0);
    worst = std::max(worst, error);
    EXPECT_LT(error, 0.01) << row.at("params") << " params, N=" << row.at("dp_degree") << ", " << row.at("stage")
                           << ": paper " << expected << " GB, model " << got << " GB";
  }
  std::cout << "ZeRO paper model states: worst relative error " << worst * 100.0 << "% over " << rows.size()
            << " rows\n";
}

}  // namespace
}  // namespace preflight
