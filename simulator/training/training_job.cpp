#include "simulator/training/training_job.hpp"

namespace preflight {

std::string to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
  }
  return "?";
}

std::string to_string(OptimizerKind o) {
  switch (o) {
    case OptimizerKind::adamw: return "adamw";
    case OptimizerKind::adam8bit: return "adam8bit";
    case OptimizerKind::sgd_momentum: return "sgd";
  }
  return "?";
}

std::string to_string(Method m) {
  switch (m) {
    case Method::full: return "full";
    case Method::lora: return "lora";
    case Method::qlora: return "qlora";
  }
  return "?";
}

}  // namespace preflight
