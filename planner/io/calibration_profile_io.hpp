#pragma once
// Calibration profiles as JSON (schema in simulator/spec/calibration_profile.hpp), and the
// import of nccl-tests output into one.

#include <filesystem>

#include <nlohmann/json.hpp>

#include "simulator/spec/calibration_profile.hpp"

namespace preflight::io {

CalibrationProfile read_calibration_profile(const std::filesystem::path& file);
CalibrationProfile parse_calibration_profile(const nlohmann::json& json, const std::string& file);
nlohmann::ordered_json calibration_profile_json(const CalibrationProfile& profile);

// nccl-tests output as CSV (`size(B),count,type,time(ns),busbw(GB/s),...`, out-of-place columns
// first, as in the vTrain measurements): one table of the given operation and rank count.
CollectiveTable read_nccl_tests_csv(const std::filesystem::path& file, CollectiveOp op, int ranks);

}  // namespace preflight::io
