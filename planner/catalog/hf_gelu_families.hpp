#pragma once
// The families of a two-matrix GELU MLP with LayerNorms, each read as its transformers config class
// reads it: GPT-2, GPT-NeoX, Phi-1/1.5/2, StarCoder2, Falcon (old and new keys) and BLOOM.

#include "planner/io/json_reader.hpp"
#include "simulator/spec/model_spec.hpp"

namespace preflight::hf {

ModelSpec gpt2(io::ObjectReader& r);
// GPTBigCodeConfig (StarCoder, SantaCoder): GPT-2's keys, one key-value head under multi_query (its default).
ModelSpec gpt_bigcode(io::ObjectReader& r);
ModelSpec gpt_neox(io::ObjectReader& r);
ModelSpec phi(io::ObjectReader& r);
ModelSpec starcoder2(io::ObjectReader& r);
ModelSpec falcon(io::ObjectReader& r);
ModelSpec refined_web(io::ObjectReader& r);
ModelSpec bloom(io::ObjectReader& r);

}  // namespace preflight::hf
