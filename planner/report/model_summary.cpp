#include "planner/report/model_summary.hpp"

#include "planner/text/number_text.hpp"
#include "simulator/model/parameter_count.hpp"

namespace preflight {

std::vector<std::string> model_lines(const Scenario& s) {
  const ParameterCount& params = s.workload.count();
  std::string line = s.model_source.description;
  if (!s.model().architecture.empty()) line += " (" + s.model().architecture + ")";
  line += ": " + grouped_digits(params.total()) + " parameters";
  if (s.model().is_moe()) line += " (" + grouped_digits(params.active_per_token()) + " active per token)";
  std::vector<std::string> lines{line};
  for (const std::string& note : s.model_source.notes) lines.push_back("note: " + note);
  return lines;
}

nlohmann::ordered_json model_json(const Scenario& s) {
  const ParameterCount& params = s.workload.count();
  return {{"name", s.model_source.description},
          {"source", s.model_source.source},
          {"parameters", params.total()},
          {"active_parameters", params.active_per_token()},
          {"architecture", s.model().architecture},
          {"notes", s.model_source.notes}};
}

}  // namespace preflight
