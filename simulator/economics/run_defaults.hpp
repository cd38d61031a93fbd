#pragma once
// Named defaults of the run model (checkpoints, restarts, interruption rates), each with its reason.
// A calibration profile replaces the storage bandwidths with measured ones.

namespace preflight::run_defaults {

// Sustained checkpoint write bandwidth per node, fsync'd, large files (torch.save / DeepSpeed
// save_checkpoint through Python):
// local NVMe: one PCIe gen4 drive writes 3-5 GB/s raw; ~2 GB/s end to end after serialization.
constexpr double kLocalNvmeWriteBytesPerSecond = 2e9;
// Network file system (FSx for Lustre / Filestore / Azure Managed Lustre class): ~1 GB/s per client node.
constexpr double kNetworkFsWriteBytesPerSecond = 1e9;
// Object store (S3/GCS multipart upload from one node): ~0.5 GB/s sustained.
constexpr double kObjectStoreWriteBytesPerSecond = 0.5e9;
// Reads (resume after an interruption) run at about twice the write figure on all three.
constexpr double kReadToWriteBandwidthRatio = 2.0;

// Restart after an interruption, besides reloading the checkpoint:
// reprovisioning a replacement node (spot request, boot, container pull): ~5 minutes on AWS/GCP;
constexpr double kReprovisionSeconds = 300.0;
// warm-up: process launch, NCCL communicator set-up, dataloader and first-step compilation: ~2 minutes.
constexpr double kWarmupSeconds = 120.0;

// Asynchronous checkpointing (torch.distributed.checkpoint async_save, DeepSpeed Nebula) stalls only
// for the device-to-host snapshot: ~10 GB/s per GPU over PCIe with pinned buffers.
constexpr double kSnapshotBytesPerSecondPerGpu = 10e9;

// AWS publishes spot interruption frequency as the share of instances interrupted per month, in
// buckets <5%, 5-10%, 10-15%, 15-20%, >20% (EC2 Spot Instance Advisor). The point taken in each:
// its midpoint, and 30% for the open-ended top bucket.
constexpr double kBucketMonthlyFraction[] = {0.025, 0.075, 0.125, 0.175, 0.30};
// When the catalog knows no bucket for a GPU type: the top one, where the Spot Advisor lists most
// multi-GPU instance types (p3, p4d, p5) in most regions; conservative.
constexpr std::size_t kDefaultBucketIndex = 4;
constexpr double kHoursPerMonth = 730.0;

// Hardware and software failures of reserved/on-demand capacity: Llama 3 pre-training saw 419
// unexpected interruptions in 54 days on 16,384 H100 GPUs (Dubey et al. 2024, section 3.3.4),
// 1.97e-5 per GPU-hour. Used for the automatic checkpoint interval of on-demand runs, which the
// Monte Carlo otherwise runs without interruptions.
constexpr double kFailuresPerGpuHour = 419.0 / (54.0 * 24.0 * 16384.0);

// Monte Carlo trials per run estimate: the p90 of 10,000 trials is within ~1% of its limit for the
// distributions here.
constexpr int kMonteCarloTrials = 10000;

}  // namespace preflight::run_defaults
