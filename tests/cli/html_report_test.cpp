// `plan --format html` rendered in headless Chromium (Debian's package, installed by scripts/test.sh):
// every chart is drawn, no script error is raised, and strings from the scenario cannot inject markup.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

struct Rendered {
  std::string dom;
  std::string log;
};

Rendered render(const fs::path& html, const fs::path& dir) {
  const std::string chromium = PREFLIGHT_CHROMIUM;
  if (chromium.find("NOTFOUND") != std::string::npos || chromium.empty()) {
    ADD_FAILURE() << "chromium not found: scripts/test.sh installs it (apt-get install chromium)";
    return {};
  }
  const fs::path dom = dir / "dom.html", log = dir / "chromium.log";
  const std::string command = "timeout 120 " + chromium + " --headless --no-sandbox --disable-gpu --user-data-dir=" +
                              (dir / "profile").string() + " --enable-logging=stderr --v=0 --dump-dom file://" +
                              html.string() + " >" + dom.string() + " 2>" + log.string();
  EXPECT_EQ(std::system(command.c_str()), 0) << test::read_text(log);
  return {test::read_text(dom), test::read_text(log)};
}

std::string body_attribute(const std::string& dom, const std::string& name) {
  const std::size_t body = dom.find("<body");
  const std::size_t at = dom.find(name + "=\"", body);
  if (body == std::string::npos || at == std::string::npos) return "(missing)";
  const std::size_t start = at + name.size() + 2;
  return dom.substr(start, dom.find('"', start) - start);
}

// The body's data-plotted attribute: what each chart drew, read back off its axes in the browser.
nlohmann::json plotted(const std::string& dom) {
  std::string text = body_attribute(dom, "data-plotted");
  for (const auto& [entity, ch] : {std::pair<std::string, std::string>{"&quot;", "\""}, {"&amp;", "&"}}) {
    for (std::size_t at = text.find(entity); at != std::string::npos; at = text.find(entity, at + ch.size())) text.replace(at, entity.size(), ch);
  }
  return nlohmann::json::parse(text);
}

const nlohmann::json& dataset(const nlohmann::json& chart, const std::string& label) {
  for (const nlohmann::json& d : chart) {
    if (d.at("label") == label) return d.at("values");
  }
  static const nlohmann::json none = nlohmann::json::array();
  ADD_FAILURE() << "no dataset " << label << " in " << chart.dump();
  return none;
}

TEST(HtmlReport, SpotPlanDrawsEveryChartWithoutScriptErrors) {
  const fs::path dir = test::scratch_dir("html-report");
  const fs::path html = dir / "plan.html";
  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-weekend.json";
  const test::CliResult r = test::run_preflight("plan " + scenario + " --format html --trials 2000 --out " + html.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const test::CliResult j = test::run_preflight("plan " + scenario + " --format json --trials 2000");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json plan = nlohmann::json::parse(j.out);
  ASSERT_NE(plan.at("best").at("cost").at("pricing"), "on_demand") << "the scenario's winner should run on spot";
  const std::string text = test::read_text(html);
  EXPECT_EQ(text.find("src=\"http"), std::string::npos) << "the report must not load anything from the network";
  EXPECT_NE(text.find("Chart.js v3.9.1"), std::string::npos);
  EXPECT_NE(text.find("Permission is hereby granted"), std::string::npos) << "Chart.js's licence is kept";
  const Rendered page = render(html, dir);
  // Frontier, memory, step timeline, VRAM over the step, sensitivity, spot completion times.
  EXPECT_EQ(body_attribute(page.dom, "data-charts"), "6");
  EXPECT_EQ(body_attribute(page.dom, "data-errors"), "");
  EXPECT_EQ(page.log.find(":CONSOLE("), std::string::npos) << page.log;
  // Each reference line of the memory chart sits at its own value (they used to stack: the 80 GiB
  // capacity drawn at ~152 GiB), the stacked bars top out at the sum of components, and the
  // sensitivity bars end at the dearest end of each assumption.
  const nlohmann::json drawn = plotted(page.dom);
  std::vector<nlohmann::json> entries{plan.at("best")};
  for (const nlohmann::json& e : plan.at("alternatives")) entries.push_back(e);
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const nlohmann::json& memory = drawn.at("memory");
  ASSERT_EQ(dataset(memory, "capacity").size(), entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const nlohmann::json& m = entries[i].at("memory");
    EXPECT_NEAR(dataset(memory, "capacity")[i].get<double>(), m.at("capacity_bytes").get<double>() / gib, 0.02) << i;
    EXPECT_NEAR(dataset(memory, "usable (capacity less headroom)")[i].get<double>(), m.at("usable_bytes").get<double>() / gib, 0.02) << i;
    // The chart holds the device's peak (what must fit) against the capacity.
    EXPECT_NEAR(dataset(memory, "simulated peak (timeline)")[i].get<double>(), m.at("device_bytes").get<double>() / gib, 0.02) << i;
    EXPECT_NEAR(dataset(memory, "overhead")[i].get<double>(), m.at("sum_of_components_bytes").get<double>() / gib, 0.02) << i;
  }
  const nlohmann::json& ranges = dataset(drawn.at("sensitivity"), "mean cost from the optimistic to the pessimistic end (USD)");
  ASSERT_EQ(ranges.size(), plan.at("sensitivity").size());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const nlohmann::json& usd = plan.at("sensitivity")[i].at("usd_mean");
    const double top = std::max(usd[0].get<double>(), usd[1].get<double>());
    EXPECT_NEAR(ranges[i].get<double>(), top, 0.01 * top) << plan.at("sensitivity")[i].dump();
  }
  fs::remove_all(dir);
}

TEST(HtmlReport, ScenarioStringsAreEscaped) {
  const fs::path dir = test::scratch_dir("html-escape");
  nlohmann::json s = nlohmann::json::parse(test::read_text(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-rtx4090.json"));
  s["name"] = "<img src=x onerror=\"document.body.dataset.errors='injected'\"></script><script>document.body.dataset.errors='injected'</script>";
  test::write_text(dir / "s.json", s.dump());
  const fs::path html = dir / "plan.html";
  const test::CliResult r = test::run_preflight("plan " + (dir / "s.json").string() + " --format html --out " + html.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = test::read_text(html);
  EXPECT_EQ(text.find("<img src=x"), std::string::npos);
  EXPECT_NE(text.find("&lt;img src=x"), std::string::npos);
  const Rendered page = render(html, dir);
  EXPECT_EQ(body_attribute(page.dom, "data-errors"), "");
  EXPECT_EQ(body_attribute(page.dom, "data-charts"), "5");  // on-demand (owned) hardware: no completion chart
  fs::remove_all(dir);
}

}  // namespace
}  // namespace preflight
