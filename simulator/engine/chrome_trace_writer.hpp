#pragma once
// Observer: a Chrome / Perfetto trace of the step (chrome://tracing, ui.perfetto.dev): one track per
// resource with a slice per task, and a counter track for device memory.

#include <nlohmann/json.hpp>

#include "simulator/engine/event_engine.hpp"

namespace preflight::engine {

class ChromeTraceWriter : public Observer {
 public:
  void task_started(const TaskGraph& g, TaskId t, double seconds) override;
  void task_ended(const TaskGraph& g, TaskId t, double seconds) override;
  void finished(const TaskGraph& g, double makespan) override;

  // {"traceEvents": [...], "displayTimeUnit": "ms"}
  const nlohmann::ordered_json& trace() const { return trace_; }

 private:
  void memory_counter(double seconds);
  nlohmann::ordered_json events_ = nlohmann::ordered_json::array();
  nlohmann::ordered_json trace_;
  double memory_ = 0.0;
  bool started_ = false;
};

}  // namespace preflight::engine
