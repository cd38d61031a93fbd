#pragma once
// The host side of a step: the framework's host time to issue each pass over a layer (or the head)
// runs on the one dispatch thread, in program order, and the GPU cannot start a pass before the host
// has issued it. The host runs ahead while the GPU is busy, so the step takes whichever is longer,
// the kernels or their issue, until a synchronisation makes the host wait for the GPU.

#include <optional>
#include <string_view>
#include <utility>

#include "simulator/spec/calibration_profile.hpp"
#include "simulator/step/graph_writer.hpp"

namespace preflight {

class HostDispatch {
 public:
  HostDispatch(GraphWriter& graph, FrameworkMeasurement framework) : g_(graph), framework_(std::move(framework)) {}

  const FrameworkMeasurement& framework() const { return framework_; }

  // The host task issuing a pass of `host_seconds`, which the pass's GPU work must wait for; none
  // for a pass that costs the host nothing.
  std::optional<engine::TaskId> issue(std::string_view name, int index, double host_seconds);

  // The next issue waits for `task` to end on the device (the host reads something back).
  void wait_for(engine::TaskId task) { waits_for_ = task; }
  bool waiting() const { return waits_for_.has_value(); }

 private:
  GraphWriter& g_;
  FrameworkMeasurement framework_;
  std::optional<engine::TaskId> last_issue_;  // the host's program order
  std::optional<engine::TaskId> waits_for_;   // a synchronisation the next issue waits on
};

}  // namespace preflight
