#include "planner/io/calibration_profile_io.hpp"

#include <fstream>
#include <sstream>

#include "planner/io/json_reader.hpp"
#include "simulator/hardware/matmul_rates.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::io {

namespace {

CollectiveTable read_table(const nlohmann::json& j, const std::string& file, const std::string& path) {
  ObjectReader r(j, file, path);
  CollectiveTable t;
  t.op = r.enum_value("op", kCollectiveOpNames);
  t.ranks = static_cast<int>(r.integer("ranks", 2, 100000));
  const nlohmann::json& points = r.raw("points");
  if (!points.is_array() || points.empty()) r.fail("points", "a non-empty list of [bytes, seconds] pairs");
  double previous = 0.0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = r.path_of("points") + "[" + std::to_string(i) + "]";
    const nlohmann::json& p = points[i];
    if (!p.is_array() || p.size() != 2) throw InputError(file, at, describe(p), "a [bytes, seconds] pair");
    const double bytes = checked_number(p[0], {1.0, 1e15, false, "bytes"}, file, at + "[0]");
    const double seconds = checked_number(p[1], {1e-9, 1e5, false, "seconds"}, file, at + "[1]");
    if (bytes <= previous) throw InputError(file, at + "[0]", describe(p[0]), "sizes in increasing order");
    previous = bytes;
    t.points.emplace_back(bytes, seconds);
  }
  r.finish();
  return t;
}

constexpr double kG = 1e9;
constexpr NumberRule kGBps{1e-3, 1e6, false, "GB/s"};

std::optional<double> optional_rate(ObjectReader& r, std::string_view key, const NumberRule& rule, double scale) {
  const std::optional<double> v = r.optional_number(key, rule);
  return v ? std::optional<double>(*v * scale) : std::nullopt;
}

void read_matmul(ObjectReader& r, CalibrationProfile& p) {
  const nlohmann::json& list = r.raw("matmul");
  if (!list.is_array()) r.fail("matmul", "a list of {dtype, m, n, k, tflops} measurements");
  for (std::size_t i = 0; i < list.size(); ++i) {
    ObjectReader m(list[i], r.file(), "$.matmul[" + std::to_string(i) + "]");
    MatmulMeasurement x;
    x.dtype = m.choice("dtype", {"fp32", "tf32", "bf16", "fp16", "fp8"});
    x.m = m.integer("m", 1, 1 << 24);
    x.n = m.integer("n", 1, 1 << 24);
    x.k = m.integer("k", 1, 1 << 24);
    x.flops_per_second = m.number("tflops", {1e-3, 1e5, false, "TFLOP/s"}) * 1e12;
    m.finish();
    p.matmul.push_back(x);
  }
  for (const char* dtype : {"fp32", "tf32", "bf16", "fp16", "fp8"}) {
    try {
      MatmulRates::from(p.matmul, dtype);
    } catch (const InvalidConfig& e) {
      r.fail("matmul", std::string("a full grid of m x n x k per dtype (") + e.what() + ")");
    }
  }
}

void read_gpu_bandwidths(ObjectReader& r, CalibrationProfile& p) {
  if (std::optional<ObjectReader> d = r.optional_object("device_memory")) {
    p.device_memory.copy_bytes_per_second = optional_rate(*d, "copy_GBps", kGBps, kG);
    p.device_memory.triad_bytes_per_second = optional_rate(*d, "triad_GBps", kGBps, kG);
    d->finish();
  }
  if (std::optional<ObjectReader> h = r.optional_object("host_device")) {
    p.host_device.h2d_pinned_bytes_per_second = optional_rate(*h, "h2d_pinned_GBps", kGBps, kG);
    p.host_device.d2h_pinned_bytes_per_second = optional_rate(*h, "d2h_pinned_GBps", kGBps, kG);
    p.host_device.h2d_pageable_bytes_per_second = optional_rate(*h, "h2d_pageable_GBps", kGBps, kG);
    p.host_device.d2h_pageable_bytes_per_second = optional_rate(*h, "d2h_pageable_GBps", kGBps, kG);
    h->finish();
  }
}

void read_host(ObjectReader& r, CalibrationProfile& p) {
  std::optional<ObjectReader> h = r.optional_object("host");
  if (!h) return;
  p.host.threads = static_cast<int>(h->integer("threads", 1, 1 << 20));
  p.host.checkpoint_write_bytes_per_second = optional_rate(*h, "checkpoint_write_GBps", kGBps, kG);
  p.host.checkpoint_read_bytes_per_second = optional_rate(*h, "checkpoint_read_GBps", kGBps, kG);
  p.host.cpu_adam_params_per_second = optional_rate(*h, "cpu_adam_Mparams_per_s", {1e-3, 1e9, false, "million parameters/s"}, 1e6);
  p.host.memory_bytes_per_second = optional_rate(*h, "memory_GBps", kGBps, kG);
  h->finish();
}

void put(nlohmann::ordered_json& j, const char* key, const std::optional<double>& v, double scale) {
  if (v) j[key] = *v / scale;
}

