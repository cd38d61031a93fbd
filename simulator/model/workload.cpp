#include "simulator/model/workload.hpp"

#include <utility>

namespace preflight {

namespace {

// A reward model is the base with transformers' score layer in place of its lm_head
// (AutoModelForSequenceClassification): an untied hidden -> 1 head without bias.
ModelSpec as_trained(ModelSpec model, const TrainingJob& job) {
  if (job.objective == TrainingObjective::reward) {
    model.scalar_head = true;
    model.tied_embeddings = false;
    model.lm_head_bias = false;
  }
  return model;
}

}  // namespace

Workload::Workload(ModelSpec model, TrainingJob job)
    : model_(as_trained(std::move(model), job)),
      job_(std::move(job)),
      count_(count_parameters(model_)),
      kinds_(preflight::layer_kinds(model_)),
      footprint_(parameter_footprint(model_, count_, job_)),
      state_bytes_(preflight::state_bytes(job_.precision, job_.optimizer, job_.method != Method::full && job_.master_weights,
                                          job_.master_weights,
                                          factored_moment_bytes(model_, count_, job_))),
      flops_(flops_per_token(model_, count_, job_.seq_len)) {}

}  // namespace preflight
