#pragma once
// Checks of the training options the apps share by name: --checkpoint-every, --sddmm, --spmm.
// Header-only so that fk_app_common does not link the kernels (fk-datagen uses it without them);
// the apps that include it link fk_kernels.
#include <string>

#include "apps/common/options.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk::app {

// UsageError "--checkpoint-every: must be at least 0, got N" for a negative value, and
// "--sddmm: ..." / "--spmm: ..." with the registry's message for a variant name that is not
// registered (auto always passes). Checked in that order.
inline void check_training_options(int checkpoint_every, const std::string& sddmm,
                                   const std::string& spmm) {
  require_at_least("checkpoint-every", checkpoint_every, 0);
  if (sddmm != "auto") {
    try {
      find_sddmm_variant(sddmm);
    } catch (const Error& e) {
      usage_fail("sddmm", e.what());
    }
  }
  if (spmm != "auto") {
    try {
      find_spmm_variant(spmm);
    } catch (const Error& e) {
      usage_fail("spmm", e.what());
    }
  }
}

// The resolved-config entry of a double option whose final value the app derived (e.g.
// holdout-frac set to 0 by --test): the same text as INI and JSON.
inline ConfigEntry derived_double(const std::string& key, double value) {
  return {key, format_double(value), format_double(value)};
}

}  // namespace fk::app
