#include "simulator/engine/chrome_trace_writer.hpp"

#include <cmath>
#include <string>

namespace preflight::engine {

namespace {

constexpr double kMicroseconds = 1e6;
constexpr int kProcess = 1;

double us(double seconds) { return std::round(seconds * kMicroseconds * 1000.0) / 1000.0; }

}  // namespace

void ChromeTraceWriter::memory_counter(double seconds) {
  events_.push_back({{"name", "device memory"}, {"ph", "C"}, {"ts", us(seconds)}, {"pid", kProcess},
                     {"args", {{"GiB", std::round(memory_ / (1024.0 * 1024.0 * 1024.0) * 1000.0) / 1000.0}}}});
}

void ChromeTraceWriter::task_started(const TaskGraph& g, TaskId t, double seconds) {
  if (!started_) {
    started_ = true;
    memory_ = g.resident_bytes;
  }
  const Task& task = g.task(t);
  std::string name(task.name);
  if (task.index >= 0) name += " " + std::to_string(task.index);
  events_.push_back({{"name", name}, {"ph", "X"}, {"ts", us(seconds)}, {"dur", us(task.seconds)}, {"pid", kProcess},
                     {"tid", task.resource}});
  if (task.alloc_bytes != 0.0) {
    memory_ += task.alloc_bytes;
    memory_counter(seconds);
  }
}

void ChromeTraceWriter::task_ended(const TaskGraph& g, TaskId t, double seconds) {
  if (g.task(t).free_bytes != 0.0) {
    memory_ -= g.task(t).free_bytes;
    memory_counter(seconds);
  }
}

void ChromeTraceWriter::finished(const TaskGraph& g, double) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  all.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", kProcess}, {"args", {{"name", "one GPU's step"}}}});
  for (ResourceId r = 0; r < g.resource_count(); ++r) {
    all.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", kProcess}, {"tid", r}, {"args", {{"name", g.resource_name(r)}}}});
  }
  for (auto& e : events_) all.push_back(std::move(e));
  trace_ = {{"traceEvents", std::move(all)}, {"displayTimeUnit", "ms"}};
}

}  // namespace preflight::engine
