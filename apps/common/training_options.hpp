#pragma once
// Checks of the training options the apps share by name: --checkpoint-every, --sddmm, --spmm,
// --precision (its help text too, so that the four apps say the same), and the fused SDDMM → SpMM
// options (fk-lda's --ratio-spmm, fk-als's and fk-sfa's --product-spmm).
// Header-only; its callers are the training apps, which link fk_kernels. (It was kept out of
// fk_app_common so that fk-datagen would not link the kernels; fk_app_common links fk_kernels
// itself since checkpoints record cpu_rounding_setup(), apps/common/CMakeLists.txt.)
#include <string>

#include "apps/common/options.hpp"
#include "apps/common/precision.hpp"
#include "core/log.hpp"
#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk::app {

// UsageError "--sddmm: ..." / "--spmm: ..." with the registry's message for a variant name that is
// not registered (auto always passes): a typo fails before any data is read.
inline void check_kernel_variants(const std::string& sddmm, const std::string& spmm) {
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

// UsageError "--checkpoint-every: must be at least 0, got N" for a negative value, then
// check_kernel_variants.
inline void check_training_options(int checkpoint_every, const std::string& sddmm,
                                   const std::string& spmm) {
  require_at_least("checkpoint-every", checkpoint_every, 0);
  check_kernel_variants(sddmm, spmm);
}

// A fused SDDMM → SpMM option's value: auto, off or a registered ratio SpMM variant (whose plans
// run both fused forms); UsageError "--<option>: ..." with the registry's message otherwise.
inline void check_fused_option(const std::string& option, const std::string& value,
                               const std::string& spmm) {
  if (value == "auto" || value == "off") return;
  try {
    find_ratio_spmm_variant(value);
  } catch (const Error& e) {
    usage_fail(option, std::string(e.what()) + " off");
  }
  // A named fused variant replaces the SpMMs it fuses: a named --spmm would go unused unseen.
  if (spmm != "auto")
    log_warn() << "--spmm " << spmm << " is not used for the products --" << option << " "
               << value << " fuses";
}

// Whether an app makes fused plans: not with `off`; under auto only where the separate kernels
// would be auto's fp32 choices (a named --sddmm/--spmm asks for those kernels, and a 16-bit
// precision lets auto pick tensor-core ones on V x 1 structured data for SDDMM and S·B alike,
// kernels/select.cpp, so the SDDMM plan made for the same pattern, `sddmm_half`, tells).
inline bool fused_allowed(const std::string& fused, const std::string& sddmm,
                          const std::string& spmm, bool sddmm_half) {
  if (fused == "off") return false;
  return fused != "auto" || (sddmm == "auto" && spmm == "auto" && !sddmm_half);
}

// --precision's help text. The option's key is "precision" and its value text fp32 (the default),
// bf16 or fp16; apps declare it next to --sddmm/--spmm and resolve it with check_precision.
// kPrecisionKernelsHelp says what it does to the kernels; kPrecisionHelp adds training's model
// and evaluation.
#define FK_PRECISION_KERNELS_HELP                                                                  \
  "lowest precision the app accepts for the factor matrices as the GPU kernels read them: fp32, " \
  "bf16 or fp16. bf16/fp16 let the kernels round the factors (and the sparse matrix's values) "   \
  "to 16 bits and accumulate in fp32: the tensor-core variants, which auto picks only on V x 1 "  \
  "column-vector structured data, or which --sddmm/--spmm name (e.g. --spmm cuda.spmm.tc_v1). "   \
  "The CPU kernels stay fp32"
inline constexpr const char* kPrecisionKernelsHelp = FK_PRECISION_KERNELS_HELP;
inline constexpr const char* kPrecisionHelp =
    FK_PRECISION_KERNELS_HELP ", and so does the model itself; held-out/test evaluation stays "
    "fp32 unless --sddmm/--spmm name a variant";
#undef FK_PRECISION_KERNELS_HELP

// The --precision value; UsageError "--precision: unknown precision 'X' (expected one of ...)"
// for anything else.
inline Precision check_precision(const std::string& text) {
  try {
    return parse_precision(text);
  } catch (const Error& e) {
    usage_fail("precision", e.what());
  }
}

// --holdout-frac, the fraction of the data (`what`: "ratings", "tokens") held out for testing:
// UsageError naming the option, its range and why for a value outside [0, 1) or NaN. 1 and more
// had failed after the data load with "no training ratings left after the split", without the
// option. (Values below 1 that still leave nothing to train on depend on the data: the data
// loaders refuse them, naming the option too.)
inline void check_holdout_frac(double frac, const std::string& what) {
  if (frac >= 0 && frac < 1) return;
  usage_fail("holdout-frac", "must be in [0, 1), got " + format_double(frac) +
                                 ": the fraction of the " + what +
                                 " held out for testing (0: no test set); from 1 on, no " + what +
                                 " would be left to train on");
}

// The resolved-config entry of a double option whose final value the app derived (e.g.
// holdout-frac set to 0 by --test): the same text as INI and JSON.
inline ConfigEntry derived_double(const std::string& key, double value) {
  return {key, format_double(value), format_double(value)};
}

}  // namespace fk::app
