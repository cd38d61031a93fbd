#pragma once
// One name table per enum: the words a scenario, a config or a profile spells a value with, and what
// every output prints. Outputs print with name_of(), readers parse with value_of() (and list the
// allowed words from the table), so a value is spelled in exactly one place.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace preflight {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

template <class E, std::size_t N>
using EnumNames = std::array<EnumName<E>, N>;

template <class E, std::size_t N>
constexpr std::string_view name_of(const EnumNames<E, N>& table, E value) {
  for (const EnumName<E>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

template <class E, std::size_t N>
constexpr std::optional<E> value_of(const EnumNames<E, N>& table, std::string_view name) {
  for (const EnumName<E>& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

}  // namespace preflight
