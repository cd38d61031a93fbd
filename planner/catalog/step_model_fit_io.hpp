#pragma once
// The fitted factors of the step model as shipped (catalogs/fitted/step_model.json, written by
// `preflight validate --refit`): read strictly, every factor within the range the fitter enforces.

#include <filesystem>

#include "simulator/spec/step_model_fit.hpp"

namespace preflight {

StepModelFit read_step_model_fit(const std::filesystem::path& file);

}  // namespace preflight
