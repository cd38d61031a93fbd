#pragma once
// Chart.js, inlined into the HTML report at build time from Debian's libjs-chart.js (MIT licence, kept
// in the report beside the code), so a report opens without network access.

#include <string_view>

namespace preflight {

bool have_chartjs();
std::string_view chartjs_source();   // the minified library with its banner
std::string_view chartjs_licence();  // the licence text the package ships

}  // namespace preflight
