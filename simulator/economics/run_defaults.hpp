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
// The snapshot sits in pinned host memory until it is written: planned only where one node's share
// of the checkpoint takes at most half its host memory (the rest is the dataloader's, the framework's
// and the pinned buffers' of the job itself).
constexpr double kAsyncSnapshotHostShare = 0.5;

// AWS publishes spot interruption frequency as the share of instances interrupted per month, in
// buckets <5%, 5-10%, 10-15%, 15-20%, >20% (EC2 Spot Instance Advisor). The point taken in each:
// its midpoint, and 30% for the open-ended top bucket.
constexpr double kBucketMonthlyFraction[] = {0.025, 0.075, 0.125, 0.175, 0.30};
// When the catalog knows no bucket for a GPU type: the top one, where the Spot Advisor lists most
// multi-GPU instance types (p3, p4d, p5) in most regions; conservative.
constexpr std::size_t kDefaultBucketIndex = 4;
constexpr double kHoursPerMonth = 730.0;

// Start-up: each node fetches the model's weights (16-bit, as the Hugging Face Hub and object stores
// hold them) before the first step and after a restart on a new node. ~0.5 GB/s sustained to one node:
// huggingface_hub's hf_transfer documents downloads of 500 MB/s and more on fast links, and one S3 or
// GCS client reads at 0.5-1 GB/s with ranged requests (the checkpoint defaults' 0.5 GB/s write x 2).
constexpr double kWeightDownloadBytesPerSecond = 0.5e9;
// Then loading them from the node's disk into the GPUs at the local NVMe read rate (the write figure
// above x kReadToWriteBandwidthRatio).
constexpr double kWeightLoadBytesPerSecond = kLocalNvmeWriteBytesPerSecond * kReadToWriteBandwidthRatio;
// Bytes per parameter of the weights a job starts from (bf16 checkpoints; a QLoRA base is quantized
// on load, after its 16-bit download).
constexpr double kStoredWeightBytesPerParameter = 2.0;

// Monte Carlo trials per run estimate: the p90 of 10,000 trials is within ~1% of its limit for the
// distributions here.
constexpr int kMonteCarloTrials = 10000;

}  // namespace preflight::run_defaults
