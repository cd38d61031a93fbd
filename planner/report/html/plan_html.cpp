#include "planner/report/html/plan_html.hpp"

#include <algorithm>

#include "simulator/spec/units.hpp"

#include "planner/report/html/chartjs_bundle.hpp"
#include "planner/report/plan_rows.hpp"
#include "planner/report/result_json.hpp"
#include "planner/text/number_text.hpp"
#include "planner/text/candidate_text.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

// JSON inside <script>: "<" never appears raw, so no string can close the script element.
std::string script_json(const nlohmann::ordered_json& j) {
  std::string text = j.dump();
  std::string out;
  for (char ch : text) out += ch == '<' ? std::string("\\u003c") : std::string(1, ch);
  return out;
}

std::string label(const PlanEntry& e) { return candidate_text(*e.node, e.config()); }

nlohmann::ordered_json point(const PlanEntry& e) {
  return {{"x", rounded(e.run.outcome.hours.mean, 3)}, {"y", rounded(e.run.outcome.usd.mean, 2)}, {"label", label(e)}};
}

nlohmann::ordered_json frontier_data(const Plan& p) {
  nlohmann::ordered_json frontier = nlohmann::ordered_json::array(), alternatives = nlohmann::ordered_json::array();
  for (const PlanEntry& e : p.frontier) frontier.push_back(point(e));
  for (const PlanEntry& e : p.alternatives) alternatives.push_back(point(e));
  return {{"frontier", frontier}, {"alternatives", alternatives}, {"best", point(*p.best)}};
}

nlohmann::ordered_json memory_data(const Plan& p) {
  std::vector<const PlanEntry*> top{&*p.best};
  for (const PlanEntry& e : p.alternatives) top.push_back(&e);
  nlohmann::ordered_json labels = nlohmann::ordered_json::array();
  nlohmann::ordered_json parts = nlohmann::ordered_json::object();
  for (const char* part : {"params", "grads", "optimizer", "activations", "comm_buffers", "overhead"}) parts[part] = nlohmann::ordered_json::array();
  nlohmann::ordered_json peak = nlohmann::ordered_json::array(), capacity = nlohmann::ordered_json::array(),
                         usable = nlohmann::ordered_json::array();
  for (const PlanEntry* e : top) {
    const MemoryEstimate& m = e->evaluation.memory;
    const MemoryBreakdown& g = m.gpu;
    labels.push_back(std::to_string(e->config().nodes) + " x " + e->config().instance + " " + to_string(e->config().pricing));
    const auto gib = [](double b) { return rounded(b / kGiB, 3); };
    parts["params"].push_back(gib(g.params + g.reference_params + g.gathered_params));
    parts["grads"].push_back(gib(g.grads + g.grad_buffers));
    parts["optimizer"].push_back(gib(g.optimizer));
    parts["activations"].push_back(gib(g.activations + g.logits));
    parts["comm_buffers"].push_back(gib(g.comm_buffers));
    parts["overhead"].push_back(gib(g.cuda_context + g.workspace + g.fragmentation));
    peak.push_back(gib(m.peak_bytes));
    capacity.push_back(gib(m.capacity_bytes));
    usable.push_back(gib(m.usable_bytes));
  }
  return {{"labels", labels}, {"parts", parts}, {"peak", peak}, {"capacity", capacity}, {"usable", usable}};
}

