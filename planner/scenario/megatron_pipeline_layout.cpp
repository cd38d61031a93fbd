#include "planner/scenario/megatron_pipeline_layout.hpp"

#include <cctype>
#include <vector>

#include "simulator/model/stage_layout.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

std::string write_pipeline_layout(std::int64_t layers, int pp, int interleave) {
  const std::vector<std::int64_t> chunks = pipeline_chunk_layers(layers, pp, interleave);
  const auto decoder = [](std::int64_t n) { return n == 1 ? std::string("t") : "t*" + std::to_string(n); };
  // The embedding's chunk, runs of equal chunks between as "(t*n|)*k", the loss's chunk.
  std::string s = "E" + decoder(chunks.front()) + "|";
  for (std::size_t i = 1; i + 1 < chunks.size();) {
    std::size_t run = 1;
    while (i + run + 1 < chunks.size() && chunks[i + run] == chunks[i]) ++run;
    s += run == 1 ? decoder(chunks[i]) + "|" : "(" + decoder(chunks[i]) + "|)*" + std::to_string(run);
    i += run;
  }
  return s + decoder(chunks.back()) + "L";
}

namespace {

constexpr std::size_t kMaxUnrolled = 1'000'000;

// Unrolls the repeats, as Megatron-Core's parse_str_to_list does, into the bare symbols.
class LayoutReader {
 public:
  explicit LayoutReader(const std::string& text) : text_(text) {}

  std::string unrolled() {
    std::string out = sequence();
    if (at_ < text_.size()) fail("an unmatched \")\" at character " + std::to_string(at_ + 1));
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw InvalidConfig("pipeline-model-parallel-layout",
                        "a layout of E, t, m, L, \"|\", x*n, (...)*n and commas, not " + why);
  }

  std::string sequence() {
    std::string out;
    while (at_ < text_.size() && text_[at_] != ')') {
      const char c = text_[at_];
      std::string item;
      if (c == ',' || std::isspace(static_cast<unsigned char>(c)) != 0) {
        ++at_;
        continue;
      }
      if (c == '(') {
        ++at_;
        item = sequence();
        if (at_ >= text_.size()) fail("an unclosed \"(\"");
        ++at_;
        if (at_ >= text_.size() || text_[at_] != '*') fail("a parenthesis without a repeat count");
      } else if (c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|') {
        item = std::string(1, c);
        ++at_;
      } else {
        fail(std::string("the symbol \"") + c + "\"");
      }
      if (at_ < text_.size() && text_[at_] == '*') {
        ++at_;
        std::size_t n = 0;
        const std::size_t digits = at_;
        while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])) != 0) {
          n = n * 10 + static_cast<std::size_t>(text_[at_] - '0');
          if (n > kMaxUnrolled) fail("a repeat count above " + std::to_string(kMaxUnrolled));
          ++at_;
        }
        if (at_ == digits) fail("\"*\" without a count");
        if (item.size() * n + out.size() > kMaxUnrolled) fail("more than " + std::to_string(kMaxUnrolled) + " symbols unrolled");
        std::string repeated;
        for (std::size_t k = 0; k < n; ++k) repeated += item;
        item = std::move(repeated);
      }
      if (out.size() + item.size() > kMaxUnrolled) fail("more than " + std::to_string(kMaxUnrolled) + " symbols unrolled");
      out += item;
    }
    return out;
  }

  const std::string& text_;
  std::size_t at_ = 0;
};

}  // namespace

PipelineLayoutCount read_pipeline_layout(const std::string& layout) {
  const std::string symbols = LayoutReader(layout).unrolled();
  PipelineLayoutCount count;
  count.chunks = 1;
  for (const char c : symbols) {
    if (c == '|') ++count.chunks;
    if (c == 't') ++count.decoder_layers;
  }
  return count;
}

}  // namespace preflight
