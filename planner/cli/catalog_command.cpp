// `preflight catalog`: the GPUs, instances or models of the catalog.

#include <memory>
#include <ostream>

#include "planner/cli/common_options.hpp"
#include "planner/io/output_file.hpp"
#include "planner/catalog/catalog_providers.hpp"
#include "planner/report/catalog_report.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::cli {

namespace {

struct CatalogOptions {
  std::string what;  // gpus | instances | models
  OutputOptions output;
  std::string catalog;
  InstanceFilter filter;
  double max_usd_per_hour = 0.0;
};

int run_catalog(const CatalogOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  InstanceFilter filter = options.filter;
  if (options.max_usd_per_hour > 0.0) filter.max_usd_per_hour = options.max_usd_per_hour;
  if (!filter.gpu.empty() && catalog.find_gpu(filter.gpu) == nullptr) {
    throw InputError("--gpu", "", "\"" + filter.gpu + "\"", "a GPU id from the catalog: " + catalog.gpu_ids_text());
  }
  if (!filter.provider.empty() && !has_provider(catalog, filter.provider)) {
    throw InputError("--provider", "", "\"" + filter.provider + "\"", "a provider of the catalog: " + catalog_providers_text(catalog));
  }
  io::write_output(options.output.out, catalog_report(catalog, options.what, options.output.format == "json", err, filter), out);
  return 0;
}

}  // namespace

Command add_catalog_command(CLI::App& app, GlobalOptions&) {
  auto o = std::make_shared<CatalogOptions>();
  CLI::App* c = app.add_subcommand("catalog", "List the GPUs, instances or models in the catalog");
  c->add_option("what", o->what, "gpus, instances or models")->required()->check(CLI::IsMember({"gpus", "instances", "models"}));
  add_output_options(*c, o->output, {"table", "json"});
  c->add_option("--gpu", o->filter.gpu, "instances: only those with this GPU id");
  c->add_option("--provider", o->filter.provider, "instances: only this provider's (aws, gcp, lambda, ...)");
  c->add_option("--region", o->filter.region, "instances: only those quoted in this region");
  c->add_option("--pricing", o->filter.pricing, "instances: only those with a quote of this kind")->check(CLI::IsMember({"on_demand", "spot"}));
  c->add_option("--max-usd-per-hour", o->max_usd_per_hour, "instances: only those whose cheapest matching quote per node-hour is at most this")
      ->check(CLI::PositiveNumber);
  add_catalog_option(*c, o->catalog);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_catalog(*o, out, err); }};
}

}  // namespace preflight::cli