void read_framework(ObjectReader& r, CalibrationProfile& p) {
  std::optional<ObjectReader> f = r.optional_object("framework");
  if (!f) return;
  const NumberRule us{0.0, 1e7, true, "microseconds"};
  // Seconds inside, microseconds in the file: divided (not multiplied by 1e-6) so they write back exactly.
  const auto seconds = [&](const char* key) { return f->number(key, us) / 1e6; };
  FrameworkMeasurement m;
  m.name = f->string("name");
  m.version = f->string("version");
  m.device = f->optional_string("device").value_or("");
  m.layer_forward_seconds = seconds("layer_forward_us");
  m.layer_forward_no_grad_seconds = seconds("layer_forward_no_grad_us");
  m.layer_backward_seconds = seconds("layer_backward_us");
  m.layer_backward_with_recompute_seconds = seconds("layer_backward_with_recompute_us");
  m.head_forward_seconds = seconds("head_forward_us");
  m.head_backward_seconds = seconds("head_backward_us");
  m.source = f->string("source");
  if (m.layer_backward_with_recompute_seconds < m.layer_backward_seconds) {
    f->fail("layer_backward_with_recompute_us", "at least layer_backward_us (the recompute adds a forward)");
  }
  f->finish();
  p.framework = m;
}

void read_step_model(ObjectReader& r, CalibrationProfile& p) {
  std::optional<ObjectReader> s = r.optional_object("step_model");
  if (!s) return;
  // The fitter's own ranges (planner/trial/trial_fit.hpp).
  TrialStepModel m;
  m.framework = s->enum_value("framework", kFrameworkNames);
  m.kernel_efficiency = s->number("kernel_efficiency", {0.3, 1.5, false, "(a factor on the published kernel rates)"});
  m.host_time = s->number("host_time", {0.25, 8.0, false, "(a factor on the host figures)"});
  const nlohmann::json& interval = s->raw("interval");
  const std::string at = s->path() + ".interval";
  if (!interval.is_array() || interval.size() != 2) throw InputError(s->file(), at, describe(interval), "[low, high] multipliers of the step time");
  m.interval.low = checked_number(interval[0], {0.1, 1.0, false, "(low multiplier)"}, s->file(), at + "[0]");
  m.interval.high = checked_number(interval[1], {1.0, 10.0, false, "(high multiplier)"}, s->file(), at + "[1]");
  m.interval.rows = m.interval.high > m.interval.low ? 1 : 0;
  m.source = s->string("source");
  s->finish();
  p.step_model = m;
}

}  // namespace

CalibrationProfile parse_calibration_profile(const nlohmann::json& json, const std::string& file) {
  ObjectReader r(json, file, "$");
  const std::int64_t version = r.integer("schema_version", 1, 1000);
  if (version != 1 && version != CalibrationProfile::kSchemaVersion) {
    r.fail("schema_version", "1 or " + std::to_string(CalibrationProfile::kSchemaVersion) + " (the profile schemas this preflight reads)");
  }
  CalibrationProfile p;
  ObjectReader m = r.object("machine");
  p.machine.gpu = m.string("gpu");
  p.machine.gpu_count = static_cast<int>(m.integer("gpu_count", 0, 100000));
  p.machine.driver = m.optional_string("driver").value_or("");
  p.machine.cuda = m.optional_string("cuda").value_or("");
  p.machine.nccl = m.optional_string("nccl").value_or("");
  p.machine.host_cpu = m.optional_string("host_cpu").value_or("");
  m.finish();
  p.measured_at = r.string("measured_at");
  p.source = r.string("source");
  if (version >= 2) {
    if (r.has("matmul")) read_matmul(r, p);
    read_gpu_bandwidths(r, p);
    read_host(r, p);
    read_framework(r, p);
    read_step_model(r, p);
  }
  if (r.has("collectives")) {
    const nlohmann::json& list = r.raw("collectives");
    if (!list.is_array()) r.fail("collectives", "a list of measured collective tables");
    for (std::size_t i = 0; i < list.size(); ++i) {
      p.collectives.push_back(read_table(list[i], file, "$.collectives[" + std::to_string(i) + "]"));
    }
  }
  r.finish();
  return p;
}

CalibrationProfile read_calibration_profile(const std::filesystem::path& file) {
  return parse_calibration_profile(parse_file(file), file.string());
}

