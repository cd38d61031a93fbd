#pragma once
// Numbers as every output writes them: fixed decimals, GiB, signed percentages, shares, dollars,
// hours and digit groups.

#include <cstdint>
#include <string>

namespace preflight {

// Seconds and ratios rounded to what the models can claim, so output stays readable and stable.
double rounded(double value, int decimals);
std::string fixed(double value, int decimals);
std::string gib(double bytes);                           // "12.55 GiB"
std::string percent(double fraction, int decimals = 0);  // "+33%"
std::string share_text(double fraction);                 // "0.04%", "4.2%", "37%"
std::string grouped_digits(std::int64_t n);              // "1,234,567"
std::string usd_text(double usd);                        // "$1,234"
std::string hours_text(double hours);                    // "0.25", "7.5", "72": the digits a deadline is given with

}  // namespace preflight
