#pragma once
// What every harness shares: the process's scratch folder (the readers take file paths, so the
// fuzzer's bytes are written to a file there), the bundled catalog loaded once, the split of one
// input into several files, and the contract each harness asserts (README.md, "Exit codes"):
// reading either succeeds or throws an InputError that names the file and reads
// "FILE: PATH: got VALUE; allowed: ...", or an InvalidConfig for a valid but impossible
// combination; what `check` then runs on the result throws nothing else. Anything else (another
// exception type, a library's message, an error without a file) is a contract violation: the
// harness prints it and aborts, which libFuzzer reports as a crash with the input that caused it.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/scenario/scenario.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/spec/calibration_profile.hpp"

namespace preflight::fuzz {

// The fuzzer's bytes as text (JSON and CSV readers take any bytes; a NUL is just a byte).
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The input about to run, for the message checks (a message may quote what the input holds).
void begin_input(std::string_view input);

// Sets up what every harness needs once per process (the scratch folder; TBB limited to the calling
// thread, so a run is deterministic and one fuzzer uses one core). Call from LLVMFuzzerInitialize.
void initialize();

// This process's private scratch folder (mkdtemp under $TMPDIR or /tmp), removed at exit.
const std::filesystem::path& scratch_dir();

// Writes `bytes` to `path` (created or truncated, parent folders made); returns `path`.
std::filesystem::path write_file(const std::filesystem::path& path, std::string_view bytes);

// A file of the source tree (PREFLIGHT_SOURCE_DIR / relative).
std::filesystem::path source_path(std::string_view relative);

// The catalog in the source tree (catalogs/), loaded on first use.
const Catalog& bundled_catalog();

// Several files in one input: the parts between separator lines "--8<--" (the dictionaries hold
// it), at most `max_parts` (the last part keeps any further separators).
inline constexpr std::string_view kFileSeparator = "\n--8<--\n";
std::vector<std::string_view> split_files(std::string_view input, std::size_t max_parts);

// Which files an InputError may name: those the harness wrote (or "--config" for an inline config).
using FileFilter = std::function<bool(const std::string& file)>;
FileFilter any_file();
FileFilter one_of(std::vector<std::string> files);

// Runs `body` under the contract: returns true when it threw nothing, false after an InputError
// (checked against `file_ok` and the message form) or an InvalidConfig; aborts on anything else.
bool holds_contract(const char* what, const std::function<void()>& body, const FileFilter& file_ok);

// Prints `message` (with the harness's context) to stderr and aborts: a contract violation.
[[noreturn]] void violation(const std::string& message);

// What `preflight check` runs for a config it has read: the machine for the scenario's precision
// (with `profile` when it describes the GPU), the given config and the remedy ladder, and both of
// check's renderings. Only InputError and InvalidConfig may come out (checked by holds_contract).
// Returns the given config's evaluation when check ran through.
std::optional<Evaluation> run_check_under_contract(const Scenario& scenario, const Catalog& catalog,
                                                   const StrategyConfig& config, const CalibrationProfile* profile = nullptr);

// What `preflight simulate` adds for a config check evaluated: the run (price, checkpoints,
// interruptions, closed form and a Monte Carlo of `trials`), finite, and both renderings.
void run_simulate_under_contract(const Scenario& scenario, const Catalog& catalog, const StrategyConfig& config,
                                 const Evaluation& evaluation, int trials, const CalibrationProfile* profile = nullptr);

// Trials of the Monte Carlo the harnesses run after a check: few, the run's code paths are the same.
inline constexpr int kSimulateTrials = 16;

// Reads `source` against `scenario` and, when that succeeds, runs check on it and then simulate
// (kSimulateTrials); returns whether reading succeeded (InputError/InvalidConfig are the contract's,
// anything else aborts).
bool read_and_check_config(const ConfigSource& source, const Scenario& scenario, const Catalog& catalog,
                           const FileFilter& file_ok, const CalibrationProfile* profile = nullptr);

}  // namespace preflight::fuzz
