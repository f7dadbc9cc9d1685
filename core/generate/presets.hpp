#pragma once
// Named generator presets (gen:NAME in the apps, fk-datagen --preset), the lookups the corpus and
// ratings generators share.
#include <cstddef>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace fk::gen {

template <class Spec>
struct NamedPreset {
  const char* name;
  Spec spec;
};

// The presets' names in their table's order.
template <class Spec, std::size_t N>
std::vector<std::string> preset_names(const NamedPreset<Spec> (&presets)[N]) {
  std::vector<std::string> names;
  for (const NamedPreset<Spec>& p : presets) names.emplace_back(p.name);
  return names;
}

// The spec named `name`; fk::Error "unknown <what> preset 'NAME' (known: ...)" otherwise.
template <class Spec, std::size_t N>
Spec find_preset(const NamedPreset<Spec> (&presets)[N], const std::string& name,
                 const std::string& what) {
  for (const NamedPreset<Spec>& p : presets)
    if (name == p.name) return p.spec;
  std::string list;
  for (const NamedPreset<Spec>& p : presets)
    list += (list.empty() ? "" : ", ") + std::string(p.name);
  throw Error("unknown " + what + " preset '" + name + "' (known: " + list + ")");
}

}  // namespace fk::gen
