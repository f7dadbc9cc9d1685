#pragma once
// What the apps' --precision means for their kernel plans (the option itself is declared and
// checked in training_options.hpp). Kept apart from the options so that the engines, which nvcc
// compiles too, need no Boost.Program_options.
#include <string>

#include "core/context.hpp"
#include "core/half.hpp"

namespace fk::app {

// The precision of a plan that only evaluates the model (held-out and test metrics) when the
// training plans run at `training`: fp32 with `auto`, so that the metrics are those of the fp32
// model. A variant named with --sddmm/--spmm serves training and evaluation alike and keeps the
// training precision: a named tensor-core variant refuses fp32, and fp32 variants ignore the
// precision anyway.
inline Precision evaluation_precision(const std::string& variant, Precision training) {
  return variant == "auto" ? Precision::kF32 : training;
}

// "; precision bf16" for the startup line that lists the chosen kernels, "" for fp32: the default
// needs no mention, a lower precision explains tensor-core names and rounded results (on the
// CPU, whose kernels are fp32 only, it says so).
inline std::string precision_note(Precision p, DeviceKind device) {
  if (p == Precision::kF32) return {};
  // The CPU kernels are fp32 only: say so rather than let the log suggest 16-bit arithmetic.
  return std::string("; precision ") + to_string(p) +
         (device == DeviceKind::kCpu ? " accepted, the CPU kernels run in fp32" : "");
}

}  // namespace fk::app
