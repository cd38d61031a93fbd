#pragma once
// Megatron-Core's --pipeline-model-parallel-layout (megatron/core/transformer/pipeline_parallel_layer_layout.py):
// the model chunks split by "|" in virtual-stage order (chunk v x pp + rank is virtual stage v of
// pipeline rank `rank`), "E" the embedding, "t" a decoder layer, "m" a multi-token-prediction layer,
// "L" the loss; "x*n" repeats a symbol and "(...)*n" a group (not nested: Megatron-Core's regular
// expressions unroll one level), commas are removed first. Its validate_layer_layout wants the
// embedding exactly once and first, the loss exactly once and last, no decoder layer after an MTP
// layer. Its DeepSeek-V3 example: "Et*3|(tt|)*29,m|L" for 61 layers over pp 16 x 2 virtual stages.

#include <cstdint>
#include <string>
#include <vector>

namespace preflight {

// The balanced layout preflight simulates (pipeline_chunk_layers), embedding first and loss last.
std::string write_pipeline_layout(std::int64_t layers, int pp, int interleave);

struct PipelineLayoutCount {
  std::vector<std::int64_t> chunk_layers;  // decoder layers ("t") of each chunk, in layout order
  std::int64_t decoder_layers = 0;

  std::int64_t chunks() const { return static_cast<std::int64_t>(chunk_layers.size()); }
  // The decoder layers of the pipeline rank that holds the most (pp dividing the chunks).
  std::int64_t heaviest_rank_layers(int pp) const;
};

// Throws InvalidConfig("pipeline-model-parallel-layout", ...) for a layout Megatron-Core would not
// take: an unknown symbol or whitespace, a nested, empty or unclosed group, a repeat without a
// count, the embedding or loss missing, repeated or out of place, a decoder layer after an MTP
// layer, or more than 1,000,000 symbols unrolled. Parses in time linear in the text (repeats are
// counted, not unrolled, inside a chunk).
PipelineLayoutCount read_pipeline_layout(const std::string& layout);

}  // namespace preflight
