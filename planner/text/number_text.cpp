#include "planner/text/number_text.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "simulator/spec/units.hpp"

namespace preflight {

double rounded(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale + 0.0;  // + 0.0 turns a rounded -0.0 into 0.0
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string gib(double bytes) { return fixed(bytes / kGiB, 2) + " GiB"; }

std::string percent(double fraction, int decimals) {
  return (fraction >= 0.0 ? "+" : "") + fixed(fraction * 100.0, decimals) + "%";
}

std::string share_text(double fraction) {
  const double pct = fraction * 100.0;
  return fixed(pct, std::abs(pct) < 1.0 ? 2 : std::abs(pct) < 10.0 ? 1 : 0) + "%";
}

std::string grouped_digits(std::int64_t n) {
  std::string digits = std::to_string(std::llabs(n));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return (n < 0 ? "-" : "") + digits;
}

std::string usd_text(double usd) {
  const std::int64_t cents_free = std::llround(usd);
  return (cents_free < 0 ? "-$" : "$") + grouped_digits(std::llabs(cents_free));
}

std::string hours_text(double hours) {
  const int decimals = hours < 1.0 ? 2 : hours < 10.0 ? 1 : 0;
  return fixed(hours, hours == std::round(hours) ? 0 : decimals);
}

}  // namespace preflight
