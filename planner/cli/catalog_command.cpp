// `preflight catalog`: the GPUs, instances or models of the catalog.

#include <memory>
#include <ostream>

#include "planner/cli/common_options.hpp"
#include "planner/io/output_file.hpp"
#include "planner/report/catalog_report.hpp"

namespace preflight::cli {

namespace {

struct CatalogOptions {
  std::string what;  // gpus | instances | models
  OutputOptions output;
  std::string catalog;
};

int run_catalog(const CatalogOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  io::write_output(options.output.out, catalog_report(catalog, options.what, options.output.format == "json", err), out);
  return 0;
}

}  // namespace

Command add_catalog_command(CLI::App& app, GlobalOptions&) {
  auto o = std::make_shared<CatalogOptions>();
  CLI::App* c = app.add_subcommand("catalog", "List the GPUs, instances or models in the catalog");
  c->add_option("what", o->what, "gpus, instances or models")->required()->check(CLI::IsMember({"gpus", "instances", "models"}));
  add_output_options(*c, o->output, {"table", "json"});
  add_catalog_option(*c, o->catalog);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_catalog(*o, out, err); }};
}

}  // namespace preflight::cli
