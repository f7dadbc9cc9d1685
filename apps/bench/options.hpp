#pragma once
// Command line of fk-bench: what to run (sddmm | spmm | ratio-spmm), on which matrix, at which widths, on which
// device, which variants, how many runs, where the CSV goes. Parsed with Boost.Program_options;
// every bad option or value is a UsageError whose message names the option.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/spmm.hpp"

namespace fk::bench {

// A bad command line (unknown option, bad value, missing or conflicting options): exit code 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

enum class BenchOp { kSddmm, kSpmm, kRatioSpmm };
const char* to_string(BenchOp op);

// The ratio SpMM's forms (kernels/ratio_spmm.hpp): run, run_product, run_residual.
enum class RatioForm { kRatio, kProduct, kResidual };
// The CSV's form column of a ratio-spmm case, in the benchmark and in --explain-auto alike:
// fused, product or residual, with "-t" over Sᵀ (bench/report and docs' scripts read these).
std::string ratio_form_label(RatioForm form, Op op);

struct BenchOptions {
  bool help = false;
  bool version = false;
  bool list = false;
  // Print the variant `auto` would choose for each (K, form or op) and the features its rules
  // saw, without preparing or running anything (so it needs no GPU to explain GPU choices).
  bool explain_auto = false;
  BenchOp op = BenchOp::kSddmm;

  // Exactly one source of the sparse matrix.
  std::string input;                // a file (.mtx, .smtx, UCI docword[.gz], ratings)
  std::string input_format = "auto";
  std::string gen;                  // a generator spec, core/generate/sparse.hpp
  std::string preset;               // an LDA corpus or ratings generator preset name
  std::string name;                 // label in the table and the CSV ("" = derived from the source)
  bool transpose = false;           // run on the source's transpose

  std::vector<int> ks;              // dense widths, in the order given
  std::string device = "auto";
  int threads = 0;                  // 0 = OpenMP's default
  int gpu = 0;
  bool gpu_given = false;             // --gpu was given: refused when the run is on the CPU
  std::vector<std::string> variants;  // empty = every applicable variant of the device + auto
  std::vector<bool> sddmm_scaled;     // forms to run: true = scaled, false = unscaled
  std::vector<RatioForm> ratio_forms;  // ratio-spmm forms to run
  std::vector<Op> spmm_ops;           // S·B and/or Sᵀ·B
  int warmup = 3;
  int runs = 20;
  bool flush = true;                  // evict caches before every timed run
  std::string csv;
  std::uint64_t seed = 1;
  // max_rel_err above this marks the row "wrong": --tolerance, else (set once the device is
  // known) default_tolerance.
  double tolerance = 1e-4;
  bool tolerance_given = false;
  // Lowest operand precision accepted: fp16/bf16 admit the tensor-core variants (and let auto
  // pick them) and, on the GPU, loosen the default tolerance to the half-precision one.
  Precision precision = Precision::kF32;
  std::int64_t check_nnz = 200000;    // nonzeros' worth of rows checked against the reference
};

// The tolerance when --tolerance is not given: the half-precision ones for fp16/bf16 on the GPU
// (the tensor-core variants round their operands), fp32's 1e-4 otherwise.
double default_tolerance(Precision precision, DeviceKind device);

// argv as given to main. Throws UsageError naming the option for anything wrong.
BenchOptions parse_options(int argc, const char* const argv[]);
// The full --help text.
std::string help_text();

}  // namespace fk::bench
