#include "simulator/step/host_dispatch.hpp"

namespace preflight {

std::optional<engine::TaskId> HostDispatch::issue(std::string_view name, int index, double host_seconds) {
  if (host_seconds <= 0.0) return std::nullopt;
  const engine::TaskId issue = g_.add(TaskKind::host, name, index, g_.resources().dispatch, host_seconds);
  g_.after(issue, last_issue_);
  g_.after(issue, waits_for_);
  waits_for_.reset();
  last_issue_ = issue;
  return issue;
}

}  // namespace preflight
