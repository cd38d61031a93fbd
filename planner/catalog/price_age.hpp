#pragma once
// Prices move: a quote older than the scenario's prices.max_age_days (default 120) is said (plan
// and simulate print it on stderr) with its date, so a budget is not signed off on last season's list price. "Today" is the
// UTC date, or PREFLIGHT_TODAY (YYYY-MM-DD) where set, which keeps tests independent of the clock.

#include <optional>
#include <string>

#include "simulator/spec/node_spec.hpp"

namespace preflight {

// A catalog date: YYYY-MM-DD or YYYY-MM, a real day of the calendar.
bool is_catalog_date(const std::string& text);

// Whole days from `as_of` (YYYY-MM-DD or YYYY-MM, read as its first day) to `today`; empty when
// either is not such a date.
std::optional<int> days_between(const std::string& as_of, const std::string& today);

// Today as YYYY-MM-DD (PREFLIGHT_TODAY where set).
std::string today_text();

// The warning's text when the machine's quotes are older than `max_age_days`; empty otherwise
// (and for owned hardware, which has no quote).
std::string price_age_warning(const NodeSpec& node, int max_age_days);

}  // namespace preflight