// Tracks (resources) with their tasks as [start, end] in milliseconds, and the VRAM counter.
nlohmann::ordered_json timeline_data(const nlohmann::ordered_json& trace) {
  nlohmann::ordered_json tracks = nlohmann::ordered_json::array(), memory = nlohmann::ordered_json::array();
  std::vector<std::string> names;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") names.push_back(e.at("args").at("name").get<std::string>());
  }
  for (const std::string& n : names) tracks.push_back({{"name", n}, {"tasks", nlohmann::ordered_json::array()}});
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == "X") {
      const double start = e.at("ts").get<double>() / 1000.0;
      tracks[e.at("tid").get<std::size_t>()]["tasks"].push_back(
          {{"x", {rounded(start, 4), rounded(start + e.at("dur").get<double>() / 1000.0, 4)}},
           {"y", names[e.at("tid").get<std::size_t>()]},
           {"name", e.at("name")}});
    } else if (e.at("ph") == "C") {
      memory.push_back({{"x", rounded(e.at("ts").get<double>() / 1000.0, 4)}, {"y", e.at("args").at("GiB")}});
    }
  }
  return {{"tracks", tracks}, {"memory", memory}};
}

// Each assumption's cost at its two ends, as floating bars around the plan's own cost.
nlohmann::ordered_json sensitivity_data(const Plan& p) {
  nlohmann::ordered_json labels = nlohmann::ordered_json::array(), ranges = nlohmann::ordered_json::array();
  for (const SensitivityRow& r : p.sensitivity) {
    labels.push_back(r.assumption.name);
    ranges.push_back({rounded(std::min(r.usd_low, r.usd_high), 2), rounded(std::max(r.usd_low, r.usd_high), 2)});
  }
  return {{"labels", labels}, {"ranges", ranges}, {"planned", rounded(p.best->run.outcome.usd.mean, 2)}};
}

