#pragma once
// A model under a training job, resolved once per scenario (as Calculon resolves its application):
// the exact parameter counts, one layer's weight matrices, what the parameters occupy and how many
// bytes each model state takes per parameter, and the FLOPs per token. Every per-candidate model
// (memory, compute, step, run) reads these instead of counting the architecture again.
//
// No setter changes the model or the job without the figures derived from them: a Workload is built
// whole (or replaced whole), so what it says always describes the model and job it was built from.

#include <vector>

#include "simulator/model/flops.hpp"
#include "simulator/model/parameter_count.hpp"
#include "simulator/model/parameter_footprint.hpp"
#include "simulator/spec/model_spec.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

class Workload {
 public:
  Workload() = default;
  Workload(ModelSpec model, TrainingJob job);

  const ModelSpec& model() const { return model_; }
  const TrainingJob& job() const { return job_; }
  const ParameterCount& count() const { return count_; }
  // The largest layer's weight matrices (an expert layer of an expert model), in execution order.
  const std::vector<LinearShape>& linears() const { return kinds_.front().linears; }
  // Every kind of layer with its count: the largest first, then an expert model's dense layers.
  const std::vector<LayerKind>& layer_kinds() const { return kinds_; }
  // The whole model's parameters under the job's method (full, LoRA, QLoRA), before any stage split.
  const ParameterFootprint& footprint() const { return footprint_; }
  const StateBytes& state_bytes() const { return state_bytes_; }
  // At the job's sequence length.
  const FlopsPerToken& flops() const { return flops_; }
  // The LoRA adapters of a LoRA/QLoRA job, null for full training.
  const LoraSpec* lora() const { return job_.method == Method::full ? nullptr : &job_.lora; }

 private:
  ModelSpec model_;
  TrainingJob job_;
  ParameterCount count_;
  std::vector<LayerKind> kinds_;
  ParameterFootprint footprint_;
  StateBytes state_bytes_;
  FlopsPerToken flops_;
};

}  // namespace preflight
