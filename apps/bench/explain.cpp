#include "apps/bench/explain.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "apps/bench/report.hpp"
#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk::bench {
namespace {

std::string number(double x) {
  std::ostringstream os;
  os << std::setprecision(6) << x;
  return os.str();
}

}  // namespace

const std::vector<std::string>& explain_csv_header() {
  // clang-format off
  static const std::vector<std::string> header = {
      "op", "form", "matrix", "m", "n", "nnz", "k", "device",                  // the case
      "rows", "row_mean", "row_cv", "row_max", "col_span", "neighbour_share",  // the rules' input
      "auto_pick"};
  // clang-format on
  return header;
}

void explain_auto(const BenchOptions& o, const BenchMatrix& matrix, std::ostream& os) {
  // Plans see S's row statistics, or Sᵀ's for the transposed product (kernels/registry.cpp); both
  // are computed here on the host, as a CPU context would.
#if FK_WITH_CUDA
  const DeviceKind device = o.device == "cpu" ? DeviceKind::kCpu : DeviceKind::kGpu;
#else
  // A CPU-only build registers no GPU variants: auto explains the CPU's rules.
  if (o.device == "gpu") throw UsageError("--device gpu: this build has no GPU kernels to explain");
  const DeviceKind device = DeviceKind::kCpu;
#endif
  const SparseFeatures of_s = features(matrix.s.view());
  SparseFeatures of_t;
  const bool needs_t = o.op != BenchOp::kSddmm && std::find(o.spmm_ops.begin(), o.spmm_ops.end(),
                                                            Op::kTrans) != o.spmm_ops.end();
  if (needs_t) {
    of_t = features(transpose(matrix.s.view()).view());
    // As in the plans, which sample neither of these for Sᵀ.
    of_t.col_span = SparseFeatures{}.col_span;
    of_t.neighbour_share = SparseFeatures{}.neighbour_share;
  }

  std::vector<std::vector<std::string>> rows;  // for --csv
  struct Choice {
    std::string form;
    bool transposed;
    RatioForm ratio_form = RatioForm::kRatio;  // ratio-spmm only
  };
  std::vector<Choice> choices;
  if (o.op == BenchOp::kSddmm) {
    for (bool scaled : o.sddmm_scaled) choices.push_back({scaled ? "scaled" : "unscaled", false});
  } else if (o.op == BenchOp::kRatioSpmm) {
    // Every form shares one choice (kernels/select.cpp), but each asked for gets its row, named
    // as the benchmark names it, so that picks and measured rows join on (op, form, matrix, k).
    for (Op op : o.spmm_ops)
      for (RatioForm form : o.ratio_forms)
        choices.push_back({ratio_form_label(form, op), op == Op::kTrans, form});
  } else {
    for (Op op : o.spmm_ops) choices.push_back({op == Op::kNoTrans ? "n" : "t", op == Op::kTrans});
  }
  os << "auto on the " << to_string(device) << " for " << matrix.name << " (" << matrix.s.rows
     << " x " << matrix.s.cols << ", " << matrix.s.nnz() << " nonzeros):\n";
  // Without a device the GPU is unknown (KernelProblem::gpu_major and gpu_l2_bytes 0): the rules
  // take an H100/H200's 50 MiB L2 and pick tensor-core variants as on sm_80 and newer.
  if (device == DeviceKind::kGpu) {
    os << "  (the GPU's rules as on an H100/H200: an L2 of 50 MiB";
    if (o.precision != Precision::kF32)
      os << "; " << to_string(o.precision)
         << " picks assume compute capability 8.0 or newer, where older GPUs run the fp32 pick";
    os << ")\n";
  }
  for (const Choice& c : choices) {
    for (int k : o.ks) {
      KernelProblem p;
      p.sparse = c.transposed ? of_t : of_s;
      p.k = k;
      p.transposed = c.transposed;
      p.precision = o.precision;
      std::string pick;
      if (o.op == BenchOp::kRatioSpmm) {
        const RatioSpmmVariant* v = choose_ratio_spmm_variant(device, p);
        // Else the unfused pair, whose steps depend on the form (runner.cpp's RatioSpmmCase).
        const char* steps = c.ratio_form == RatioForm::kProduct    ? "scaled SDDMM, SpMM"
                            : c.ratio_form == RatioForm::kResidual ? "SDDMM, subtraction, SpMM"
                                                                   : "SDDMM, division, SpMM";
        if (v) {
          pick = v->name();
        } else {
          // The rules may prefer the pair where a fused variant would run (the CPU's below K = 64).
          bool fused_applies = false;
          for (const RatioSpmmVariant* r : ratio_spmm_variants())
            fused_applies |= r->backend() != Backend::kReference &&
                             device_of(r->backend()) == device && r->why_not(p).empty();
          pick = std::string("pair (") + steps +
                 (fused_applies ? ": the rules prefer it to the fused kernel here)"
                                : ": no fused variant applies)");
        }
      } else {
        // As the plans do: padded dense operands where that pays.
        p.k = o.op == BenchOp::kSddmm ? auto_sddmm_width(device, p) : auto_spmm_width(device, p);
        pick = o.op == BenchOp::kSddmm ? choose_sddmm_variant(device, p).name()
                                       : choose_spmm_variant(device, p).name();
      }
      const SparseFeatures& f = p.sparse;
      // Sᵀ's span and neighbour share are not sampled (the rules see the defaults): say so
      // rather than print the defaults as if measured.
      const std::string span = c.transposed ? "" : number(f.col_span);
      const std::string share = c.transposed ? "" : number(f.neighbour_share);
      os << "  " << to_string(o.op) << " " << c.form << " K=" << k << ": " << pick;
      if (p.k != k) os << " at K=" << p.k << " (zero-padded copies of the dense operands)";
      os << "  (rows " << f.rows << ", row mean " << number(f.row_mean) << ", cv "
         << number(f.row_cv) << ", max " << f.row_max
         << (c.transposed ? ", column span and neighbour share not sampled for S^T"
                          : ", column span " + span + ", neighbour share " + share)
         << ")\n";
      rows.push_back({to_string(o.op), c.form, matrix.name, std::to_string(matrix.s.rows),
                      std::to_string(matrix.s.cols), std::to_string(matrix.s.nnz()),
                      std::to_string(k), to_string(device), std::to_string(f.rows),
                      number(f.row_mean), number(f.row_cv), std::to_string(f.row_max), span, share,
                      pick});
    }
  }
  // As the benchmark's rows: only under the same header, written atomically.
  if (!o.csv.empty()) append_csv_rows(o.csv, explain_csv_header(), rows);
}

}  // namespace fk::bench
