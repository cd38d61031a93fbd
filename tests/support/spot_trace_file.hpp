#pragma once
// The published Bamboo spot traces (../shared/spot_traces/uclasystem_bamboo/*-trace.csv, lines
// `time_ms,add|remove,nodeN`), read without the planner's reader so that the simulator's tests can
// replay them. tests/planner/spot_trace_reader_test.cpp checks that planner/io reads the same trace.

#include <string>

#include "simulator/economics/spot_trace.hpp"

namespace preflight::test {

// `path` relative to ../shared/spot_traces; throws std::runtime_error on anything but Bamboo's CSV lines.
SpotTrace bamboo_trace(const std::string& path);

}  // namespace preflight::test
