// The discrete-event engine on graphs small enough to work out by hand: resources serve one task at
// a time, dependencies order them, overlap emerges from the graph, memory peaks come from the
// timeline, and the trace is Chrome trace JSON with one track per resource.

#include <gtest/gtest.h>

#include <stdexcept>

#include "simulator/engine/chrome_trace_writer.hpp"
#include "simulator/engine/event_engine.hpp"
#include "simulator/engine/memory_tracker.hpp"

namespace preflight::engine {
namespace {

TEST(EventEngine, OneResourceRunsTasksOneAfterAnother) {
  TaskGraph g;
  const ResourceId gpu = g.add_resource("gpu");
  for (int i = 0; i < 3; ++i) g.add_task({"op", i, gpu, 2.0});
  EXPECT_DOUBLE_EQ(run(g).makespan, 6.0);
}

TEST(EventEngine, TwoResourcesOverlap) {
  TaskGraph g;
  const ResourceId gpu = g.add_resource("gpu");
  const ResourceId net = g.add_resource("net");
  g.add_task({"compute", 0, gpu, 3.0});
  g.add_task({"all-reduce", 0, net, 2.0});
  EXPECT_DOUBLE_EQ(run(g).makespan, 3.0);
}

// Backward of layer 1 then layer 0; each layer's gradient all-reduce waits for its backward and
// overlaps the next backward: 1 + 1 + 2 (last all-reduce exposed) = 4 instead of 1 + 1 + 2 + 2 = 6.
TEST(EventEngine, CommunicationOverlapsTheRestOfBackward) {
  TaskGraph g;
  const ResourceId gpu = g.add_resource("gpu");
  const ResourceId net = g.add_resource("net");
  const TaskId b1 = g.add_task({"backward", 1, gpu, 1.0});
  const TaskId b0 = g.add_task({"backward", 0, gpu, 1.0});
  const TaskId a1 = g.add_task({"all-reduce", 1, net, 2.0});
  const TaskId a0 = g.add_task({"all-reduce", 0, net, 2.0});
  g.depends(b0, b1);
  g.depends(a1, b1);
  g.depends(a0, b0);
  const Schedule s = run(g);
  EXPECT_DOUBLE_EQ(s.timings[a1].start, 1.0);
  EXPECT_DOUBLE_EQ(s.timings[a0].start, 3.0);  // the link is busy with a1 until 3
  EXPECT_DOUBLE_EQ(s.makespan, 5.0);
  // Overlap never makes the step slower than the serial sum of its tasks.
  EXPECT_LE(s.makespan, 6.0);
  EXPECT_DOUBLE_EQ(s.busy_seconds[net], 4.0);
}

// A resource serves its ready tasks in issue order; a task waits for every dependency.
TEST(EventEngine, TiesAreDeterministic) {
  TaskGraph g;
  const ResourceId gpu = g.add_resource("gpu");
  const ResourceId net = g.add_resource("net");
  const TaskId a = g.add_task({"a", -1, net, 1.0});
  const TaskId b = g.add_task({"b", -1, net, 1.0});
  const TaskId issued_first = g.add_task({"issued first", -1, gpu, 1.0});
  const TaskId issued_second = g.add_task({"issued second", -1, gpu, 1.0});
  g.depends(issued_second, b);  // b ends at 2, after a
  g.depends(issued_second, a);
  g.depends(issued_first, a);
  const Schedule s = run(g);
  EXPECT_DOUBLE_EQ(s.timings[issued_first].start, 1.0);
  EXPECT_DOUBLE_EQ(s.timings[issued_second].start, 2.0);
}

TEST(EventEngine, CycleIsABuilderBug) {
  TaskGraph g;
  const ResourceId gpu = g.add_resource("gpu");
  const TaskId x = g.add_task({"x", -1, gpu, 1.0});
  const TaskId y = g.add_task({"y", -1, gpu, 1.0});
  g.depends(x, y);
  g.depends(y, x);
  EXPECT_THROW(g.check_acyclic(), std::logic_error);
  EXPECT_THROW(run(g), std::logic_error);
}

// Forward allocates each layer's activations, backward frees them in reverse: the peak is at the
// end of forward, resident + 2 x 10, not the sum over all tasks.
TEST(MemoryTracker, PeakComesFromTheTimeline) {
  TaskGraph g;
  g.resident_bytes = 100.0;
  const ResourceId gpu = g.add_resource("gpu");
  const TaskId f0 = g.add_task({"forward", 0, gpu, 1.0, 10.0, 0.0});
  const TaskId f1 = g.add_task({"forward", 1, gpu, 1.0, 10.0, 0.0});
  const TaskId b1 = g.add_task({"backward", 1, gpu, 2.0, 5.0, 15.0});  // workspace 5, frees it and layer 1
  const TaskId b0 = g.add_task({"backward", 0, gpu, 2.0, 5.0, 15.0});
  g.depends(f1, f0);
  g.depends(b1, f1);
  g.depends(b0, b1);
  MemoryTracker memory;
  run(g, {&memory});
  EXPECT_DOUBLE_EQ(memory.peak_bytes(), 125.0);  // 100 + 10 + 10 + 5 while backward 1 runs
  EXPECT_DOUBLE_EQ(memory.peak_seconds(), 2.0);
  EXPECT_EQ(memory.peak_task(), b1);
  EXPECT_DOUBLE_EQ(memory.timeline().back().bytes, 100.0);
}

TEST(ChromeTrace, OneTrackPerResourceAndAMemoryCounter) {
  TaskGraph g;
  const ResourceId gpu = g.add_resource("gpu compute");
  const ResourceId net = g.add_resource("inter-node network");
  const TaskId f = g.add_task({"forward", 0, gpu, 0.001, 1024.0, 0.0});
  const TaskId a = g.add_task({"all-reduce", 0, net, 0.002, 0.0, 1024.0});
  g.depends(a, f);
  ChromeTraceWriter trace;
  run(g, {&trace});
  const nlohmann::json j = nlohmann::json::parse(trace.trace().dump());  // valid JSON text
  int tracks = 0, slices = 0, counters = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") ++tracks;
    if (e.at("ph") == "X") {
      ++slices;
      EXPECT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("tid"));
    }
    if (e.at("ph") == "C") ++counters;
  }
  EXPECT_EQ(tracks, 2);
  EXPECT_EQ(slices, 2);
  EXPECT_EQ(counters, 2);
  EXPECT_DOUBLE_EQ(j.at("traceEvents").back().at("ts").get<double>(), 3000.0);  // microseconds
}

}  // namespace
}  // namespace preflight::engine
