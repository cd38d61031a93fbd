#include "planner/scenario/megatron_pipeline_layout.hpp"

#include <algorithm>
#include <cctype>

#include "simulator/model/stage_layout.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

std::string write_pipeline_layout(std::int64_t layers, int pp, int interleave) {
  const std::vector<std::int64_t> chunks = pipeline_chunk_layers(layers, pp, interleave);
  const auto decoder = [](std::int64_t n) { return n == 1 ? std::string("t") : "t*" + std::to_string(n); };
  if (chunks.size() == 1) return "E" + decoder(chunks.front()) + "L";
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

std::int64_t PipelineLayoutCount::heaviest_rank_layers(int pp) const {
  std::vector<std::int64_t> ranks(static_cast<std::size_t>(std::max(pp, 1)), 0);
  for (std::size_t i = 0; i < chunk_layers.size(); ++i) ranks[i % ranks.size()] += chunk_layers[i];
  return *std::max_element(ranks.begin(), ranks.end());
}

namespace {

constexpr std::int64_t kMaxSymbols = 1'000'000;

// A run of the layout: the decoder layers of its chunks (the first and last open to the runs beside
// it), what the validation needs of its symbols, and how many symbols it unrolls to.
struct Run {
  std::vector<std::int64_t> chunks{0};
  std::int64_t symbols = 0;
  std::int64_t embeddings = 0, losses = 0;
  char first = 0, last = 0;  // first and last layer symbol (0: none)
  bool has_mtp = false, has_decoder = false, decoder_after_mtp = false;

  void append(const Run& b) {
    decoder_after_mtp = decoder_after_mtp || b.decoder_after_mtp || (has_mtp && b.has_decoder);
    chunks.back() += b.chunks.front();
    chunks.insert(chunks.end(), b.chunks.begin() + 1, b.chunks.end());
    symbols += b.symbols;
    embeddings += b.embeddings;
    losses += b.losses;
    if (first == 0) first = b.first;
    if (b.last != 0) last = b.last;
    has_mtp = has_mtp || b.has_mtp;
    has_decoder = has_decoder || b.has_decoder;
  }
};

class LayoutReader {
 public:
  explicit LayoutReader(std::string text) : text_(std::move(text)) {
    text_.erase(std::remove(text_.begin(), text_.end(), ','), text_.end());  // cosmetic, removed first
  }

  Run read() {
    Run all;
    while (at_ < text_.size()) {
      Run item = this->item(false);
      if (all.symbols + item.symbols > kMaxSymbols) fail("more than " + std::to_string(kMaxSymbols) + " symbols unrolled");
      all.append(item);
    }
    return all;
  }

 private:
  [[noreturn]] static void fail(const std::string& why) {
    throw InvalidConfig("pipeline-model-parallel-layout",
                        "a layout of E, t, m, L, \"|\", x*n, (...)*n (not nested) and commas, not " + why);
  }

  static Run symbol(char c) {
    Run r;
    r.symbols = 1;
    if (c == '|') {
      r.chunks.push_back(0);
      return r;
    }
    r.first = r.last = c;
    r.chunks.front() = c == 't' ? 1 : 0;
    r.embeddings = c == 'E' ? 1 : 0;
    r.losses = c == 'L' ? 1 : 0;
    r.has_mtp = c == 'm';
    r.has_decoder = c == 't';
    return r;
  }

  // A symbol or a group, and its repeat count when one follows.
  Run item(bool in_group) {
    const char c = text_[at_];
    Run base;
    if (c == '(') {
      if (in_group) fail("a group inside a group");
      ++at_;
      while (at_ < text_.size() && text_[at_] != ')') {
        Run inner = item(true);
        if (base.symbols + inner.symbols > kMaxSymbols) fail("more than " + std::to_string(kMaxSymbols) + " symbols unrolled");
        base.append(inner);
      }
      if (at_ >= text_.size()) fail("an unclosed \"(\"");
      if (base.symbols == 0) fail("an empty group");
      ++at_;
      if (at_ >= text_.size() || text_[at_] != '*') fail("a group without a repeat count");
    } else if (c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|') {
      base = symbol(c);
      ++at_;
    } else if (c == ')') {
      fail("an unmatched \")\"");
    } else if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      fail("whitespace");
    } else {
      fail(std::string("the symbol \"") + c + "\"");
    }
    if (at_ >= text_.size() || text_[at_] != '*') return base;
    ++at_;
    std::int64_t n = 0;
    const std::size_t digits = at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])) != 0) {
      n = n * 10 + (text_[at_] - '0');
      if (n > kMaxSymbols) fail("a repeat count above " + std::to_string(kMaxSymbols));
      ++at_;
    }
    if (at_ == digits) fail("\"*\" without a count");
    return repeated(base, n);
  }

  // `base` n times: one chunk's counts multiply; chunks beyond the first are copied, as many as the
  // layout will have (bounded by the symbol count).
  static Run repeated(const Run& base, std::int64_t n) {
    if (n == 0) return Run{};
    if (base.symbols * n > kMaxSymbols) fail("more than " + std::to_string(kMaxSymbols) + " symbols unrolled");
    if (base.chunks.size() == 1) {
      Run r = base;
      r.chunks.front() *= n;
      r.symbols *= n;
      r.embeddings *= n;
      r.losses *= n;
      r.decoder_after_mtp = base.decoder_after_mtp || (n > 1 && base.has_mtp && base.has_decoder);
      return r;
    }
    Run r = base;
    for (std::int64_t k = 1; k < n; ++k) r.append(base);
    return r;
  }

  std::string text_;
  std::size_t at_ = 0;
};

}  // namespace

PipelineLayoutCount read_pipeline_layout(const std::string& layout) {
  const Run run = LayoutReader(layout).read();
  const auto fail = [](const std::string& why) {
    throw InvalidConfig("pipeline-model-parallel-layout", "the embedding (E) once and first, the loss (L) once and last, and no "
                                                          "decoder layer (t) after an MTP layer (m), not " + why);
  };
  if (run.embeddings != 1 || run.first != 'E') fail(run.embeddings == 1 ? "E after another layer" : std::to_string(run.embeddings) + " E");
  if (run.losses != 1 || run.last != 'L') fail(run.losses == 1 ? "L before another layer" : std::to_string(run.losses) + " L");
  if (run.decoder_after_mtp) fail("t after m");
  PipelineLayoutCount count;
  count.chunk_layers = run.chunks;
  for (const std::int64_t c : run.chunks) count.decoder_layers += c;
  return count;
}

}  // namespace preflight
