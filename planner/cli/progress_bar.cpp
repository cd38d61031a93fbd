#include "planner/cli/progress_bar.hpp"

#include <cstdlib>
#include <ostream>

#include <unistd.h>

namespace preflight::cli {

ProgressBar::ProgressBar(std::ostream& err, std::string what)
    : err_(err), what_(std::move(what)), enabled_(::isatty(STDERR_FILENO) == 1 && std::getenv("CI") == nullptr) {}

ProgressBar::~ProgressBar() {
  if (enabled_) err_ << "\r\033[K" << std::flush;
}

void ProgressBar::update(std::size_t done, std::size_t total) {
  if (!enabled_ || total == 0) return;
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = done * kWidth / total;
  err_ << "\r" << what_ << " [" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] " << done << "/"
       << total << std::flush;
}

}  // namespace preflight::cli
