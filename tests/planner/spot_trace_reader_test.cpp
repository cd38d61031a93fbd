// Reading the published spot traces (../shared/spot_traces) reproduces their own statistics
// (../shared/reference/spot_trace_summary.csv; Bamboo, NSDI'23) in every format they come in, and a
// malformed line names its file and line. (Replaying them: tests/unit/economics/interruption_process_test.cpp.)

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "planner/io/spot_trace_reader.hpp"
#include "simulator/spec/errors.hpp"
#include "support/spot_trace_file.hpp"

namespace preflight {
namespace {

SpotTrace trace(const std::string& path) {
  return io::read_spot_trace(std::string(PREFLIGHT_VALIDATION_DIR) + "/../spot_traces/" + path);
}

TEST(SpotTrace, BambooP3Statistics) {
  const SpotTrace t = trace("uclasystem_bamboo/p3-trace.csv");
  EXPECT_EQ(t.max_nodes, 32);
  EXPECT_NEAR(t.span_hours, 11.4, 0.05);
  EXPECT_EQ(t.total_removals(), 167);
  EXPECT_EQ(t.distinct_removal_times(), 79);
  EXPECT_NEAR(t.removals_per_node_hour(), 0.611, 0.0005);
}

TEST(SpotTrace, BambooG4dnStatistics) {
  const SpotTrace t = trace("uclasystem_bamboo/g4dn-trace.csv");
  EXPECT_EQ(t.max_nodes, 24);
  EXPECT_EQ(t.total_removals(), 74);
  EXPECT_NEAR(t.removals_per_node_hour(), 0.545, 0.0005);
}

TEST(SpotTrace, OtherFormatsLoad) {
  const SpotTrace gcloud = trace("uclasystem_bamboo/gcloud/a100x1-east1b.txt");
  EXPECT_EQ(gcloud.max_nodes, 64);  // the a100 trace ranges 17..64 instances (SOURCE.md)
  EXPECT_GT(gcloud.total_removals(), 0);
  const SpotTrace parcae = trace("JF-D_Parcae/gpt-6.7b_trace_hh_55_65.txt");
  EXPECT_EQ(parcae.max_nodes, 32);
  EXPECT_NEAR(parcae.span_hours, 59.0 / 60.0, 1e-9);  // 60 one-minute ticks
}

// The simulator's tests replay the Bamboo traces read by tests/support (they may not use the planner):
// the same trace as planner/io reads, event for event.
TEST(SpotTrace, SupportReaderReadsWhatTheIoReaderReads) {
  for (const std::string path : {"uclasystem_bamboo/p3-trace.csv", "uclasystem_bamboo/g4dn-trace.csv"}) {
    const SpotTrace io_trace = trace(path);
    const SpotTrace support_trace = test::bamboo_trace(path);
    EXPECT_EQ(support_trace.name, io_trace.name);
    EXPECT_EQ(support_trace.span_hours, io_trace.span_hours) << path;
    EXPECT_EQ(support_trace.node_hours, io_trace.node_hours) << path;
    EXPECT_EQ(support_trace.max_nodes, io_trace.max_nodes) << path;
    ASSERT_EQ(support_trace.events.size(), io_trace.events.size()) << path;
    for (std::size_t i = 0; i < io_trace.events.size(); ++i) {
      EXPECT_EQ(support_trace.events[i].hours, io_trace.events[i].hours) << path << " event " << i;
      EXPECT_EQ(support_trace.events[i].removals, io_trace.events[i].removals) << path << " event " << i;
      EXPECT_EQ(support_trace.events[i].alive_before, io_trace.events[i].alive_before) << path << " event " << i;
    }
  }
}

TEST(SpotTrace, MalformedLineNamesFileAndLine) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "preflight-bad-trace.csv";
  {
    std::ofstream(file) << "0,add,node1\nsoon,remove,node1\n";
  }
  try {
    io::read_spot_trace(file);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_path(), "line 2");
  }
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace preflight
