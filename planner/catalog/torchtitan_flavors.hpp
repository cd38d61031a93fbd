#pragma once
// torchtitan's model flavors (torchtitan/models/llama*/__init__.py) that are catalog models: Meta's
// released Llama 2 and Llama 3.1 architectures. Read by `--from` a torchtitan TOML and written by
// `export torchtitan`.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace preflight {

struct TorchtitanFlavor {
  std::string_view name;    // [model] name
  std::string_view flavor;  // [model] flavor
  std::string_view model;   // the catalog id
};

inline constexpr std::array<TorchtitanFlavor, 6> kTorchtitanFlavors{{{"llama3", "8B", "llama-3.1-8b"},
                                                                     {"llama3", "70B", "llama-3.1-70b"},
                                                                     {"llama3", "405B", "llama-3.1-405b"},
                                                                     {"llama2", "7B", "llama-2-7b"},
                                                                     {"llama2", "13B", "llama-2-13b"},
                                                                     {"llama2", "70B", "llama-2-70b"}}};

inline std::optional<TorchtitanFlavor> torchtitan_flavor_of_model(std::string_view model) {
  for (const TorchtitanFlavor& f : kTorchtitanFlavors) {
    if (f.model == model) return f;
  }
  return std::nullopt;
}

inline std::optional<std::string> catalog_model_of_flavor(std::string_view name, std::string_view flavor) {
  for (const TorchtitanFlavor& f : kTorchtitanFlavors) {
    if (f.name == name && f.flavor == flavor) return std::string(f.model);
  }
  return std::nullopt;
}

}  // namespace preflight
