// A calibration profile applied through a Machine: the simulated step and the device rates change
// exactly as the profile's numbers do, and a profile of another GPU changes nothing.

#include <gtest/gtest.h>

#include "simulator/hardware/compute_model.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/fixtures.hpp"
#include "support/profiles.hpp"

namespace preflight {
namespace {

using test::full_profile;

StepInputs offload_step(const Workload& workload, const Machine& machine) {
  const NodeSpec& node = machine.node();
  StepInputs in;
  in.workload = &workload;
  in.machine = &machine;
  in.config.instance = node.id;
  in.config.sharding = Sharding::zero2;
  in.config.offload.optimizer = OffloadTarget::cpu;
  in.config.recompute = Recompute::full;
  in.config.micro_batch = 1;
  in.config.grad_accum = workload.job().global_batch_sequences / node.gpus_per_node;
  in.memory = estimate_memory(workload, in.config, node, 0.0);
  return in;
}

// The CPU optimizer step under offload is the profile's AdamW rate: halving the measured rate doubles
// it exactly; a GEMM's time is its FLOPs over the measured rate for its shape; a profile of another
// GPU changes nothing.
TEST(CalibrationProfile, StepChangesExactlyAsTheProfileDoes) {
  const NodeSpec node = test::fixtures::aws_p4de_24xlarge();
  TrainingJob job;
  job.tokens = 1e9;
  job.seq_len = 2048;
  job.global_batch_sequences = 64;
  const Workload workload(test::fixtures::llama_2_7b(), job);
  CalibrationProfile fast = full_profile(), slow = full_profile();
  slow.host.cpu_adam_params_per_second = *fast.host.cpu_adam_params_per_second / 2.0;
  const Machine on_fast(node, Precision::bf16, &fast), on_slow(node, Precision::bf16, &slow);
  const double with_fast = simulate_step(offload_step(workload, on_fast)).time.optimizer_seconds;
  const double with_slow = simulate_step(offload_step(workload, on_slow)).time.optimizer_seconds;
  EXPECT_NEAR(with_slow, 2.0 * with_fast, 1e-12 * with_slow);

  const DeviceRates& measured = on_fast.rates();
  const Kernel gemm{2.0 * 4096.0 * 8192.0 * 8192.0, 0.0, 4096, 8192, 8192};
  EXPECT_DOUBLE_EQ(kernel_seconds(gemm, measured), gemm.flops / (1e12 * (4096.0 + 8192.0 + 8192.0) / 100.0));
  EXPECT_DOUBLE_EQ(measured.memory_bytes_per_second, 1.7e12);
  // Outside the measured grid the named default applies (the command line warns).
  const Kernel outside{2.0 * 65536.0 * 8192.0 * 8192.0, 0.0, 65536, 8192, 8192};
  EXPECT_DOUBLE_EQ(kernel_seconds(outside, measured),
                   kernel_seconds(outside, default_device_rates(node.gpu, Precision::bf16)));

  CalibrationProfile other = fast;
  other.machine.gpu = "h100-80gb";
  const Machine on_other(node, Precision::bf16, &other), on_none(node, Precision::bf16);
  EXPECT_EQ(simulate_step(offload_step(workload, on_other)).time.seconds(),
            simulate_step(offload_step(workload, on_none)).time.seconds());
}

}  // namespace
}  // namespace preflight
