#include "planner/io/calibration_profile_io.hpp"

#include <fstream>
#include <sstream>

#include "planner/io/json_reader.hpp"
#include "simulator/core/errors.hpp"

namespace preflight::io {

namespace {

CollectiveOp parse_op(const std::string& s) {
  if (s == "all_gather") return CollectiveOp::all_gather;
  if (s == "reduce_scatter") return CollectiveOp::reduce_scatter;
  if (s == "broadcast") return CollectiveOp::broadcast;
  return CollectiveOp::all_reduce;
}

CollectiveTable read_table(const nlohmann::json& j, const std::string& file, const std::string& path) {
  ObjectReader r(j, file, path);
  CollectiveTable t;
  t.op = parse_op(r.choice("op", {"all_reduce", "all_gather", "reduce_scatter", "broadcast"}));
  t.ranks = static_cast<int>(r.integer("ranks", 2, 100000));
  const nlohmann::json& points = r.raw("points");
  if (!points.is_array() || points.empty()) r.fail("points", "a non-empty list of [bytes, seconds] pairs");
  double previous = 0.0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = r.path_of("points") + "[" + std::to_string(i) + "]";
    const nlohmann::json& p = points[i];
    if (!p.is_array() || p.size() != 2) throw InputError(file, at, describe(p), "a [bytes, seconds] pair");
    const double bytes = checked_number(p[0], {0.0, 1e15, true, "bytes"}, file, at + "[0]");
    const double seconds = checked_number(p[1], {0.0, 1e5, true, "seconds"}, file, at + "[1]");
    if (bytes <= previous) throw InputError(file, at + "[0]", describe(p[0]), "sizes in increasing order");
    previous = bytes;
    t.points.emplace_back(bytes, seconds);
  }
  r.finish();
  return t;
}

}  // namespace

CalibrationProfile parse_calibration_profile(const nlohmann::json& json, const std::string& file) {
  ObjectReader r(json, file, "$");
  const std::int64_t version = r.integer("schema_version", 1, 1000);
  if (version != CalibrationProfile::kSchemaVersion) {
    r.fail("schema_version", std::to_string(CalibrationProfile::kSchemaVersion) + " (this preflight's profile schema)");
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
    if (*end_size != '\0' || *end_time != '\0' || bytes <= 0.0 || ns <= 0.0) {
      throw InputError(file.string(), "line " + std::to_string(number), "\"" + line.substr(0, 60) + "\"",
                       "size(B),count,type,time(ns),busbw(GB/s),...");
    }
    t.points.emplace_back(bytes, ns * 1e-9);
  }
  if (t.points.empty()) throw InputError(file.string(), "", "no measurements", "nccl-tests rows");
  return t;
}

}  // namespace preflight::io
