#include "planner/here/catalog_gpu.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "planner/text/number_text.hpp"
#include "simulator/spec/units.hpp"

namespace preflight::here {

namespace {

// The driver reports a board's memory less what ECC and its own reservations take: 22.5 GiB of an
// L4's, A10's or T4's 24 or 16 (93.7%), 79.6 of an H100's 80 (99.5%). Below 90% of an entry's
// memory a device is another part (the next smaller part of one chip has at most 85% of it: H100
// 80 GB against NVL 94 GB).
constexpr double kLeastReportedShare = 0.90;
// Above the entry's memory a device is a larger part; 2% for rounding in the catalog's figures.
constexpr double kMostReportedShare = 1.02;

using Words = std::vector<std::string>;

// Lower-case runs of letters and digits: "NVIDIA A100-SXM4-40GB" -> nvidia a100 sxm4 40gb.
Words words_of(std::string_view name) {
  Words words;
  std::string word;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

bool has(const Words& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// The chip is the first word after the brand: "h100", "a10g", "4090" (of "NVIDIA GeForce RTX 4090").
std::string chip_of(const Words& words) {
  for (const std::string& w : words) {
    if (w != "nvidia" && w != "tesla" && w != "geforce" && w != "rtx" && w != "quadro") return w;
  }
  return "";
}

enum class Form { unnamed, sxm, pcie, nvl };

Form form_of(const Words& words) {
  for (const std::string& w : words) {
    if (w.starts_with("sxm")) return Form::sxm;
    if (w == "pcie") return Form::pcie;
    if (w == "nvl") return Form::nvl;
  }
  return Form::unnamed;
}

// NVIDIA names its PCIe and NVL boards as such ("NVIDIA H100 PCIe", "NVIDIA A100-PCIE-40GB",
// "NVIDIA H100 NVL"), while an SXM board's name often leaves it out ("NVIDIA H100 80GB HBM3",
// "NVIDIA H200"): a name without a form factor is an SXM board's, and an entry without one fits any.
bool forms_agree(Form device, Form entry) {
  if (entry == Form::unnamed) return true;
  if (device == Form::unnamed) return entry == Form::sxm;
  return device == entry;
}

std::string form_text(Form form) {
  switch (form) {
    case Form::pcie:
      return "a PCIe board";
    case Form::nvl:
      return "an NVL board";
    case Form::sxm:
      return "an SXM board";
    case Form::unnamed:
      break;
  }
  return "an SXM board (its name gives no form factor)";
}

std::string described(const std::vector<const GpuSpec*>& gpus) {
  std::string text;
  for (const GpuSpec* g : gpus) {
    text += (text.empty() ? "" : ", ") + g->id + " (" + g->name + ", " + gib(g->memory_bytes) + ")";
  }
  return text;
}

// NVIDIA's compute capabilities by generation (CUDA C++ Programming Guide, "Compute Capabilities"):
// 7.0 and 7.2 Volta, 7.5 Turing, 8.0, 8.6 and 8.7 Ampere, 8.9 Ada, 9.0 Hopper, 10.x to 12.x Blackwell.
// Empty for one newer than this table: not checked then.
std::optional<GpuArchitecture> architecture_of(int major, int minor) {
  switch (major) {
    case 7:
      return minor < 5 ? GpuArchitecture::volta : GpuArchitecture::turing;
    case 8:
      return minor == 9 ? GpuArchitecture::ada : GpuArchitecture::ampere;
    case 9:
      return GpuArchitecture::hopper;
    case 10:
    case 11:
    case 12:
      return GpuArchitecture::blackwell;
    default:
      return std::nullopt;
  }
}

template <class Keep>
std::vector<const GpuSpec*> kept(const std::vector<const GpuSpec*>& gpus, Keep keep) {
  std::vector<const GpuSpec*> out;
  std::copy_if(gpus.begin(), gpus.end(), std::back_inserter(out), keep);
  return out;
}

}  // namespace

Probed<GpuSpec> catalog_gpu_for(std::string_view device_name, double total_bytes, std::span<const GpuSpec> catalog) {
  const Words device = words_of(device_name);
  const std::string quoted = "\"" + std::string(device_name) + "\"";
  if (has(device, "mig")) {
    return Probed<GpuSpec>::unavailable(quoted + " is a MIG slice: the catalog describes whole GPUs, and a slice has " +
                                        "a fraction of one's compute and memory");
  }
  std::vector<const GpuSpec*> all;
  for (const GpuSpec& g : catalog) all.push_back(&g);
  const std::vector<const GpuSpec*> same_chip = kept(all, [&](const GpuSpec* g) {
    const std::string chip = chip_of(words_of(g->name));
    return !chip.empty() && has(device, chip);
  });
  if (same_chip.empty()) {
    std::string ids;
    for (const GpuSpec* g : all) ids += (ids.empty() ? "" : ", ") + g->id;
    return Probed<GpuSpec>::unavailable("no catalog GPU is named like " + quoted + " (the catalog has " + ids + ")");
  }
  const Form form = form_of(device);
  const std::vector<const GpuSpec*> same_form =
      kept(same_chip, [&](const GpuSpec* g) { return forms_agree(form, form_of(words_of(g->name))); });
  if (same_form.empty()) {
    return Probed<GpuSpec>::unavailable(quoted + " is " + form_text(form) + "; the catalog has " +
                                        described(same_chip) + " only");
  }
  const std::vector<const GpuSpec*> same_memory = kept(same_form, [&](const GpuSpec* g) {
    const double share = total_bytes / g->memory_bytes;
    return share >= kLeastReportedShare && share <= kMostReportedShare;
  });
  if (same_memory.empty()) {
    return Probed<GpuSpec>::unavailable(quoted + " reports " + gib(total_bytes) + ", which fits none of " +
                                        described(same_form) + ": not guessed");
  }
  if (same_memory.size() > 1) {
    return Probed<GpuSpec>::unavailable(quoted + " with " + gib(total_bytes) + " could be any of " +
                                        described(same_memory) + ": not guessed");
  }
  return Probed<GpuSpec>::found(*same_memory.front());
}

Probed<GpuSpec> catalog_gpu_for(const ProbedGpu& gpu, std::span<const GpuSpec> catalog) {
  Probed<GpuSpec> entry = catalog_gpu_for(gpu.name, gpu.total_bytes, catalog);
  if (!entry) return entry;
  const std::optional<GpuArchitecture> architecture =
      architecture_of(gpu.compute_capability_major, gpu.compute_capability_minor);
  if (architecture && *architecture != entry->architecture) {
    return Probed<GpuSpec>::unavailable(
        "\"" + gpu.name + "\" has compute capability " + std::to_string(gpu.compute_capability_major) + "." +
        std::to_string(gpu.compute_capability_minor) + " (" + to_string(*architecture) + "), but its name fits " +
        entry->id + " (" + to_string(entry->architecture) + "): not guessed");
  }
  return entry;
}

bool nvlink_bridged_in_pairs(const GpuSpec& gpu) {
  const Form form = form_of(words_of(gpu.name));
  return form == Form::pcie || form == Form::nvl;
}

}  // namespace preflight::here
