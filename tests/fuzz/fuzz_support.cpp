#include "fuzz_support.hpp"

#include <cctype>
#include <cxxabi.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <typeinfo>

#include <tbb/global_control.h>

#include "planner/check/check_outcome.hpp"
#include "planner/report/check_report.hpp"
#include "planner/report/simulate_report.hpp"
#include "planner/run/run_estimate.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/spec/errors.hpp"

#ifndef PREFLIGHT_SOURCE_DIR
#error "PREFLIGHT_SOURCE_DIR must be defined by the build (tests/fuzz/CMakeLists.txt)"
#endif

namespace preflight::fuzz {

namespace fs = std::filesystem;

namespace {

// Text of a library, never ours: a message that carries it leaked an exception's wording.
constexpr const char* kLibraryText[] = {"[json.exception", "filesystem error", "basic_string", "std::bad_alloc",
                                        "bad_optional_access", "vector::", "stoi", "stod", "map::at"};

std::string type_name(const std::exception& e) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? name.get() : typeid(e).name();
}

// The bytes being run (set by begin_input): a message may quote them, library words included.
std::string_view current_input;

// The message without the escapes it renders unprintable bytes with ("\x7f", "<U+000A>"): quoting
// "\x7filesystem error" from the input must not read as a library's "filesystem error".
std::string without_rendered_escapes(const std::string& message) {
  std::string out;
  for (std::size_t i = 0; i < message.size(); ++i) {
    if (message.compare(i, 2, "\\x") == 0 && i + 3 < message.size() && std::isxdigit(static_cast<unsigned char>(message[i + 2])) != 0 &&
        std::isxdigit(static_cast<unsigned char>(message[i + 3])) != 0) {
      i += 3;
      out += '\x01';  // a byte that no library text contains
      continue;
    }
    if (message.compare(i, 3, "<U+") == 0) {
      const std::size_t end = message.find('>', i);
      if (end != std::string::npos && end - i <= 9) {
        i = end;
        out += '\x01';
        continue;
      }
    }
    out += message[i];
  }
  return out;
}

void check_no_library_text(const char* what, const std::string& rendered) {
  const std::string message = without_rendered_escapes(rendered);
  for (const char* text : kLibraryText) {
    if (message.find(text) != std::string::npos && current_input.find(text) == std::string_view::npos) {
      violation(std::string(what) + ": a message in a library's words (\"" + text + "\"): " + rendered);
    }
  }
}

void check_input_error(const char* what, const InputError& e, const FileFilter& file_ok) {
  const std::string message = e.what();
  if (e.file().empty()) violation(std::string(what) + ": an InputError that names no file: " + message);
  if (!file_ok(e.file())) violation(std::string(what) + ": an InputError naming a file this input did not give: " + message);
  if (e.value().empty()) violation(std::string(what) + ": an InputError without the value it got: " + message);
  if (e.allowed().empty()) violation(std::string(what) + ": an InputError without what is allowed: " + message);
  // "FILE: PATH: got VALUE; allowed: ...", control characters escaped.
  const std::string where = e.file() + (e.json_path().empty() ? "" : ": " + e.json_path());
  if (message != printable(where + ": got " + e.value() + "; allowed: " + e.allowed())) {
    violation(std::string(what) + ": an InputError not of the form FILE: PATH: got VALUE; allowed: ...: " + message);
  }
  check_no_library_text(what, message);
}

// What check evaluates is a number: a value the readers let through must not turn the peak memory
// or the step time into NaN, infinity or a negative.
void check_finite(const char* what, const Evaluation& e) {
  const auto bad = [](double v) { return !std::isfinite(v) || v < 0.0; };
  if (bad(e.memory.peak_bytes)) violation(std::string(what) + ": a peak memory of " + std::to_string(e.memory.peak_bytes) + " bytes");
  if (e.step && (bad(e.step->seconds()) || !(e.step->seconds() > 0.0))) {
    violation(std::string(what) + ": a step of " + std::to_string(e.step->seconds()) + " s");
  }
}

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/preflight-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::fprintf(stderr, "fuzz: cannot make a scratch folder from %s: %s\n", pattern.c_str(), std::strerror(errno));
      std::abort();
    }
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

}  // namespace

void begin_input(std::string_view input) { current_input = input; }

void initialize() {
  // One thread: the Monte Carlo's parallel_for then runs in the caller, so an input always runs the
  // same way and one fuzzer keeps to one core.
  static const tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  scratch_dir();
}

const fs::path& scratch_dir() {
  static const ScratchDir dir;  // removed when the process exits normally (-runs, -max_total_time)
  return dir.path;
}

