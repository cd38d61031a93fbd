#pragma once
// A one-line progress bar on stderr for long commands, drawn only on an interactive terminal: never
// in CI logs (the CI variable set) or when stderr is piped or redirected.

#include <cstddef>
#include <iosfwd>
#include <string>

namespace preflight::cli {

class ProgressBar {
 public:
  ProgressBar(std::ostream& err, std::string what);  // decides once whether to draw
  ~ProgressBar();                                     // clears the line it drew
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(std::size_t done, std::size_t total);
  bool drawing() const { return enabled_; }

 private:
  std::ostream& err_;
  std::string what_;
  bool enabled_ = false;
};

}  // namespace preflight::cli
