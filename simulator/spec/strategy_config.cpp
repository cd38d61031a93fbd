#include "simulator/spec/strategy_config.hpp"

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

}  // namespace preflight
