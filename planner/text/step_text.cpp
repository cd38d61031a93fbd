#include "planner/text/step_text.hpp"

#include <utility>

#include "planner/text/number_text.hpp"

namespace preflight {

std::string step_parts_text(const StepTime& s) {
  std::string text;
  const auto add = [&](const char* separator, const char* name, double seconds) {
    if (seconds <= 0.0) return;
    text += (text.empty() ? "" : separator) + std::string(name) + " " + fixed(seconds, 3);
  };
  add(" + ", "GEMM", s.kernels.gemm);
  add(" + ", "attention", s.kernels.attention);
  add(" + ", "memory-bound", s.kernels.memory_bound);
  // Parts of the GPU's work: what checkpointing repeats, and a preference objective's forwards
  // without gradients (its reference's log-probabilities).
  std::string of_these;
  if (s.recompute_seconds > 0.0) of_these = "recompute " + fixed(s.recompute_seconds, 3);
  if (s.logprob_seconds > 0.0) {
    of_these += (of_these.empty() ? "" : ", ") + std::string("no-grad log-prob forwards ") + fixed(s.logprob_seconds, 3);
  }
  if (!of_these.empty()) text += " (" + of_these + " of these)";
  add(", ", "exposed communication", s.comm_exposed_seconds);
  add(", ", "offload", s.offload_exposed_seconds);
  add(", ", "waiting on the host", s.host_exposed_seconds);
  add(", ", "pipeline bubble", s.pipeline_bubble_seconds);
  add(", ", "optimizer", s.optimizer_seconds);
  // An RL step's other phases: the generator's sampling (what of it a generator running a step ahead
  // hides behind training) and the weights' sync.
  if (s.generation_seconds > 0.0) {
    text = "generation " + fixed(s.generation_seconds, 3) +
           (s.generation_hidden_seconds > 0.0 ? " (" + fixed(s.generation_hidden_seconds, 3) + " of it behind training)" : "") +
           ", training: " + text;
  }
  add(", ", "weight sync", s.sync_seconds);
  return text;
}

std::string step_interval_text(double seconds, const StepTimeInterval& interval, int decimals) {
  if (interval.rows == 0) return {};
  return "80% interval " + fixed(seconds * interval.low, decimals) + "-" + fixed(seconds * interval.high, decimals) +
         " s (the held-out error of " + std::to_string(interval.rows) + " published runs)";
}

}  // namespace preflight
