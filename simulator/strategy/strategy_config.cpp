#include "simulator/strategy/strategy_config.hpp"

namespace preflight {

ShardingScheme sharding_scheme(Sharding s) {
  switch (s) {
    case Sharding::ddp: return {Engine::pytorch_ddp, 0};
    case Sharding::zero1: return {Engine::deepspeed, 1};
    case Sharding::zero2: return {Engine::deepspeed, 2};
    case Sharding::zero3: return {Engine::deepspeed, 3};
    case Sharding::fsdp_grad_op: return {Engine::fsdp, 2};
    case Sharding::fsdp_full: return {Engine::fsdp, 3};
    case Sharding::fsdp_hybrid: return {Engine::fsdp, 3};
  }
  return {};
}

std::string to_string(Sharding s) {
  switch (s) {
    case Sharding::ddp: return "ddp";
    case Sharding::zero1: return "zero1";
    case Sharding::zero2: return "zero2";
    case Sharding::zero3: return "zero3";
    case Sharding::fsdp_full: return "fsdp_full";
    case Sharding::fsdp_grad_op: return "fsdp_grad_op";
    case Sharding::fsdp_hybrid: return "fsdp_hybrid";
  }
  return "?";
}

std::string to_string(OffloadTarget t) {
  switch (t) {
    case OffloadTarget::none: return "none";
    case OffloadTarget::cpu: return "cpu";
    case OffloadTarget::nvme: return "nvme";
  }
  return "?";
}

std::string to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "?";
}

std::string to_string(Pricing p) { return p == Pricing::spot ? "spot" : "on_demand"; }

}  // namespace preflight