std::string sensitivity_table(const Plan& p) {
  std::string out = "<table>\n<tr>";
  for (const std::string& c : sensitivity_columns()) out += "<th>" + escape(c) + "</th>";
  out += "</tr>\n";
  for (const std::vector<std::string>& row : sensitivity_rows(p)) {
    out += "<tr>";
    for (const std::string& c : row) out += "<td>" + escape(c) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

nlohmann::ordered_json completion_data(const PlanEntry& e) {
  const RunOutcome& o = e.run.outcome;
  nlohmann::ordered_json bins = nlohmann::ordered_json::array(), counts = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < o.hours_histogram.size(); ++i) {
    bins.push_back(fixed(o.histogram_start_hours + (static_cast<double>(i) + 0.5) * o.histogram_bin_hours, 1));
    counts.push_back(o.hours_histogram[i]);
  }
  return {{"bins", bins}, {"counts", counts}};
}

std::string list(const std::vector<std::string>& lines) {
  std::string out = "<ul>\n";
  for (const std::string& l : lines) out += "<li>" + escape(l) + "</li>\n";
  return out + "</ul>\n";
}

std::string table(const Scenario& s, const std::vector<const PlanEntry*>& entries) {
  std::string out = "<table>\n<tr>";
  for (const std::string& c : plan_columns()) out += "<th>" + escape(c) + "</th>";
  out += "</tr>\n";
  for (const PlanEntry* e : entries) {
    out += "<tr>";
    for (const std::string& c : plan_row(s, *e)) out += "<td>" + escape(c) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; }
th:first-child, td:first-child, td:nth-child(4), td:nth-child(6) { text-align: left; }
.chart { position: relative; height: 380px; margin-bottom: 2em; }
.none { color: #a00; font-weight: bold; }
)css";

// Draws the charts from `report` (the JSON above); body data-charts counts the charts drawn and
// data-errors collects script errors, so a headless browser test can read both from the DOM.
constexpr const char* kScript = R"js(
window.addEventListener('error', (e) => { document.body.dataset.errors += (e.message || 'error') + '; '; });
const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7'];
let drawn = 0;
function chart(id, config) {
  const canvas = document.getElementById(id);
  if (!canvas) return;
  config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options || {});
  new Chart(canvas, config);
  drawn += 1;
}
if (report.frontier) {
  const f = report.frontier;
  chart('frontier', { type: 'scatter', data: { datasets: [
      { label: 'Pareto frontier', data: f.frontier, showLine: true, borderColor: palette[0], backgroundColor: palette[0] },
      { label: 'alternatives', data: f.alternatives, borderColor: palette[1], backgroundColor: palette[1] },
      { label: 'recommended', data: [f.best], pointRadius: 8, borderColor: palette[2], backgroundColor: palette[2] } ] },
    options: { scales: { x: { title: { display: true, text: 'expected hours' } }, y: { title: { display: true, text: 'expected cost (USD)' } } },
      plugins: { tooltip: { callbacks: { label: (c) => c.raw.label + ': ' + c.raw.x + ' h, $' + c.raw.y } } } } });
}
if (report.memory) {
  const m = report.memory;
  const datasets = Object.keys(m.parts).map((k, i) => ({ type: 'bar', label: k, data: m.parts[k], backgroundColor: palette[i], stack: 'gpu' }));
  // Each reference line is its own stack: on a stacked axis lines that share one are summed.
  datasets.push({ type: 'line', label: 'usable (capacity less headroom)', data: m.usable, stack: 'usable', borderColor: '#000', borderDash: [6, 4], fill: false });
  datasets.push({ type: 'line', label: 'capacity', data: m.capacity, stack: 'capacity', borderColor: '#a00', fill: false });
  datasets.push({ type: 'line', label: 'simulated peak (timeline)', data: m.peak, stack: 'peak', showLine: false, pointRadius: 6, pointStyle: 'rectRot', borderColor: '#000', backgroundColor: '#000' });
  chart('memory', { type: 'bar', data: { labels: m.labels, datasets: datasets },
    options: { scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: 'GiB per GPU (sum of components)' } } } } });
}
if (report.timeline) {
  const t = report.timeline;
  chart('timeline', { type: 'bar', data: { labels: t.tracks.map((k) => k.name),
      datasets: t.tracks.map((k, i) => ({ label: k.name, data: k.tasks, backgroundColor: palette[i % palette.length], grouped: false })) },
    options: { indexAxis: 'y', scales: { x: { min: 0, title: { display: true, text: 'ms into the step' } } },
      plugins: { tooltip: { callbacks: { label: (c) => c.raw.name + ': ' + c.raw.x[0] + '-' + c.raw.x[1] + ' ms' } } } } });
  chart('vram', { type: 'line', data: { datasets: [{ label: 'device memory (GiB)', data: t.memory, stepped: true, borderColor: palette[2], borderWidth: 1, pointRadius: 0, fill: false }] },
    options: { parsing: true, scales: { x: { type: 'linear', title: { display: true, text: 'ms into the step' } }, y: { title: { display: true, text: 'GiB' } } } } });
}
if (report.sensitivity) {
  const v = report.sensitivity;
  chart('sensitivity', { type: 'bar', data: { labels: v.labels, datasets: [
      { label: 'mean cost from the optimistic to the pessimistic end (USD)', data: v.ranges, backgroundColor: palette[0] },
      { type: 'line', label: 'as planned', data: v.labels.map(() => v.planned), borderColor: palette[2], borderDash: [6, 4], pointRadius: 0, fill: false } ] },
    options: { scales: { y: { title: { display: true, text: 'expected cost (USD)' } } } } });
}
if (report.completion) {
  const c = report.completion;
  chart('completion', { type: 'bar', data: { labels: c.bins, datasets: [{ label: 'Monte Carlo trials', data: c.counts, backgroundColor: palette[0] }] },
    options: { scales: { x: { title: { display: true, text: 'hours to finish' } }, y: { title: { display: true, text: 'trials' } } } } });
}
document.body.dataset.charts = drawn;
// What each chart plotted, read back off its axes (value at each point's pixel), so a test can hold
// the drawing to the numbers and not only to the absence of errors.
const plotted = {};
for (const id of ['memory', 'sensitivity']) {
  const c = Chart.getChart(id);
  if (!c) continue;
  plotted[id] = c.data.datasets.map((d, i) => ({ label: d.label,
    values: c.getDatasetMeta(i).data.map((el) => Math.round(c.scales.y.getValueForPixel(el.y) * 100) / 100) }));
}
document.body.dataset.plotted = JSON.stringify(plotted);
)js";

}  // namespace

