#include "calibrate/gpu/collective_benchmark.hpp"

#include <algorithm>

#include "calibrate/gpu/device_fill.hpp"
#include "calibrate/gpu/watchdog.hpp"
#include "calibrate/host/host_benchmarks.hpp"

namespace preflight::calibrate {

namespace {

struct Rank {
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
};

// Elements per rank of the send and receive buffers for a reported size of `bytes`.
struct Counts {
  std::size_t send = 0;
  std::size_t recv = 0;
};

Counts counts(CollectiveOp op, std::size_t bytes, std::size_t ranks) {
  const std::size_t total = bytes / sizeof(float);
  switch (op) {
    case CollectiveOp::all_gather: return {total / ranks, total / ranks * ranks};
    case CollectiveOp::reduce_scatter: return {total / ranks * ranks, total / ranks};
    case CollectiveOp::all_reduce:
    case CollectiveOp::broadcast:
    case CollectiveOp::all_to_all: return {total, total};
  }
  return {total, total};
}

void launch(CollectiveOp op, const Counts& c, Rank& r) {
  switch (op) {
    case CollectiveOp::all_reduce:
      check(ncclAllReduce(r.send, r.recv, c.send, ncclFloat, ncclSum, r.comm, r.stream), "ncclAllReduce");
      break;
    case CollectiveOp::all_gather:
      check(ncclAllGather(r.send, r.recv, c.send, ncclFloat, r.comm, r.stream), "ncclAllGather");
      break;
    case CollectiveOp::reduce_scatter:
      check(ncclReduceScatter(r.send, r.recv, c.recv, ncclFloat, ncclSum, r.comm, r.stream), "ncclReduceScatter");
      break;
    case CollectiveOp::broadcast:
      check(ncclBroadcast(r.send, r.recv, c.send, ncclFloat, 0, r.comm, r.stream), "ncclBroadcast");
      break;
    case CollectiveOp::all_to_all:
      // Not measured here (the run() loop below lists what is): expert parallelism's all-to-all is
      // priced by the analytical model or a profile's table from nccl-tests' alltoall_perf.
      throw std::invalid_argument("all_to_all is not benchmarked by preflight-calibrate");
  }
}

// Milliseconds per collective over `reps` back-to-back launches: the slowest rank's events.
double batch_ms(std::vector<Rank>& ranks, CollectiveOp op, const Counts& c, int reps) {
  for (Rank& r : ranks) {
    check(cudaSetDevice(r.device), "cudaSetDevice");
    check(cudaEventRecord(r.start, r.stream), "cudaEventRecord");
  }
  for (int i = 0; i < reps; ++i) {
    check(ncclGroupStart(), "ncclGroupStart");
    for (Rank& r : ranks) launch(op, c, r);
    check(ncclGroupEnd(), "ncclGroupEnd");
  }
  double slowest = 0.0;
  for (Rank& r : ranks) {
    check(cudaSetDevice(r.device), "cudaSetDevice");
    check(cudaEventRecord(r.stop, r.stream), "cudaEventRecord");
  }
  for (Rank& r : ranks) {
    check(cudaEventSynchronize(r.stop), "cudaEventSynchronize");
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime");
    slowest = std::max(slowest, static_cast<double>(ms));
  }
  return slowest / reps;
}

// The value every rank must hold after the collective on buffers of ones.
float expected(CollectiveOp op, std::size_t ranks) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter ? static_cast<float>(ranks) : 1.0f;
}

}  // namespace

std::vector<CollectiveTable> measure_collectives(const CollectiveBenchmarkOptions& o) {
  const std::size_t n = o.devices.size();
  const std::size_t max_bytes = o.quick ? std::size_t{256} << 20 : std::size_t{1} << 30;
  std::vector<Rank> ranks(n);
  std::vector<ncclComm_t> comms(n);
  check(ncclCommInitAll(comms.data(), static_cast<int>(n), o.devices.data()), "ncclCommInitAll");
  for (std::size_t i = 0; i < n; ++i) {
    Rank& r = ranks[i];
    r.device = o.devices[i];
    r.comm = comms[i];
    check(cudaSetDevice(r.device), "cudaSetDevice");
    check(cudaStreamCreate(&r.stream), "cudaStreamCreate");
    check(cudaEventCreate(&r.start), "cudaEventCreate");
    check(cudaEventCreate(&r.stop), "cudaEventCreate");
    check(cudaMalloc(&r.send, max_bytes), "cudaMalloc");
    check(cudaMalloc(&r.recv, max_bytes), "cudaMalloc");
    fill(r.send, max_bytes, 0x3f800000u, 4);  // 1.0f
  }
  std::vector<CollectiveTable> tables;
  for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter, CollectiveOp::broadcast}) {
    const Watchdog watchdog(o.watchdog_seconds, "NCCL " + to_string(op) + " on " + std::to_string(n) + " GPUs");
    CollectiveTable t{op, static_cast<int>(n), {}};
    for (std::size_t bytes = 1024; bytes <= max_bytes; bytes *= o.quick ? 4 : 2) {
      const Counts c = counts(op, bytes, n);
      if (c.send == 0 || c.recv == 0) continue;
      // Cleared first, so the check below cannot pass on what an earlier size or operation left.
      for (const Rank& r : ranks) {
        check(cudaSetDevice(r.device), "cudaSetDevice");
        check(cudaMemset(r.recv, 0, max_bytes), "cudaMemset");
      }
      const double once = batch_ms(ranks, op, c, 1);  // warm-up, and the batch length
      const int reps = static_cast<int>(std::clamp(20.0 / std::max(once, 1e-3), 2.0, 200.0));
      std::vector<double> per_op;
      for (int b = 0; b < (o.quick ? 3 : 5); ++b) per_op.push_back(batch_ms(ranks, op, c, reps));
      for (const Rank& r : ranks) {
        check(cudaSetDevice(r.device), "cudaSetDevice");
        const float got = read_back<float>(r.recv, c.recv - 1);
        if (got != expected(op, n)) {
          throw std::runtime_error("NCCL " + to_string(op) + " of " + std::to_string(bytes) + " B left " + std::to_string(got) +
                                   " on GPU " + std::to_string(r.device) + ", expected " + std::to_string(expected(op, n)));
        }
      }
      const std::size_t reported = (op == CollectiveOp::all_gather ? c.recv : c.send) * sizeof(float);
      t.points.emplace_back(static_cast<double>(reported), median(per_op) * 1e-3);
    }
    tables.push_back(std::move(t));
  }
  for (Rank& r : ranks) {
    cudaSetDevice(r.device);
    cudaFree(r.send);
    cudaFree(r.recv);
    cudaEventDestroy(r.start);
    cudaEventDestroy(r.stop);
    cudaStreamDestroy(r.stream);
    ncclCommDestroy(r.comm);
  }
  return tables;
}

}  // namespace preflight::calibrate
