// `plan --format html` rendered in headless Chromium (Debian's package, installed by scripts/test.sh):
// every chart is drawn, no script error is raised, and strings from the scenario cannot inject markup.

#include <gtest/gtest.h>

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

TEST(HtmlReport, SpotPlanDrawsEveryChartWithoutScriptErrors) {
  const fs::path dir = test::scratch_dir("html-report");
  const fs::path html = dir / "plan.html";
  const test::CliResult r = test::run_preflight("plan " + std::string(PREFLIGHT_SOURCE_DIR) +
                                                "/scenarios/llama3.1-70b-pretrain-spot-p5.json --format html --trials 2000 --out " +
                                                html.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = test::read_text(html);
  EXPECT_EQ(text.find("src=\"http"), std::string::npos) << "the report must not load anything from the network";
  EXPECT_NE(text.find("Chart.js v3.9.1"), std::string::npos);
  EXPECT_NE(text.find("Permission is hereby granted"), std::string::npos) << "Chart.js's licence is kept";
  const Rendered page = render(html, dir);
  // Frontier, memory, step timeline, VRAM over the step, spot completion times.
  EXPECT_EQ(body_attribute(page.dom, "data-charts"), "5");
  EXPECT_EQ(body_attribute(page.dom, "data-errors"), "");
  EXPECT_EQ(page.log.find(":CONSOLE("), std::string::npos) << page.log;
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
  EXPECT_EQ(body_attribute(page.dom, "data-charts"), "4");  // on-demand (owned) hardware: no completion chart
  fs::remove_all(dir);
}

}  // namespace
}  // namespace preflight
