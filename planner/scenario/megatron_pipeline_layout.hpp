#pragma once
// Megatron-Core's --pipeline-model-parallel-layout (megatron/core/transformer/pipeline_parallel_layer_layout.py):
// the model chunks split by "|" in virtual-stage order (chunk v x pp + rank is virtual stage v of
// pipeline rank `rank`), "E" the embedding, "t" a decoder layer, "m" a multi-token-prediction layer,
// "L" the loss; "x*n" and "(...)*n" repeat, commas are cosmetic. Its DeepSeek-V3 example:
// "Et*3|(tt|)*29,m|L" for 61 layers over pp 16 x 2 virtual stages.

#include <cstdint>
#include <string>

namespace preflight {

// The balanced layout preflight simulates (pipeline_chunk_layers), embedding first and loss last.
std::string write_pipeline_layout(std::int64_t layers, int pp, int interleave);

struct PipelineLayoutCount {
  std::int64_t chunks = 0;          // pp x virtual stages
  std::int64_t decoder_layers = 0;  // "t"
};

// Throws InvalidConfig("pipeline-model-parallel-layout", ...) for a layout Megatron-Core would not
// parse (an unknown symbol, an unmatched parenthesis, a repeat without a count) or that unrolls
// past 1,000,000 symbols.
PipelineLayoutCount read_pipeline_layout(const std::string& layout);

}  // namespace preflight