fs::path write_file(const fs::path& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 && errno == ENOENT) {
    fs::create_directories(path.parent_path());
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  }
  if (fd < 0) {
    std::fprintf(stderr, "fuzz: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    std::abort();
  }
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::fprintf(stderr, "fuzz: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
      std::abort();
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return path;
}

fs::path source_path(std::string_view relative) { return fs::path(PREFLIGHT_SOURCE_DIR) / relative; }

const Catalog& bundled_catalog() {
  static const Catalog catalog = Catalog::load(source_path("catalogs"));
  return catalog;
}

std::vector<std::string_view> split_files(std::string_view input, std::size_t max_parts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const std::size_t at = input.find(kFileSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(input.substr(0, at));
    input.remove_prefix(at + kFileSeparator.size());
  }
  parts.push_back(input);
  return parts;
}

FileFilter any_file() {
  return [](const std::string&) { return true; };
}

FileFilter one_of(std::vector<std::string> files) {
  return [files = std::move(files)](const std::string& file) {
    for (const std::string& f : files) {
      if (f == file) return true;
    }
    return false;
  };
}

void violation(const std::string& message) {
  std::fprintf(stderr, "\n==== preflight fuzz: CONTRACT VIOLATION ====\n%s\n", printable(message).c_str());
  std::fflush(stderr);
  std::abort();
}

bool holds_contract(const char* what, const std::function<void()>& body, const FileFilter& file_ok) {
  // PREFLIGHT_FUZZ_VERBOSE=1: each stage's outcome on stderr (what a reproducer got, and whether
  // the seeds reach past reading).
  static const bool verbose = std::getenv("PREFLIGHT_FUZZ_VERBOSE") != nullptr;
  try {
    body();
    if (verbose) std::fprintf(stderr, "fuzz: %s: ok\n", what);
    return true;
  } catch (const InputError& e) {
    if (verbose) std::fprintf(stderr, "fuzz: %s: InputError: %s\n", what, e.what());
    check_input_error(what, e, file_ok);
  } catch (const InvalidConfig& e) {
    if (verbose) std::fprintf(stderr, "fuzz: %s: InvalidConfig (%s): %s\n", what, e.field().c_str(), e.what());
    const std::string message = e.what();
    if (message.empty()) violation(std::string(what) + ": an InvalidConfig without a message");
    check_no_library_text(what, message);
  } catch (const std::exception& e) {
    violation(std::string(what) + ": threw " + type_name(e) + ": " + e.what());
  } catch (...) {
    violation(std::string(what) + ": threw something that is not a std::exception");
  }
  return false;
}

std::optional<Evaluation> run_check_under_contract(const Scenario& scenario, const Catalog& catalog,
                                                   const StrategyConfig& config, const CalibrationProfile* profile) {
  const NodeSpec* node = find_node(scenario, catalog, config.instance);
  if (node == nullptr) violation("read_strategy_config accepted the unknown instance \"" + config.instance + "\"");
  std::optional<Evaluation> given;
  holds_contract("check", [&] {
    const Machine machine(*node, scenario.training().precision, profile);
    const CheckOutcome outcome = run_check(scenario, machine, config);
    if (std::getenv("PREFLIGHT_FUZZ_VERBOSE") != nullptr) {
      std::fprintf(stderr, "fuzz: check: peak %.6g bytes, step %s, %zu remedy rungs\n", outcome.given.memory.peak_bytes,
                   outcome.given.step ? (std::to_string(outcome.given.step->seconds()) + " s").c_str()
                                      : ("unavailable (" + outcome.given.step_unavailable + ")").c_str(),
                   outcome.ladder.rungs.size());
    }
    check_finite("check: the given config", outcome.given);
    for (const LadderRung& rung : outcome.ladder.rungs) check_finite("check: a remedy rung", rung.result);
    // Both renderings `check` writes (--format table|json).
    const std::string text = check_text(outcome);
    const std::string json = check_json(outcome).dump(2);
    if (text.empty() || json.empty()) violation("check rendered nothing");
    given = outcome.given;
  }, any_file());
  return given;
}

void run_simulate_under_contract(const Scenario& scenario, const Catalog& catalog, const StrategyConfig& config,
                                 const Evaluation& evaluation, int trials, const CalibrationProfile* profile) {
  if (!evaluation.step) return;  // simulate stops there (rethrow_at(source, InvalidConfig("instance", ...)))
  const NodeSpec& node = *find_node(scenario, catalog, config.instance);
  holds_contract("simulate", [&] {
    const Machine machine(node, scenario.training().precision, profile);
    const RunEstimate run = estimate_run(scenario, machine, config, *evaluation.step, {1, trials});
    // The Monte Carlo gives up on a run that never ends, so its hours and cost are finite; the closed
    // form's expectation may be infinite (interruptions faster than the work), never NaN.
    const auto bad = [](double v) { return !std::isfinite(v) || v < 0.0; };
    if (bad(run.outcome.hours.mean) || bad(run.outcome.usd.mean) || std::isnan(run.expected_hours) || run.expected_hours < 0.0) {
      violation("simulate: a run of " + std::to_string(run.outcome.hours.mean) + " hours, $" +
                std::to_string(run.outcome.usd.mean) + " (expected " + std::to_string(run.expected_hours) + " hours)");
    }
    if (simulate_text(scenario, node, evaluation, run).empty() ||
        simulate_json(scenario, node, evaluation, run, 1, trials).dump(2).empty()) {
      violation("simulate rendered nothing");
    }
  }, any_file());
}

bool read_and_check_config(const ConfigSource& source, const Scenario& scenario, const Catalog& catalog,
                           const FileFilter& file_ok, const CalibrationProfile* profile) {
  std::optional<StrategyConfig> config;
  if (!holds_contract("read_strategy_config", [&] { config = read_strategy_config(source, scenario, catalog); }, file_ok)) {
    return false;
  }
  if (const std::optional<Evaluation> given = run_check_under_contract(scenario, catalog, *config, profile)) {
    run_simulate_under_contract(scenario, catalog, *config, *given, kSimulateTrials, profile);
  }
  return true;
}

}  // namespace preflight::fuzz
