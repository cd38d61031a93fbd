#include "planner/catalog/price_age.hpp"

#include <chrono>
#include <cstdlib>
#include <cstdio>

namespace preflight {

namespace {

std::optional<std::chrono::sys_days> date_of(const std::string& text) {
  if (text.size() != 7 && text.size() != 10) return std::nullopt;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 4 || i == 7;
    if (dash ? text[i] != '-' : (text[i] < '0' || text[i] > '9')) return std::nullopt;
  }
  const int y = std::stoi(text.substr(0, 4));
  const unsigned m = static_cast<unsigned>(std::stoi(text.substr(5, 2)));
  const unsigned d = text.size() == 10 ? static_cast<unsigned>(std::stoi(text.substr(8, 2))) : 1U;
  const std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{m}, std::chrono::day{d}};
  if (!ymd.ok()) return std::nullopt;
  return std::chrono::sys_days{ymd};
}

}  // namespace

bool is_catalog_date(const std::string& text) { return date_of(text).has_value(); }

std::optional<int> days_between(const std::string& as_of, const std::string& today) {
  const std::optional<std::chrono::sys_days> from = date_of(as_of), to = date_of(today);
  if (!from || !to) return std::nullopt;
  return static_cast<int>((*to - *from).count());
}

std::string today_text() {
  if (const char* env = std::getenv("PREFLIGHT_TODAY"); env != nullptr && date_of(env)) return env;
  const std::chrono::year_month_day ymd{std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())};
  char text[16];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()));
  return text;
}

std::string price_age_warning(const NodeSpec& node, int max_age_days) {
  if (node.prices.empty()) return {};
  const std::string today = today_text();
  const std::optional<int> age = days_between(node.as_of, today);
  if (!age || *age <= max_age_days) return {};
  return node.id + "'s prices are as of " + node.as_of + ", " + std::to_string(*age) + " days before " + today +
         " (prices.max_age_days " + std::to_string(max_age_days) + "): check them against " + node.price_source;
}

}  // namespace preflight