std::string plan_html(const Scenario& s, const Plan& p, const nlohmann::ordered_json& best_trace) {
  if (!have_chartjs()) {
    throw InputError("--format", "$", "\"html\"", "table, json, csv or markdown: this build has no Chart.js "
                                                  "(install libjs-chart.js with scripts/install-deps.sh and rebuild)");
  }
  nlohmann::ordered_json report = nlohmann::ordered_json::object();
  std::string body = "<h1>preflight plan: " + escape(p.scenario) + "</h1>\n" + list(plan_summary(s, p));
  if (p.best) {
    std::vector<const PlanEntry*> alternatives;
    for (const PlanEntry& e : p.alternatives) alternatives.push_back(&e);
    body += "<h2>Recommendation</h2>\n" + table(s, {&*p.best}) + "<h3>Cost</h3>\n" +
            list(cost_lines(p.best->run, p.best->config())) + "<h3>Why</h3>\n" + list(p.reasons);
    if (const std::string t = spot_prior_text(p); !t.empty()) body += "<p class=\"warning\">" + escape(t) + "</p>\n";
    if (!p.sensitivity.empty()) {
      body += "<h3>What drives the answer</h3>\n" + sensitivity_table(p);
      if (const std::string b = break_even_text(p); !b.empty()) body += "<p>" + escape(b) + "</p>\n";
      body += "<div class=\"chart\"><canvas id=\"sensitivity\"></canvas></div>\n";
      report["sensitivity"] = sensitivity_data(p);
    }
    if (!alternatives.empty()) body += "<h3>Alternatives</h3>\n" + table(s, alternatives);
    body += "<h3>Prices</h3>\n" + list(price_lines(p));
    body += "<h2>Cost against time</h2>\n<div class=\"chart\"><canvas id=\"frontier\"></canvas></div>\n";
    body += "<h2>Memory per GPU against capacity</h2>\n<div class=\"chart\"><canvas id=\"memory\"></canvas></div>\n";
    body += "<h2>One step of the recommended plan</h2>\n<div class=\"chart\"><canvas id=\"timeline\"></canvas></div>\n"
            "<div class=\"chart\"><canvas id=\"vram\"></canvas></div>\n";
    report["frontier"] = frontier_data(p);
    report["memory"] = memory_data(p);
    if (!best_trace.is_null()) report["timeline"] = timeline_data(best_trace);
    if (on_spot(p.best->config().pricing) && p.best->run.inputs.interruptions.interrupts()) {
      body += "<h2>Completion time on spot</h2>\n<div class=\"chart\"><canvas id=\"completion\"></canvas></div>\n";
      report["completion"] = completion_data(*p.best);
    }
  } else {
    body += "<p class=\"none\">No feasible plan.</p>\n";
    if (!p.suggestions.empty()) body += "<h2>What would make it feasible</h2>\n" + list(p.suggestions);
  }
  body += "<h2>Rejected</h2>\n<p>" + escape(rejection_counts(p)) + "</p>\n";
  std::vector<std::string> misses;
  for (const NearestMiss& m : p.nearest_misses) misses.push_back(to_string(m.reason) + ": " + m.text);
  if (!misses.empty()) body += "<h3>Nearest misses</h3>\n" + list(misses);

  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>preflight plan: " +
                     escape(p.scenario) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body data-charts=\"0\" data-errors=\"\" data-plotted=\"\">\n";
  html += body;
  html += "<!-- Chart.js, inlined from Debian's libjs-chart.js. Licence:\n" + escape(std::string(chartjs_licence())) + "\n-->\n";
  html += "<script>\n" + std::string(chartjs_source()) + "\n</script>\n";
  html += "<script>\nconst report = " + script_json(report) + ";\n" + kScript + "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace preflight