nlohmann::ordered_json calibration_profile_json(const CalibrationProfile& p) {
  nlohmann::ordered_json j;
  j["schema_version"] = CalibrationProfile::kSchemaVersion;
  nlohmann::ordered_json machine = {{"gpu", p.machine.gpu}, {"gpu_count", p.machine.gpu_count}};
  if (!p.machine.driver.empty()) machine["driver"] = p.machine.driver;
  if (!p.machine.cuda.empty()) machine["cuda"] = p.machine.cuda;
  if (!p.machine.nccl.empty()) machine["nccl"] = p.machine.nccl;
  if (!p.machine.host_cpu.empty()) machine["host_cpu"] = p.machine.host_cpu;
  j["machine"] = machine;
  j["measured_at"] = p.measured_at;
  j["source"] = p.source;
  if (!p.matmul.empty()) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const MatmulMeasurement& m : p.matmul) {
      list.push_back({{"dtype", m.dtype}, {"m", m.m}, {"n", m.n}, {"k", m.k}, {"tflops", m.flops_per_second / 1e12}});
    }
    j["matmul"] = list;
  }
  nlohmann::ordered_json device = nlohmann::ordered_json::object(), link = nlohmann::ordered_json::object(),
                         host = nlohmann::ordered_json::object();
  put(device, "copy_GBps", p.device_memory.copy_bytes_per_second, kG);
  put(device, "triad_GBps", p.device_memory.triad_bytes_per_second, kG);
  put(link, "h2d_pinned_GBps", p.host_device.h2d_pinned_bytes_per_second, kG);
  put(link, "d2h_pinned_GBps", p.host_device.d2h_pinned_bytes_per_second, kG);
  put(link, "h2d_pageable_GBps", p.host_device.h2d_pageable_bytes_per_second, kG);
  put(link, "d2h_pageable_GBps", p.host_device.d2h_pageable_bytes_per_second, kG);
  if (!device.empty()) j["device_memory"] = device;
  if (!link.empty()) j["host_device"] = link;
  if (p.host.threads > 0) {
    host["threads"] = p.host.threads;
    put(host, "checkpoint_write_GBps", p.host.checkpoint_write_bytes_per_second, kG);
    put(host, "checkpoint_read_GBps", p.host.checkpoint_read_bytes_per_second, kG);
    put(host, "cpu_adam_Mparams_per_s", p.host.cpu_adam_params_per_second, 1e6);
    put(host, "memory_GBps", p.host.memory_bytes_per_second, kG);
    j["host"] = host;
  }
  if (p.framework) {
    const FrameworkMeasurement& f = *p.framework;
    j["framework"] = {{"name", f.name},
                      {"version", f.version},
                      {"device", f.device},
                      {"layer_forward_us", f.layer_forward_seconds * 1e6},
                      {"layer_forward_no_grad_us", f.layer_forward_no_grad_seconds * 1e6},
                      {"layer_backward_us", f.layer_backward_seconds * 1e6},
                      {"layer_backward_with_recompute_us", f.layer_backward_with_recompute_seconds * 1e6},
                      {"head_forward_us", f.head_forward_seconds * 1e6},
                      {"head_backward_us", f.head_backward_seconds * 1e6},
                      {"source", f.source}};
  }
  if (p.step_model) {
    const TrialStepModel& m = *p.step_model;
    j["step_model"] = {{"framework", to_string(m.framework)},
                       {"kernel_efficiency", m.kernel_efficiency},
                       {"host_time", m.host_time},
                       {"interval", {m.interval.low, m.interval.high}},
                       {"source", m.source}};
  }
  nlohmann::ordered_json tables = nlohmann::ordered_json::array();
  for (const CollectiveTable& t : p.collectives) {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const auto& [bytes, seconds] : t.points) points.push_back({bytes, seconds});
    tables.push_back({{"op", to_string(t.op)}, {"ranks", t.ranks}, {"points", points}});
  }
  j["collectives"] = tables;
  return j;
}

CollectiveTable read_nccl_tests_csv(const std::filesystem::path& file, CollectiveOp op, int ranks) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string(), "", "a file that cannot be read", "an nccl-tests CSV file");
  CollectiveTable t;
  t.op = op;
  t.ranks = ranks;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || !std::isdigit(static_cast<unsigned char>(line.front()))) continue;  // header
    std::stringstream ss(line);
    std::string size, count, type, time_ns;
    std::getline(ss, size, ',');
    std::getline(ss, count, ',');
    std::getline(ss, type, ',');
    std::getline(ss, time_ns, ',');
    char* end_size = nullptr;
    char* end_time = nullptr;
    const double bytes = std::strtod(size.c_str(), &end_size);
    const double ns = std::strtod(time_ns.c_str(), &end_time);
    // The ranges a profile's tables keep (read_table): strtod also reads "nan", "inf" and 1e800.
    if (*end_size != '\0' || *end_time != '\0' || !(bytes >= 1.0 && bytes <= 1e15) || !(ns >= 1.0 && ns <= 1e14)) {
      throw InputError(file.string(), "line " + std::to_string(number), "\"" + line.substr(0, 60) + "\"",
                       "size(B),count,type,time(ns),busbw(GB/s),... with a size from 1 to 1e15 bytes and a time "
                       "from 1 to 1e14 ns");
    }
    if (!t.points.empty() && bytes <= t.points.back().first) {
      throw InputError(file.string(), "line " + std::to_string(number), "\"" + line.substr(0, 60) + "\"",
                       "rows in increasing size, as nccl-tests writes them");
    }
    t.points.emplace_back(bytes, ns * 1e-9);
  }
  if (t.points.empty()) throw InputError(file.string(), "", "no measurements", "nccl-tests rows");
  return t;
}

}  // namespace preflight::io
