#pragma once
// StepInputs point to a Workload and a Machine; a test that varies the model, the job or the node
// builds new ones for every variant. StepSetup keeps each one it built (and a copy of the node each
// machine describes) for its own lifetime, so inputs made earlier stay valid whatever the test
// changes afterwards.

#include <deque>

#include "simulator/hardware/machine.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/calibration_profile.hpp"
#include "simulator/spec/node_spec.hpp"

namespace preflight::test {

class StepSetup {
 public:
  const Workload& workload(const ModelSpec& model, const TrainingJob& job) {
    return workloads_.emplace_back(model, job);
  }
  // `profile` applies when it describes the node's GPU (Machine's rule).
  const Machine& machine(const NodeSpec& node, Precision precision, const CalibrationProfile* profile = nullptr) {
    return machines_.emplace_back(nodes_.emplace_back(node), precision, profile);
  }

 private:
  std::deque<Workload> workloads_;
  std::deque<NodeSpec> nodes_;
  std::deque<Machine> machines_;
};

}  // namespace preflight::test
