#pragma once
// SkyPilot's accelerator names (`sky show-gpus`) for the catalog's GPUs: written by `export
// skypilot` and read by `--from` a SkyPilot task, from this one table so the two cannot drift.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace preflight {

struct SkypilotAccelerator {
  std::string_view name;  // resources.accelerators, before ":count"
  std::string_view gpu;   // the catalog GPU id
};

// The first name of a GPU is the one exported; later ones are read too (H100-MEGA is an H100 on
// GCP's a3-megagpu machines). "A100" is the 40 GB part.
inline constexpr std::array<SkypilotAccelerator, 15> kSkypilotAccelerators{{{"A100", "a100-40gb"},
                                                                           {"A100-80GB", "a100-80gb"},
                                                                           {"H100", "h100-80gb"},
                                                                           {"H100-MEGA", "h100-80gb"},
                                                                           {"H200", "h200"},
                                                                           {"B200", "b200"},
                                                                           {"L4", "l4"},
                                                                           {"L40S", "l40s"},
                                                                           {"A10G", "a10g"},
                                                                           {"A10", "a10"},
                                                                           {"T4", "t4"},
                                                                           {"V100", "v100-16gb"},
                                                                           {"V100-32GB", "v100-32gb"},
                                                                           {"RTX4090", "rtx4090"},
                                                                           {"RTX3090", "rtx3090"}}};

inline std::string skypilot_name_of(std::string_view gpu) {
  for (const SkypilotAccelerator& a : kSkypilotAccelerators) {
    if (a.gpu == gpu) return std::string(a.name);
  }
  return "";
}

inline std::optional<std::string> gpu_of_skypilot_name(std::string_view name) {
  for (const SkypilotAccelerator& a : kSkypilotAccelerators) {
    if (a.name == name) return std::string(a.gpu);
  }
  return std::nullopt;
}

// "A100, A100-80GB, ...": what a task may name.
inline std::string skypilot_names_text() {
  std::string s;
  for (const SkypilotAccelerator& a : kSkypilotAccelerators) s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s;
}

}  // namespace preflight
