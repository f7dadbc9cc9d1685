#pragma once
// What the startup line that lists an app's kernels says when one of them does not repeat bit for
// bit (VariantInfo::repeatable): --seed's promise of the same model run after run then holds only
// up to rounding. The apps' default kernels repeat (docs/benchmarks/checks/session-30); cuSPARSE's
// SpMM and a few of ours that add partial sums with atomics do not, and `auto` picks them on some
// shapes.
#include <string>

#include "kernels/registry.hpp"

namespace fk::app {

// `kernel_names`: the engines' kernel_names(), "name[ (note)], ...". Returns
// "; not bitwise repeatable: NAME, ..." naming each such variant once, or "".
inline std::string repeatability_note(const std::string& kernel_names) {
  std::string listed, out;
  std::size_t pos = 0;
  while (pos < kernel_names.size()) {
    std::size_t end = kernel_names.find(", ", pos);
    if (end == std::string::npos) end = kernel_names.size();
    const std::string entry = kernel_names.substr(pos, end - pos);
    const std::string name = entry.substr(0, entry.find(' '));  // variant names have no blanks
    const bool new_name = listed.find(" " + name + " ") == std::string::npos;
    if (!name.empty() && !variant_repeatable(name) && new_name) {
      listed += " " + name + " ";
      out += (out.empty() ? "; not bitwise repeatable: " : ", ") + name;
    }
    pos = end + 2;
  }
  return out;
}

}  // namespace fk::app
