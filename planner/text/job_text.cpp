#include "planner/text/job_text.hpp"

namespace preflight {

namespace {

std::string reference_text(const TrainingJob& job) {
  switch (job.reference) {
    case ReferenceSource::model:
      return job.reference_weights() ? "a reference model's forward every step (a second copy of the weights)"
                                     : "the reference's forward every step (the base with its adapters off)";
    case ReferenceSource::precomputed: return "reference log-probabilities computed once over the data before training";
    case ReferenceSource::none: break;
  }
  return "no reference model";
}

}  // namespace

std::string method_text(const TrainingJob& job) {
  if (job.objective == TrainingObjective::sft) return to_string(job.method);
  std::string text = to_string(job.objective) + " on " + (job.method == Method::full ? "full weights" : to_string(job.method) + " adapters");
  if (job.objective == TrainingObjective::reward) return text + ", a scalar head in place of the lm_head";
  text += ", " + reference_text(job);
  if (job.objective == TrainingObjective::kto) text += ", and the policy's forward on a mismatched completion for the KL term";
  return text;
}

std::string examples_text(const TrainingJob& job, std::int64_t examples) {
  return std::to_string(examples) + (paired(job.objective) ? (examples == 1 ? " pair" : " pairs") : (examples == 1 ? " sequence" : " sequences"));
}

}  // namespace preflight
