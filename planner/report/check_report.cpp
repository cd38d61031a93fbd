#include "planner/report/check_report.hpp"

#include <sstream>

#include "planner/report/model_summary.hpp"
#include "planner/report/result_json.hpp"
#include "simulator/model/stack_habits.hpp"
#include "planner/text/candidate_text.hpp"
#include "planner/text/fit_text.hpp"
#include "planner/text/job_text.hpp"
#include "planner/text/step_text.hpp"
#include "planner/text/number_text.hpp"
#include "planner/text/text_table.hpp"

namespace preflight {

namespace {

std::string config_summary(const StrategyConfig& c) {
  const std::string layout = layout_text(c.parallelism);
  std::string s = to_string(c.framework) + ", " + (layout.empty() ? "" : layout + ", ") + to_string(c.sharding);
  if (c.offload.optimizer != OffloadTarget::none) s += ", optimizer->" + to_string(c.offload.optimizer);
  if (c.offload.params != OffloadTarget::none) s += ", params->" + to_string(c.offload.params);
  if (c.offload.activations != OffloadTarget::none) s += ", activations->" + to_string(c.offload.activations);
  s += ", checkpointing " + to_string(c.recompute);
  s += ", micro-batch " + std::to_string(c.micro_batch) + " x accum " + std::to_string(c.grad_accum);
  return s;
}

std::string step_change(const Evaluation& given, const Evaluation& e) {
  if (!given.step || !e.step) return "n/a";
  return percent(e.step->seconds() / given.step->seconds() - 1.0);
}

void breakdown_table(std::ostringstream& out, const Evaluation& e) {
  const MemoryEstimate& m = e.memory;
  const MemoryBreakdown& g = m.gpu;
  TextTable t({"per GPU", "size"}, {TextTable::Align::left, TextTable::Align::right});
  const std::pair<const char*, double> rows[] = {
      {"parameters", g.params},
      {"reference model (frozen weights)", g.reference_params},
      {"gathered parameters (ZeRO-3/FSDP units)", g.gathered_params},
      {"gradients", g.grads},
      {"gradient buffers (unreduced, fp32 partition)", g.grad_buffers},
      {"optimizer states", g.optimizer},
      {"activations", g.activations},
      {"logits and loss", g.logits},
      {"communication buffers", g.comm_buffers},
      {"CUDA context", g.cuda_context},
      {"cuBLAS workspace", g.workspace},
      {"allocator fragmentation", g.fragmentation}};
  for (const auto& [name, value] : rows) {
    if (value > 0.0) t.add_row({name, gib(value)});
  }
  t.add_row({"sum of components", gib(g.total())});
  if (e.peak_from_timeline) {
    t.add_row({"peak of the simulated step (at " + fixed(e.peak_seconds, 2) + " s)", gib(m.peak_bytes)});
  }
  t.add_row({"  of it reserved by PyTorch's allocator", gib(m.reserved_bytes())});
  t.add_row({"  of it allocated to tensors", gib(m.allocated_bytes())});
  out << t.render("  ");
  const double headroom = 1.0 - m.usable_bytes / m.capacity_bytes;
  out << "  capacity " << gib(m.capacity_bytes) << ", usable " << gib(m.usable_bytes) << " with "
      << fixed(headroom * 100.0, 0) << "% headroom: ";
  if (m.fits_gpu()) {
    out << gib(m.usable_bytes - m.peak_bytes) << " to spare\n";
  } else {
    out << "short by " << gib(m.peak_bytes - m.usable_bytes) << "\n";
  }
  if (m.offloaded_activation_bytes > 0.0) {
    out << "  activations offloaded: " << gib(m.offloaded_activation_bytes) << " wait in pinned host memory at the peak; "
        << "each layer's go out over PCIe as its forward ends and come back before its backward\n";
  }
  if (m.paged_out_bytes > 0.0) {
    out << "  paged optimizer: " << gib(m.paged_out_bytes) << " of its states wait on the host; each step moves them in "
        << "for the optimizer and out again over PCIe\n";
  }
  out << "  host memory per node " << gib(m.host_bytes_per_node) << " of " << gib(m.host_capacity_bytes)
      << (m.fits_host() ? "" : "  (DOES NOT FIT)") << "\n";
  if (m.nvme_bytes_per_node > 0.0) {
    out << "  NVMe per node " << fixed(m.nvme_bytes_per_node / 1e9, 1) << " GB of "
        << fixed(m.nvme_capacity_bytes / 1e9, 1) << " GB" << (m.fits_nvme() ? "" : "  (DOES NOT FIT)") << "\n";
  }
}

}  // namespace

std::string check_text(const CheckOutcome& o) {
  const Scenario& s = o.scenario;
  const StrategyConfig& c = o.given.config;
  std::ostringstream out;
  out << "preflight check: " << s.name << "\n";
  const std::vector<std::string> model = model_lines(s);
  for (std::size_t i = 0; i < model.size(); ++i) out << (i == 0 ? "  model    " : "           ") << model[i] << "\n";
  out << "  job      " << method_text(s.training()) << ", " << to_string(s.training().precision) << ", "
      << to_string(s.training().optimizer) << (s.training().master_weights ? "" : " without fp32 master weights")
      << (s.training().optimizer_in_backward ? " stepped in backward" : "") << ", seq " << s.training().seq_len << ", global batch "
      << examples_text(s.training(), s.training().global_batch_sequences) << "\n";
  out << "  machine  " << c.nodes << " x " << o.node.id << " (" << o.node.gpus_per_node << " x " << o.node.gpu.id
      << " " << gib(o.node.gpu.memory_bytes) << ")\n";
  out << "  config   " << config_summary(c) << "\n";
  out << "  kernels  attention " << to_string(o.given.stack.attention) << " (" << o.given.stack.attention_reason << ")"
      << (o.given.stack.fused_elementwise ? ", fused element-wise kernels" : ", eager element-wise kernels") << "\n";
  if (const std::string upcast = upcast_text(kbit_upcast(s.training(), c)); !upcast.empty()) out << "           " << upcast << "\n";
  out << "\n";
  breakdown_table(out, o.given);
  if (o.given.step) {
    out << "  step time (simulated) " << fixed(o.given.step->seconds(), 2) << " s: " << step_parts_text(*o.given.step) << "\n";
    if (const std::string interval = step_interval_text(o.given.step->seconds(), o.given.step_interval, 2); !interval.empty()) {
      out << "  " << interval << "\n";
    }
  } else {
    out << "  step time unavailable: " << o.given.step_unavailable << "\n";
  }
  if (o.longest) out << "  " << longest_text(o.longest->tokens, o.longest->model_limit, o.longest->granule, s.training().seq_len) << "\n";
  out << "\n";
  if (o.given.memory.fits()) {
    out << "FITS\n";
    return out.str();
  }
  out << "DOES NOT FIT\n\nremedy ladder (stops at the first rung that fits):\n";
  TextTable t({"rung", "change", "peak", "fits", "step time"},
              {TextTable::Align::left, TextTable::Align::left, TextTable::Align::right, TextTable::Align::left,
               TextTable::Align::right});
  for (const LadderRung& r : o.ladder.rungs) {
    const std::string change = r.action + " [micro-batch " + std::to_string(r.result.config.micro_batch) + "]";
    std::string fits = r.fits ? "yes" : (r.result.memory.fits_gpu() ? "no (host memory)" : "no");
    t.add_row({std::to_string(r.rung), change, gib(r.result.memory.peak_bytes), fits, step_change(o.given, r.result)});
  }
  out << t.render("  ");
  for (const std::string& skipped : o.ladder.skipped) out << "  skipped " << skipped << "\n";
  if (o.ladder.remedy) {
    out << "\nremedy: " << config_summary(*o.ladder.remedy) << "\nconfig for `preflight simulate --config`:\n"
        << config_json(*o.ladder.remedy).dump(2) << "\n";
  } else {
    out << "\n" << o.ladder.beyond << "\n";
  }
  return out.str();
}

nlohmann::ordered_json check_json(const CheckOutcome& o) {
  nlohmann::ordered_json j;
  j["scenario"] = o.scenario.name;
  j["model"] = model_json(o.scenario);
  j["config"] = config_json(o.given.config);
  j["memory"] = memory_json(o.given.memory, o.given.peak_from_timeline);
  j["step"] = o.given.step ? step_json(o.given, o.node, o.scenario.training()) : nlohmann::ordered_json(nullptr);
  j["fits"] = o.given.memory.fits();
  if (o.longest) {
    j["longest_seq_len"] = {{"tokens", o.longest->tokens}, {"model_limit", o.longest->model_limit}, {"granule", o.longest->granule}};
  } else {
    j["longest_seq_len"] = nullptr;
  }
  nlohmann::ordered_json ladder = nlohmann::ordered_json::array();
  for (const LadderRung& r : o.ladder.rungs) {
    nlohmann::ordered_json rung;
    rung["rung"] = r.rung;
    rung["action"] = r.action;
    rung["config"] = config_json(r.result.config);
    rung["memory"] = memory_json(r.result.memory, r.result.peak_from_timeline);
    if (r.result.step && o.given.step) {
      rung["step"] = step_json(r.result, o.node, o.scenario.training());
      rung["step_time_change"] = rounded(r.result.step->seconds() / o.given.step->seconds() - 1.0, 4);
    }
    rung["fits"] = r.fits;
    ladder.push_back(rung);
  }
  j["ladder"] = ladder;
  j["ladder_skipped"] = o.ladder.skipped;
  j["remedy"] = o.ladder.remedy ? config_json(*o.ladder.remedy) : nlohmann::ordered_json(nullptr);
  if (!o.given.memory.fits() && !o.ladder.remedy) j["beyond"] = o.ladder.beyond;
  return j;
}

}  // namespace preflight
