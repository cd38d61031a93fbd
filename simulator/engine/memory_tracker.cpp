#include "simulator/engine/memory_tracker.hpp"

namespace preflight::engine {

void MemoryTracker::record(double seconds) {
  if (!keep_timeline_) return;
  if (!samples_.empty() && samples_.back().seconds == seconds) {
    samples_.back().bytes = current_;
  } else {
    samples_.push_back({seconds, current_});
  }
}

void MemoryTracker::task_started(const TaskGraph& g, TaskId t, double seconds) {
  if (!started_) {
    started_ = true;
    current_ = peak_ = g.resident_bytes;
  }
  current_ += g.task(t).alloc_bytes;
  if (current_ > peak_) {
    peak_ = current_;
    peak_at_ = seconds;
    peak_task_ = t;
  }
  record(seconds);
}

void MemoryTracker::task_ended(const TaskGraph& g, TaskId t, double seconds) {
  current_ -= g.task(t).free_bytes;
  record(seconds);
}

}  // namespace preflight::engine
