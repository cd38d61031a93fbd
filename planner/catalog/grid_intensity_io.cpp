#include "planner/catalog/grid_intensity_io.hpp"

#include "planner/io/json_reader.hpp"

namespace preflight {

namespace {

using io::ObjectReader;

// From the cleanest grid on record (~10 g/kWh: hydro and nuclear) to lignite's ~1,200.
const io::NumberRule kIntensity{1.0, 2000.0, false, "g CO2e per kWh"};
const io::NumberRule kPue{1.0, 3.0, false, ""};
const io::NumberRule kYear{1990.0, 2100.0, false, ""};

template <class Body>
void each(ObjectReader& top, const std::string& file, std::string_view key, const std::string& what, Body body) {
  const nlohmann::json& list = top.raw(key);
  if (!list.is_array()) top.fail(key, what);
  for (std::size_t i = 0; i < list.size(); ++i) {
    ObjectReader r(list[i], file, top.path_of(key) + "[" + std::to_string(i) + "]");
    body(r);
    r.finish();
  }
}

}  // namespace

EnergySites read_energy_sites(const std::filesystem::path& file) {
  const nlohmann::json doc = io::parse_file(file);
  const std::string name = file.string();
  ObjectReader top(doc, name, "$");
  top.string("source");
  top.string("as_of");
  EnergySites sites;
  ObjectReader world = top.object("world_average");
  sites.world_average.gco2e_per_kwh = world.number("gco2e_per_kwh", kIntensity);
  sites.world_average.source = world.string("source");
  world.optional_number("year", kYear);
  world.finish();
  each(top, name, "pue", "a list of {provider, pue, source}", [&](ObjectReader& r) {
    const std::string provider = r.string("provider");
    PueFigure f{r.number("pue", kPue), r.string("source")};
    if (!sites.pue_by_provider.emplace(provider, std::move(f)).second) r.fail("provider", "a provider listed once");
  });
  each(top, name, "regions", "a list of {provider, region, gco2e_per_kwh, source, year}", [&](ObjectReader& r) {
    std::string provider = r.string("provider");
    std::string region = r.string("region");
    GridFigure g{r.number("gco2e_per_kwh", kIntensity), r.string("source")};
    r.optional_number("year", kYear);
    if (!sites.grid_by_region.emplace(std::pair{std::move(provider), std::move(region)}, std::move(g)).second) {
      r.fail("region", "a (provider, region) pair listed once");
    }
  });
  top.finish();
  return sites;
}

}  // namespace preflight
