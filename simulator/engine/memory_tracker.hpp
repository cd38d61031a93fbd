#pragma once
// Observer: device memory over the step, from the allocations and frees attached to tasks. The peak
// and its moment come from the timeline, not from a sum of maxima.

#include <string_view>
#include <vector>

#include "simulator/engine/event_engine.hpp"

namespace preflight::engine {

class MemoryTracker : public Observer {
 public:
  // Without the timeline it keeps only the peak (what the search reads, tens of thousands of times).
  explicit MemoryTracker(bool keep_timeline = true) : keep_timeline_(keep_timeline) {}

  struct Sample {
    double seconds;
    double bytes;
  };

  void task_started(const TaskGraph& g, TaskId t, double seconds) override;
  void task_ended(const TaskGraph& g, TaskId t, double seconds) override;

  double peak_bytes() const { return peak_; }
  double peak_seconds() const { return peak_at_; }
  TaskId peak_task() const { return peak_task_; }  // the task whose start reached the peak
  const std::vector<Sample>& timeline() const { return samples_; }

 private:
  void record(double seconds);
  bool keep_timeline_ = true;
  bool started_ = false;
  double current_ = 0.0;
  double peak_ = 0.0;
  double peak_at_ = 0.0;
  TaskId peak_task_ = 0;
  std::vector<Sample> samples_;
};

}  // namespace preflight::engine
