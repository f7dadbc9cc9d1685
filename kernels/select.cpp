// The `auto` rule tables. Each rule names the benchmark that justifies it (docs/benchmarks/).
// A rule only picks a variant that applies; the last resort on each device always applies.

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/omp/common.hpp"
#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"
#include "kernels/transposed_slices.hpp"

namespace fk {
namespace {

template <typename V>
const V* first_applicable(const std::vector<const V*>& all,
                          std::initializer_list<const char*> names, const KernelProblem& p) {
  for (const char* n : names)
    for (const V* v : all)
      if (std::string(v->name()) == n && v->why_not(p).empty()) return v;
  return nullptr;
}

// ---- CPU rules (measured on 2 cores: docs/benchmarks/cpu-notes.md, bench/omp_quick.cpp)
// ----------

// SpMM is skewed for a row split when the longest row alone is more than this share of one
// thread's nonzeros (one row is one thread's work in omp.spmm.rows/aspt), or the row lengths'
// coefficient of variation exceeds kCpuSkewRowCv (many long rows: chunks of rows get uneven).
constexpr double kCpuSkewRowShare = 0.25;
constexpr double kCpuSkewRowCv = 4.0;
bool cpu_spmm_skewed(const KernelProblem& p) {
  // Per processor, not per thread of this run: the pick decides the order of the sums, and so
  // must not change with --threads (omp_common::split_threads).
  const double per_thread = double(p.sparse.nnz) / double(omp_common::split_threads());
  return double(p.sparse.row_max) > kCpuSkewRowShare * per_thread ||
         p.sparse.row_cv > kCpuSkewRowCv;
}

// ---- GPU rules (measured on an H200: docs/benchmarks/kernels-h200.md, scripts/bench_kernels.sh)
// ----

// cuSPARSE's SDDMM and SpMM split work by rows; on matrices whose row lengths spread this much
// (coefficient of variation) a few rows hold most of the work and its warps idle: the generated
// power-law matrix (cv 76) runs SDDMM 27-65x faster with the nonzero-parallel cuda.sddmm.convert
// and SpMM 1.3-6x faster with the nonzero-split cuda.spmm.nnz_vsr.
constexpr double kGpuSkewRowCv = 4.0;
// A pattern is local when its rows' columns span less than this share of the columns
// (SparseFeatures::col_span): banded matrices measure 0.00001-0.0005, the report's documents and
// ratings 0.98-0.99, its SuiteSparse files 0.22-0.43. Three rules below split on it.
constexpr double kGpuLocalColumnSpan = 0.1;
// Little work in all (nnz x K up to 2^24): cuda.sddmm.convert, whose units shrink until every
// resident warp has one, has the shortest critical path. On an H100 sweep of all 59 DLMC rn50
// layers (0.5-0.98 sparsity), the three SuiteSparse files and nips (docs/benchmarks/checks/
// dlmc-rules) it was the fastest SDDMM on 276 of 315 problems and beat cuSPARSE 1.5-1.8x in
// geometric mean at each K from 32 to 512; cuSPARSE won from about 2^24 (bcsstk13 at K = 256,
// 0.84x; DLMC layers of 0.1-0.3M nonzeros at K >= 128, 0.45-0.95x).
constexpr double kGpuSddmmConvertMaxWork = 16777216.0;
// ... and on any matrix of up to 2M nonzeros whose rows are uneven (cv >= 0.6), at every K: the
// two real files the DLMC-fitted rules had not seen ran convert 1.6-4.4x faster than cuSPARSE on
// MovieLens 100K (943 users, cv 0.95) and 1.05-1.3x on UCI kos (3430 documents, cv 0.65) at
// K = 32-512 (H200, d5fe23e), where cuSPARSE's row split waits on the longest rows. bcsstk13 (cv
// 0.54) and the DLMC layers (cv <= 0.31) ran cuSPARSE faster above 2^24.
constexpr double kGpuSddmmConvertUnevenCv = 0.6;
// Short rows: a warp of cuSPARSE's SDDMM finds too few nonzeros per row to fill it. convert wins
// everywhere on hep-th (mean 3.8: 1.1-2.0x) and up to K = 64 on the banded matrix (mean 20: 1.2x);
// cuSPARSE wins above that on banded, and on every matrix with longer rows (nips, ml-20m, DLMC).
// Between the two, only local patterns: out of sample (H200, 2026-11-25,
// docs/benchmarks/checks/large-generated, second section) a uniform 1M x 500K and a clustered 1M x
// 1M matrix in rows of 25 (column span 0.99) ran convert at 0.73-0.78x cuSPARSE at K = 32, while
// rows of 6-8 (uniform, banded) kept convert ahead (1.7-2.1x).
constexpr double kGpuSddmmTinyRows = 8.0;
constexpr double kGpuSddmmShortRows = 32.0;
constexpr int kGpuSddmmShortRowsMaxK = 64;
// Refinements from the H200 report of 2026-11-24 (docs/benchmarks/h200-43fb7b3/, per-variant rows
// in measured/kernels-*/kernels.csv); each names the problems it moved:
// * (A rule sending mean row length x K <= 256 to one thread per nonzero, cuda.sddmm.coo, went
//   when convert's units learned to shrink: convert now beats coo on its evidence, hep-th at
//   K = 32 / 64 by 1.1x / 1.6x and delaunay_n14 at K = 32 by 1.9x, H200; those fall under the
//   little-work rule above, and tiny rows of larger matrices under the short-row rule below.)
// * Small matrices of long rows at K <= 32 above the little-work bound: nonzero-parallel convert
//   beats cuSPARSE's row split, nips (mean 499) 1.05-1.08x, and DLMC layers of means 461 and 1152
//   (0.2-0.3M nonzeros, now under the little-work rule) 1.2x and 1.45x; large matrices stay with
//   cuSPARSE. It started at a mean of 256 because final_dense (mean 205) ran convert at 0.93-0.98x
//   of cuSPARSE before the units shrank (docs/benchmarks/h200-91a8b0c). Up to K = 64 since convert
//   runs three blocks per SM there: nips 1.34x and 1.35x cuSPARSE (checks/convert-occupancy and the
//   h100-c8c070a report, two H100 runs), the DLMC 0.5 layer 1.05-1.08x, and every DLMC layer of
//   mean >= 100 1.03-2.6x (those below the little-work bound already ran convert).
constexpr int kGpuSddmmSmallLongMaxK = 64;
constexpr double kGpuSddmmLongRows = 256.0;
constexpr double kGpuSddmmSmallNnz = 2e6;
// * Large matrices of long rows at K = 64..128: PRedS's nonzero tiles beat cuSPARSE 1.04-1.27x
//   (netflix, nytimes, ml-20m; means 144-335). At K = 32 ml-20m loses with PRedS (1.23x), and at
//   K >= 256 cuSPARSE wins everywhere. Only where a row's columns spread (col_span): out of sample
//   (H200, 2026-11-25, docs/benchmarks/checks/large-generated) uniform and clustered matrices of
//   20-60M nonzeros in rows of 150-200 (spans 0.99) ran PRedS 1.04-1.08x at K = 64 and 0.94-1.03x
//   at 128, but a banded one (rows of 120, span 0.0002) 0.71x and 0.50x: cuSPARSE's row split
//   reuses the B rows that consecutive banded rows share, PRedS's nonzero tiles do not.
constexpr int kGpuSddmmPredsMinK = 33;
constexpr int kGpuSddmmPredsMaxK = 128;
constexpr double kGpuSddmmPredsRows = 100.0;
// * ... and at K <= 32, rows of mean >= 140 with spread columns go to convert, once its K <= 32
//   configurations ran four blocks per SM (docs/benchmarks/checks/convert-occupancy, H100,
//   2026-11-25): in-sample ml-20m (mean 144), nytimes (230) and netflix (209) ran it 1.22-1.24x
//   faster than cuSPARSE at K = 32 and 1.35-1.40x at K = 16 (PRedS, 0.87-1.13x at K = 32, is no
//   contender there). Out of sample, generated uniform and clustered matrices of 20-60M nonzeros in
//   rows of 150-200 ran it 1.05-1.12x at K = 32 and 1.18-1.26x at K = 16; a uniform one in rows
//   of 100 (800K x 20K) ran 0.95-0.97x, which put the mean between 100 and 144, and the banded
//   one (local columns) 0.92-0.98x.
constexpr int kGpuSddmmConvertLongMaxK = 32;
constexpr double kGpuSddmmConvertLongRows = 140.0;
// SpMM: rows of at most this mean length go to cuda.spmm.row_csc (banded 1.2-1.8x over cuSPARSE
// for K >= 32, hep-th 1.1-1.5x for K >= 128); longer rows stay with cuSPARSE (nips, ml-20m, DLMC,
// nytimes n), which it wins or ties.
constexpr double kGpuSpmmShortRows = 32.0;
// ... but with under 5 nonzeros per row and 16 < K <= 64 most of row_csc's (and vdl's) lanes idle:
// cuSPARSE wins on hep-th (mean 3.8) at K = 32 and 64 by 1.27x and 1.09x (2026-11-24 report);
// delaunay_n14 (mean 6) already favours vdl / row_csc. At K <= 16 it also won at K = 4 (1.57x)
// until vdl widened its lane groups on small grids (spmm_vdl.cu, fill_lanes; H200, 2026-11-26,
// docs/benchmarks/checks/vdl-fill-h200): vdl now runs hep-th at K = 4 1.21x and a uniform
// 100000 x 100000 matrix of rows of 3 at 2.9x cuSPARSE, so below K = 16 such rows take the vdl
// rule below. Not for Sᵀ·B: on hep-th's transpose row_csc is 1.5x faster than cuSPARSE's
// transposed SpMM. Nor for local patterns (column span below kGpuLocalColumnSpan), whose B rows
// neighbouring rows share: on four generated banded matrices of 40K-99K nonzeros, 10000-60000 rows
// of mean 1.65-4, row_csc was the fastest at K = 32 on all four (cuSPARSE 1.28-1.55x slower) and at
// K = 64 within 1.01x of the best on three and 1.18x on the fourth (60000 rows of 1.65: nnz_vsr
// led), cuSPARSE 1.41-1.90x (H200, 2026-11-28, docs/benchmarks/checks/session-40: sweep-small.csv.gz
// and sweep-2-banded.csv.gz). And above K = 32 only for rows whose longest is more than
// kGpuVdlMaxRowOverMean means (hep-th: 13 means, cuSPARSE 1.10-1.15x faster than row_csc at
// K = 64): with bounded rows row_csc leads at 32 < K <= 64. Same H200 sweeps (sweep-small and
// sweep-3-tiny, the second taken to test this bound after the first suggested it): on 17
// generated matrices of 16K-99K nonzeros, 4000-45000 rows of mean 2-4.5 (uniform, clustered)
// whose longest row is within 6 means, row_csc was within 1.05x of the best at K = 48-64 on all
// but one (1.14x) and cuSPARSE 0.96-1.32x its time; at K = 32 cuSPARSE was the fastest or within
// 1.06x on all 17.
constexpr double kGpuSpmmTinyRows = 5.0;
constexpr int kGpuSpmmTinyRowsMaxK = 64;
// ... and large matrices (over kGpuSmallNnz) of rows of mean <= 8 go to nnz_vsr at 64 < K <= 128,
// and at 16 < K <= 64 too when their columns spread (span >= 0.1). At K = 128 row_csc gives such a
// row a whole warp and few loads in flight: on eight generated matrices of 2-3M rows (H200,
// 2026-11-25, docs/benchmarks/checks/large-generated, last section) it ran 0.79-0.95x cuSPARSE on
// the five of rows of 4-8 (banded, clustered, uniform), where nnz_vsr ran 1.09-1.32x. At K = 32-64
// nnz_vsr led on spread rows of 4-6 (1.26-1.56x against row_csc's 1.02-1.20x), while banded rows
// (span ~0) kept row_csc far ahead (1.9x against 1.1-1.45x). Rows of 10 and more stay with
// row_csc. Fitted on those; out of sample on four more (rows of 5-7) 1.31x cuSPARSE, 16 of 16
// within 10% of the best, where row_csc would have given 1.12x (slowest 0.77x).
constexpr double kGpuSpmmVeryShortRows = 8.0;
constexpr int kGpuSpmmVeryShortMaxK = 128;
constexpr int kGpuSpmmVeryShortLocalMaxK = 64;
// ... from 100K nonzeros (it was kGpuSmallNnz) since nnz_vsr's chunks shrink until its warps fill
// the GPU (spmm_nnz_vsr.cu, chunk_for), the rule refit of 2026-11-26 below ("Medium matrices"): at
// 16 < K <= 32 only from kGpuSmallNnz, where row_csc kept the small ones (a uniform 40K x 40K of
// rows of 4: 16.0 against nnz_vsr's 19.6 us). Below 100K nonzeros the tiny-row rule above still
// sends rows of under 5 to cuSPARSE (hep-th); from 100K it no longer does, so local rows at
// K <= 64 go to row_csc (banded 100K x 100K of rows of 4: 1.78x cuSPARSE at K = 32).
constexpr double kGpuSpmmShortRowsMinNnz = 100e3;
// Sᵀ·B on short even transposed rows (mean <= 8, cv <= 1.5) from 100K nonzeros: nnz_vsr at
// 64 <= K <= 128 instead of row_csc (banded, power-law and uniform transposes of 100K-1.5M
// nonzeros: 1.04-1.42x; banded 1.5M x 1.5M of 6M nonzeros 1.20x and 1.42x). At K = 32 banded rows
// keep row_csc 1.14-1.26x ahead (the rules cannot tell Sᵀ's local rows from spread ones, whose
// column span is not sampled), and at K = 256 row_csc is ahead or even everywhere (1.0-1.15x).
constexpr int kGpuTransposedVeryShortMinK = 64;
// Sᵀ·B runs on the cached transpose. Rows of Sᵀ (S's columns) that are even in length and not too
// long suit row_csc (banded 1.9-4.2x, bcsstk13 1.4-1.9x, hep-th 1.5-1.7x, DLMC 1.1-2.7x for
// K >= 64 over cuSPARSE's transposed SpMM); skewed or long ones (Zipf vocabularies and item
// popularity: nips, ml-20m, nytimes, power-law) suit nnz_vsr (1.2-4.6x).
constexpr double kGpuTransposedEvenCv = 1.5;
constexpr double kGpuTransposedShortRows = 160.0;
// ... but long even rows of a transpose with few rows keep row_csc too: on a generated 3000 x 1500
// matrix (transpose: 1500 rows of 300) nnz_vsr ran 0.77-0.87x cuSPARSE at K = 128-512 and row_csc
// 2.6x faster than nnz_vsr (H200, docs/benchmarks/checks/row-split, out-of-sample set, which this
// rule came from). netflix's 17770 long rows, the case behind "long: nnz_vsr", go to row_split.
constexpr double kGpuTransposedLongEvenMaxRows = 5000.0;
// Sᵀ·B at K = 1 whose values exceed twice the L2 (50 MiB on H100/H200), from long rows of Sᵀ (S's
// columns spread over many rows of S): the plan's gather of S's values into Sᵀ's order then runs
// windowed (ValueGather, kernels/cuda/device_ops.hpp), and nnz_vsr beats cuSPARSE's transposed
// SpMV, which pays the same scattered reads: netflix (100M, rows of mean 5654) 1.47 against
// 1.85 ms (H200, docs/benchmarks/checks/value-gather; 0.96x before the windows), a generated
// uniform 2M x 20000 (60M, mean 3000; out of sample) 1.01x. Below that size cuSPARSE keeps ml-20m
// (20M, mean 748: 0.296 against 0.302 ms). Rows of mean 1000 and more only: on a generated banded
// 300K x 300K of 60M (rows of 200, out of sample) cuSPARSE's SpMV ran 2x faster than nnz_vsr
// (0.37 against 0.76 ms), whose segments of short rows do not pay at K = 1 (the report's banded
// matrix, rows of 20, shows the same). cuda.spmm.panel's rule comes first and now takes netflix
// and the other transposes of up to 4 panels; this one is left the wider ones.
// The device's L2 in bytes, as the plans read it; an H100's and H200's 50 MiB when not known.
std::int64_t gpu_l2_bytes(const KernelProblem& p) {
  return p.gpu_l2_bytes > 0 ? p.gpu_l2_bytes : std::int64_t(50) * 1024 * 1024;
}
// Values (4 bytes each) beyond twice the L2: the plan's gather of them runs windowed.
bool values_gathered_windowed(const KernelProblem& p) {
  return 4.0 * double(p.sparse.nnz) > 2.0 * double(gpu_l2_bytes(p));
}
constexpr double kGpuTransposedSpmvLongRows = 1000.0;
// vdl's narrow path (parallel reduction, whole B rows per lane) serves K <= 16; at K = 4 it beats
// cuSPARSE 1.1-2.9x on every matrix without extreme skew. At K = 1 cuSPARSE (its SpMM with one
// column) wins on large matrices, skewed rows included (power-law S·B: 0.111 ms against nnz_vsr's
// 0.137, in both H200 reports of 2026-11-24); only its transposed product loses there (power-law
// Sᵀ·B: 0.538 against 0.298). Small matrices: see "Small problems" below.
constexpr int kGpuVdlMaxK = 16;
// vdl's one-row-per-warp path (16 < K <= 64), measured on the H200 against the other variants
// and cuSPARSE (2026-11-24, docs/benchmarks/checks/vdl-wide-h200, spmm-design.md):
// * S·B at K <= 32 on small matrices of long rows: nips (1500 rows, mean 499) 1.30x, DLMC
//   final_dense (1000, 205) 1.36x, bcsstk13 (2003, 42) 1.08x over cuSPARSE. Below 1000 rows a
//   warp per row leaves most SMs idle (DLMC 0.9 bottleneck, 512 rows: 0.62x); on the large
//   matrices cuSPARSE stays ahead (nytimes 0.88x, ml-20m 0.79x); at K = 64 it wins on all of these.
constexpr int kGpuVdlWideMaxK = 32;
constexpr double kGpuVdlWideMinRows = 1000.0;
constexpr double kGpuVdlWideMaxRows = 4096.0;
constexpr double kGpuVdlWideMinMean = 40.0;
// * Sᵀ·B at K <= 64 where Sᵀ has few rows (the DLMC layers, 2048-4608 rows of mean 51-128,
//   and bcsstk13: 1.05-1.50x over cuSPARSE at K = 32 and 1.06-1.81x over row_csc at K = 64), or
//   many rows of Zipf-like, long lengths (ml-20m, 26744 of mean 748, and nytimes, 102660 of mean
//   673: 1.07-1.36x over nnz_vsr), these at K <= 32 only: at K = 64 nnz_vsr ran nytimes 1.23x
//   faster than vdl on an H100 (h100-c746d4a, h100-4c0764c) and 1.03x on the H200 (22dff74;
//   ml-20m's transpose goes to row_split first). Not nips (12419, mean 60: 0.77x cuSPARSE at K =
//   64), netflix (17770, mean 5654: 0.83-0.96x), nor many short rows (banded, delaunay_n14:
//   row_csc). Besides 5000 rows of mean >= 40, "few" now takes up to 10000 even rows (cv <= 1.5):
//   vdl also wins on the DLMC layers' short transposed rows (64-4608 rows of mean 6-40: 1.2-1.6x
//   over row_csc) and on hep-th's 8361 rows of 3.8 at K = 32 (1.3x; 0.93x at K = 64). Not on uneven
//   ones: the UCI kos corpus's 6906 words (cv 1.9, longest row 2123) ran vdl 2.0-5.2x slower than
//   cuSPARSE at K = 20-52, its longest rows each on one warp.
constexpr int kGpuVdlWideTransposedMaxK = 64;
constexpr double kGpuVdlWideTransposedFewRows = 10000.0;
constexpr double kGpuVdlWideTransposedFewRowsUneven = 5000.0;
constexpr double kGpuVdlWideTransposedManyRows = 20000.0;
constexpr double kGpuVdlWideTransposedManyMinMean = 100.0;

// Small problems. Replaying the rules above against an H200 sweep of the 59 DLMC rn50 layers on
// file (54 at 0.9 sparsity; 0.4-300K nonzeros, 5-30 us runs; docs/benchmarks/checks/dlmc-rules)
// showed them fitted to large matrices: at these sizes a kernel's critical path (dependent loads
// per warp) decides, not its bytes, and vdl's one-row-per-warp path has the shortest one.
constexpr double kGpuSmallNnz = 250e3;
// * K = 1: vdl's parallel reduction beat cuSPARSE (SpMM with one column) 1.1-1.3x on small
//   matrices of even rows up to a mean of 128 (DLMC layers, bcsstk13, delaunay_n14), but not on
//   longer rows (DLMC 256 rows of 230: 0.8-0.93x; means 460-1152: 0.5x), uneven ones (hep-th, cv
//   1.14: 0.84x) or large matrices. S·x has its own rule since, below; Sᵀ·x too (the rule after).
constexpr double kGpuVdlSpmvMaxMean = 128.0;
// One row per warp (or lane group) waits on the longest row: MovieLens 100K's users (longest row
// 7x the mean of 106) ran vdl 0.75x cuSPARSE at K = 1 and 0.79x at K = 32 (H200, d5fe23e); the
// DLMC layers, bcsstk13 and delaunay_n14 that it wins on have longest rows of 2-4.4x the mean
// (their short rows' cv reaches 0.9, so the bound is on the longest row, not on cv).
constexpr double kGpuVdlMaxRowOverMean = 6.0;
// * S·x (not Sᵀ·x) since vdl's lane groups fill small grids (e269c78): short rows' groups widen
//   until the GPU is full, so neither the row count nor a moderate spread costs vdl what it did
//   above. H100, docs/benchmarks/checks/vdl-spmv-h100: 1.24-1.94x cuSPARSE on 12 matrices of up to
//   1M nonzeros and 200K rows whose longest row is within 16 means (hep-th: cv 1.14, longest 13
//   means, 1.45x; kos 1.24x) and 1.00x on MovieLens 100K (vdl's team rule has it anyway), but
//   0.04-0.08x on power-law rows (longest 2700-8300 means). Out of sample: 1.04-1.29x on the seven
//   such matrices of a second set, and 0.20-0.79x on power-law rows of longest 18-112 means, which
//   the bound leaves to cuSPARSE. The row cap came after that run: a uniform 300K x 300K of rows of
//   3 ran 0.98x (500K rows of 2: 1.04x), and past 1M nonzeros vdl ran 0.79-0.91x on 3M and 20M
//   (1.30x on a banded 2.4M).
constexpr double kGpuVdlSpmvEvenMaxNnz = 1e6;
constexpr double kGpuVdlSpmvEvenMaxRows = 200e3;
constexpr double kGpuVdlSpmvEvenMaxCv = 1.5;
constexpr double kGpuVdlSpmvEvenMaxRowOverMean = 16.0;
// * S·B at 16 < K <= 32 on fewer than 4096 rows (as above) of mean <= 256: vdl 1.1-1.5x over
//   cuSPARSE and 1.6-2.5x over row_csc, which the short-row rule picked for means <= 32. Longer
//   rows on few warps lose (256 x 2304 of mean 460: 0.79x), as do many short rows (delaunay_n14,
//   16384 rows of 6: 0.67x).
constexpr double kGpuVdlWideSmallMaxMean = 256.0;
// * Few long rows leave most of the machine idle with one row per warp (or per lane group) and
//   cuSPARSE's finer split wins: S·B at K <= 16 on DLMC layers of 256-512 rows of mean 460-1152
//   (vdl 0.77-0.93x; nips, 1500 rows of 499, still 2.0x), and Sᵀ·B at 32 < K <= 64 with 256-512
//   rows of mean 102-205 (vdl 0.68-0.90x).
constexpr double kGpuFewRows = 1000.0;
constexpr double kGpuFewRowsLongNarrow = 400.0;  // mean, S·B at K <= 16
constexpr double kGpuFewRowsLongWide = 100.0;    // mean, Sᵀ·B at 32 < K <= 64
// * S·B at K > 32, same small matrices: row_csc ran 1.3-1.8x slower than cuSPARSE on every DLMC
//   layer of mean <= 32 at K = 64 (H200) and 1.1-1.7x at K = 128 (H100): its per-row overhead
//   dominates; cuSPARSE instead.
// * Sᵀ·B at K > 64 on small matrices whose transpose has at most 1024 rows of mean >= 20:
//   cuSPARSE's transposed SpMM beat row_csc 1.1-2.9x and nnz_vsr 2.2-2.9x on every such DLMC layer
//   at K = 128 (H100, and the 1024-row ones on the H200 too); on shorter rows (means 6-13) row_csc
//   stays 1.2-1.4x ahead. From 2000 rows on row_csc wins on some (bcsstk13 1.5x, DLMC 0.5 layer
//   2.1x) and loses on others (DLMC 2048 rows of 51-100: 0.75-0.87x).
constexpr double kGpuSmallTransposedFewRows = 1024.0;
// * Sᵀ·B for K > 1 on transposes of up to 500K nonzeros with uneven long rows (cv > 1, mean >= 20):
//   cuSPARSE's transposed SpMM. MovieLens 100K's items (1682, mean 59, cv 1.35) ran it 1.1-1.9x
//   faster than vdl and row_csc at K = 4-512, UCI kos's words (6906, mean 51, cv 1.9) 1.2-1.3x
//   faster than nnz_vsr at K = 128-512 (H200, d5fe23e). Not hep-th's short uneven rows (mean 3.8:
//   vdl and row_csc 1.3-1.7x ahead), nor nips's 749K nonzeros, where nnz_vsr wins from K = 128.
//   (849ccef had started this rule above K = 16, blaming it for the sfa-ml100k app's slower
//   passes; that app runs no Sᵀ·B plan, so the blame was wrong and the bound went back.)
constexpr double kGpuUnevenTransposedMaxNnz = 500e3;
// * S·B at 16 < K <= 128 on 100K-500K nonzeros in rows of mean >= 40 and cv >= 0.5: nnz_vsr. The
//   UCI kos corpus's documents (3430 of mean 103, cv 0.65, longest 4.4 means, so not the uneven
//   rule's) ran it 1.11-1.13x faster than cuSPARSE at K = 64 and 128, even at K = 32 with vdl; the
//   generated kos and default corpora (cv 0.58, 0.50) 1.12-1.13x at K = 64-128 (H100, 2026-11-26,
//   checks/short-rows-refit; in sample). bcsstk13 (84K nonzeros, cv 0.54) keeps cuSPARSE: nnz_vsr
//   ran 1.4-1.8x slower there.
constexpr int kGpuSmallUnevenMaxK = 128;
constexpr double kGpuSmallUnevenMinCv = 0.5;
constexpr double kGpuSmallUnevenMinMean = 40.0;
// * Skewed rows (cv > 4) of a small matrix: nnz_vsr, S·B and Sᵀ·B, every K. It went to cuSPARSE
//   from 7cceb19 (H200, 6c99a83: a 200K-nonzero power-law matrix ran cuSPARSE 1.4-3.6x faster, when
//   nnz_vsr's segment reduction, atomics and zeroing of C cost 20-80 us whatever the size); since
//   nnz_vsr's chunks shrink until its warps fill the GPU (7ab95a8) it has no such fixed cost, and
//   uneven_nnz_vsr_pays already gives it the matrices from 100K nonzeros. Below that, H200,
//   2026-11-28 (docs/benchmarks/checks/session-40, sweep-2-skewed.csv.gz: eight generated
//   power-law matrices of 12K-99K nonzeros, 1000-60000 rows, row cv 4-22, none seen by a rule
//   before, K = 1-256): nnz_vsr was the fastest variant on 111 of 112 problems (the other: 1.02x
//   behind cuSPARSE), cuSPARSE 0.98-3.7x its time, 1.81x in geometric mean.
constexpr double kGpuUnevenTransposedCv = 1.0;
constexpr double kGpuUnevenTransposedMinMean = 20.0;
constexpr double kGpuSmallTransposedMinMean = 20.0;
// The domain of that Sᵀ·B rule (K > 64, a small transpose of at most 1024 rows of mean >= 20),
// which the dense rule below also uses.
bool small_transpose_of_few_rows(const KernelProblem& p) {
  return p.transposed && p.k > kGpuVdlWideTransposedMaxK && double(p.sparse.nnz) <= kGpuSmallNnz &&
         double(p.sparse.rows) <= kGpuSmallTransposedFewRows &&
         p.sparse.row_mean >= kGpuSmallTransposedMinMean;
}

// Sᵀ·B whose kernels read S's values through the cached transpose's permutation rather than
// gathering them first (ValueGather::read_through_index: values within a quarter of L2, 3.3M on
// an H100 or H200), as far as measured (docs/benchmarks/checks/permuted-values: up to 942K).
constexpr double kGpuTransposedNarrowMaxNnz = 1e6;

// Under 100K nonzeros a longest row of this many means makes nnz_vsr pay at every K, S·B and Sᵀ·B
// (uneven_nnz_vsr_pays and choose_transposed_narrow, where the evidence is).
constexpr double kGpuUnevenSmallLongestOverMean = 15.0;

// Dense-ish S: cuBLAS SGEMM on a dense copy (cuda.spmm.dense), measured on an H200 against auto's
// earlier picks and cuSPARSE over the DLMC layers at every sparsity on file (0.5-0.98) and
// generated uniform matrices of 1-30% density (docs/benchmarks/checks/dense-spmm, sweep 1):
// * S·B: from 40% density at K >= 32 (the DLMC 0.5 layer, 256 x 2304: 1.07-1.32x over cuSPARSE,
//   which auto ran), and from 25% at K >= 128 on 1024 rows or more (4096 x 4096 at 30%:
//   1.13-1.58x). Below that cuSPARSE stays ahead (DLMC 0.8: dense 0.80-0.87x; 1024 x 8192 at 20%:
//   0.96-1.18x) and the 256-row 0.7 layer is even (0.98-1.01x).
// * Sᵀ·B, where our kernels run on the cached transpose: from 40% density at K >= 64 (DLMC 0.5:
//   1.00-1.67x), and on a million nonzeros or more from 25% at K >= 64 (4096 x 4096 at 30%:
//   1.42-3.4x) or 10% at K >= 128 (4096 x 4096, 16384 x 2048 and 1024 x 8192 at 10-20%:
//   1.02-2.9x). On smaller ones the transpose's longest row decides, as our kernels give a row
//   to one warp: of the 0.9 DLMC layers those whose transposes have a row of 424-442 nonzeros,
//   4.4-8.3x their mean, ran dense 1.2-1.9x faster at K >= 64 (final_dense,
//   bottleneck_2_block_group4_2_1), those of 67-204 0.65-0.9x (the report's set, 2026-11-25);
//   over all 59 layers (sweep 2) it picked two more, which ran dense 1.07-2.2x faster.
//   Even rows of that length do not count: 4096 x 4096 at 10% (rows of about 410) ran dense
//   0.67x at K = 64.
//   And where the small-matrix rule above gives Sᵀ·B to cuSPARSE (K > 64, transposes of at most
//   1024 rows of mean >= 20), dense is faster from 10% density: on the 25 such DLMC 0.9 layers
//   (S of 256-2048 rows over 64-1024 columns) 1.27x in geometric mean at K = 128 and 256 and
//   1.42x at K = 512, slowest 0.98x (H200, all 59 layers: docs/benchmarks/checks/dense-spmm,
//   sweep 2).
constexpr double kGpuDenseSpmmDensity = 0.4;
constexpr int kGpuDenseSpmmMinK = 32;
constexpr int kGpuDenseSpmmTransposedMinK = 64;
constexpr double kGpuDenseSpmmMidDensity = 0.25;
constexpr int kGpuDenseSpmmMidMinK = 128;
constexpr double kGpuDenseSpmmMidMinRows = 1024.0;
constexpr double kGpuDenseSpmmLargeNnz = 1e6;
constexpr double kGpuDenseSpmmLowDensity =
    0.095;  // 10%, less the rounding of "0.9 sparsity" layers
constexpr double kGpuDenseSpmmLongRow = 400.0;
constexpr double kGpuDenseSpmmLongRowOverMean = 3.0;
// Sᵀ·B at K >= 64 from 10% density whose transpose has a row of 400 or more, 3 means long. Where
// the plan gathers S's values (above kGpuTransposedNarrowMaxNnz), dense: row kernels wait on such
// rows. Where our kernels read the values through the permutation instead, nnz_vsr, which splits
// them (choose_gpu_spmm, with the uneven rule): it beat dense on final_dense's transpose (2048
// rows of 100, longest 442) 1.21-1.48x at K = 64-128 and even at 256 on the H100 sweep and the
// report of 58f1f54 (docs/benchmarks/checks/permuted-values; nnz_vsr was already 1.23-1.28x faster
// at K = 128 in the H100 and H200 reports before), and within 10% at 512.
bool long_transposed_rows(const KernelProblem& p) {
  return p.transposed && p.k >= kGpuDenseSpmmTransposedMinK &&
         p.sparse.density >= kGpuDenseSpmmLowDensity &&
         double(p.sparse.row_max) >= kGpuDenseSpmmLongRow &&
         double(p.sparse.row_max) >= kGpuDenseSpmmLongRowOverMean * p.sparse.row_mean;
}
bool dense_spmm_pays(const KernelProblem& p) {
  const double d = p.sparse.density;
  if (!p.transposed)
    return (d >= kGpuDenseSpmmDensity && p.k >= kGpuDenseSpmmMinK) ||
           (d >= kGpuDenseSpmmMidDensity && p.k >= kGpuDenseSpmmMidMinK &&
            double(p.sparse.rows) >= kGpuDenseSpmmMidMinRows);
  const bool large = double(p.sparse.nnz) >= kGpuDenseSpmmLargeNnz;
  return (d >= kGpuDenseSpmmDensity && p.k >= kGpuDenseSpmmTransposedMinK) ||
         (large && d >= kGpuDenseSpmmMidDensity && p.k >= kGpuDenseSpmmTransposedMinK) ||
         (large && d >= kGpuDenseSpmmLowDensity && p.k >= kGpuDenseSpmmMidMinK) ||
         (long_transposed_rows(p) && double(p.sparse.nnz) > kGpuTransposedNarrowMaxNnz) ||
         (d >= kGpuDenseSpmmLowDensity && small_transpose_of_few_rows(p));
}

// Few long even rows, S·B: cuda.spmm.row_split (a row's nonzeros split across up to 8 groups of
// lanes) against auto's earlier picks, H200 sweep of all 59 DLMC layers and six generated matrices
// (docs/benchmarks/checks/row-split): at 64 < K <= 128 on up to 2048 rows of mean >= 400 it ran
// 0.99-1.32x (DLMC 512 x 4608 of 461: 1.10-1.32x over cuSPARSE; DLMC 0.5, 256 of 1152, even with
// dense; generated 300-2048 rows of 400-2048: 1.08-1.29x), and at 16 < K <= 64 on rows of mean >=
// 600 1.11-1.77x (DLMC 0.5 and 0.7, 512 x 8192 and 300 x 20000 generated); rows of about 460 lost
// there (0.55-0.9x). At K = 32 only below 1000 rows, where vdl's rule does not apply. Above K = 128
// it wins on the 512 x 4608 layers and a few generated matrices and loses elsewhere: a sweep of
// all 59 DLMC layers and others at K = 256 and 512 (H200, 2026-11-25, checks/row-split) found
// 1.12-1.26x on 384-768 rows of mean >= 450, but a rule fitted to that window lost out of sample
// (a clustered 512 x 4096: 0.74-0.79x; uniform 640 x 3000: 0.83-0.92x), so it stays off there.
// Sᵀ·B on transposes of long rows: the item x user transposes of ml-20m (26744 rows of 748, cv 1.6)
// and netflix (17770 of 5654) ran row_split 1.12-1.36x faster than nnz_vsr and vdl, auto's picks,
// at K = 32, 64, 256 and 512, and 1-3% slower at K = 128 (the report's run at e972b3b: in-sample,
// two matrices). nytimes's 102660 word rows, uneven and far more, stay with vdl and nnz_vsr. Out of
// sample (docs/benchmarks/checks/row-split): a uniform 20000 x 12000 matrix (transpose: 12000 even
// rows of 1000) ran it 1.78-2.33x faster than cuSPARSE, 1.03-1.28x behind vdl and row_csc, and a
// power-law 1M x 20000 (20000 rows of 1000, cv 5.2) 1.97-2.98x, the best variant. Even rows go
// elsewhere: on three more generated transposes of 10000-25000 rows of 600-2000 with cv 0.02-0.12
// (H200, 2026-11-25, checks/row-split) vdl ran 1.26-1.74x cuSPARSE at K = 32 and 64 and row_csc
// 1.29-1.54x at K = 256, against row_split's 0.95-1.40x; with the 20000 x 12000 one that makes four
// even transposes where vdl (K <= 64) or row_csc (above) beat row_split by 1.03-1.42x. netflix's
// transpose has cv 0.97 and ml-20m's 1.58. (The even rule is fitted on those four: in-sample.)
constexpr int kGpuRowSplitTransposedMinK = 32;
constexpr double kGpuRowSplitTransposedMaxRows = 30000.0;
constexpr double kGpuRowSplitTransposedMinMean = 500.0;
constexpr double kGpuRowSplitTransposedMinCv = 0.5;
constexpr double kGpuRowSplitMaxRows = 2048.0;
constexpr double kGpuRowSplitMaxCv = 1.0;
constexpr int kGpuRowSplitMaxK = 128;
constexpr double kGpuRowSplitMinMean = 400.0;
constexpr double kGpuRowSplitNarrowMinMean = 600.0;
// Small matrices, S·B: since row_split splits rows until its groups fill the GPU (checks/
// row-split-fill), it beats auto's earlier picks on most matrices of at most 1024 rows of mean
// >= 40 at K = 32-128, and on at most 256 rows of mean <= 700 at K = 256 (H100, 2026-11-25: the
// 59 DLMC layers, three SuiteSparse files, nips and ten generated matrices; replayed, S·B `auto`
// over those 365 problems went from 1.05x to 1.14x cuSPARSE and from 220 to 321 within 10% of
// the best). Larger products at K = 256 (512-1000 rows of 200-300) ran it at 0.77-0.88x cuSPARSE.
// The rows measured had cv <= 0.46; MovieLens 100K's users (cv 0.95) were not, hence the cv bound.
constexpr double kGpuRowSplitSmallMaxCv = 0.46;
constexpr int kGpuRowSplitSmallMinK = 32;
constexpr int kGpuRowSplitSmallMaxK = 128;
constexpr double kGpuRowSplitSmallMaxRows = 1024.0;
constexpr double kGpuRowSplitSmallMinMean = 40.0;
constexpr int kGpuRowSplitTinyMaxK = 256;
constexpr double kGpuRowSplitTinyMaxRows = 256.0;
constexpr double kGpuRowSplitTinyMaxMean = 700.0;
bool row_split_small_pays(const KernelProblem& p) {
  const double rows = double(p.sparse.rows), mean = p.sparse.row_mean;
  if (p.transposed || p.k < kGpuRowSplitSmallMinK || rows > kGpuRowSplitSmallMaxRows ||
      mean < kGpuRowSplitSmallMinMean || p.sparse.row_cv > kGpuRowSplitSmallMaxCv)
    return false;
  return p.k <= kGpuRowSplitSmallMaxK ||
         (p.k <= kGpuRowSplitTinyMaxK && rows <= kGpuRowSplitTinyMaxRows &&
          mean <= kGpuRowSplitTinyMaxMean);
}

// Sᵀ·B on small matrices whose transpose has at most 1024 rows of mean >= 10, the longest within
// 6 means, at K >= 64: row_split, whose groups fill the GPU on few rows as they do for S·B. Over
// the 59 DLMC rn50 layers (H100, 2026-11-26, docs/benchmarks/checks/short-rows-refit, run4.sh) it
// was within 10% of the best on 40-48 of them at each K = 64-512, where `auto`'s cuSPARSE, dense,
// vdl and row_csc picks were on 29-37; with this rule 1037 of the 1132 problems of that folder are
// within 10% of the best, against 956 (geometric mean against cuSPARSE 1.42x, against 1.39x). On
// transposes of 2048 rows and more it lost to row_csc, vdl and nnz_vsr (1.27-1.74x). Out of sample
// (run5.sh: ten generated matrices of 128-1024 columns and one of 2048) `auto` went from 11 to 36
// of 44 within 10% and from 1.33x to 1.98x cuSPARSE; its misses were two dense-ish matrices (24%
// and 50%) at K >= 128, where dense ran 1.12-1.69x faster, so the rule keeps below 20% density and
// leaves those to the dense rules (in sample after that run).
// From 1025 to 2047 transposed rows the same holds at K = 64 and 128 for rows of mean >= 20 (H200,
// 2026-11-28, docs/benchmarks/checks/transposed-2k-rows): on ten generated such matrices row_split
// was within 10% of the best on 9 of 10 at K = 64 and 8 of 10 at K = 128, where `auto`'s vdl and
// row_csc were on 5 and 4 (up to 1.39x and 1.62x slower), and bcsstk13's transpose (2003 rows of
// 42, in both reports 1.23-1.24x slower on row_csc at K = 128) ran it fastest; at K = 256 and 512
// row_csc stayed ahead (row_split up to 1.45x slower), as on 2500 and 4000 rows at K >= 128. Out
// of sample (seven more, 14 problems) `auto` with this rule was within 10% on 12 (geometric mean
// 1.02x the best), the picks before it on 8 (1.20x, worst 1.93x).
constexpr double kGpuRowSplitSmallTransposedMaxRows = 1024.0;
constexpr double kGpuRowSplitSmallTransposedMaxDensity = 0.2;
constexpr double kGpuRowSplitSmallTransposedMinMean = 10.0;
constexpr int kGpuRowSplitSmallTransposedMinK = 64;
constexpr double kGpuRowSplitMidTransposedMaxRows = 2047.0;
constexpr double kGpuRowSplitMidTransposedMinMean = 20.0;
constexpr int kGpuRowSplitMidTransposedMaxK = 128;
bool row_split_small_transpose_pays(const KernelProblem& p) {
  const double rows = double(p.sparse.rows);
  const bool few_rows = rows <= kGpuRowSplitSmallTransposedMaxRows;
  const bool mid_rows = rows <= kGpuRowSplitMidTransposedMaxRows && p.k <= kGpuRowSplitMidTransposedMaxK &&
                        p.sparse.row_mean >= kGpuRowSplitMidTransposedMinMean;
  return p.transposed && p.k >= kGpuRowSplitSmallTransposedMinK &&
         double(p.sparse.nnz) <= kGpuSmallNnz && (few_rows || mid_rows) &&
         p.sparse.row_mean >= kGpuRowSplitSmallTransposedMinMean &&
         p.sparse.density < kGpuRowSplitSmallTransposedMaxDensity &&
         double(p.sparse.row_max) < kGpuVdlMaxRowOverMean * p.sparse.row_mean;
}

// Small transposes of at most 1024 rows (mean >= 10, longest within 6 means) at 20% density and
// more, the range row_split_small_transpose_pays leaves to the dense rules, which below a million
// nonzeros and 40% density had them run row_csc: on seven generated such matrices (60K-900K
// nonzeros, 300-1024 transposed rows of 200-900; H100, 2026-11-26, docs/benchmarks/checks/
// permuted-values, oos2-h100.csv.gz) row_csc ran 1.1-5.7x slower than the best, while row_split
// was within 10% of the best on 7 and 6 of them at K = 64 and 128 and dense on 6 and 7 at K = 256
// and 512. From 40% density the dense rule keeps them (a 400-row transpose at 50%: dense 1.12-1.69x
// faster than row_split at K >= 128, docs/benchmarks/checks/short-rows-refit).
constexpr double kGpuFewRowDenseTransposeMinDensity = 0.2;
constexpr int kGpuFewRowDenseTransposeDenseMinK = 256;
const SpmmVariant* choose_few_row_dense_ish_transpose(const std::vector<const SpmmVariant*>& all,
                                                      const KernelProblem& p) {
  if (!p.transposed || p.k < kGpuRowSplitSmallTransposedMinK ||
      double(p.sparse.nnz) > kGpuTransposedNarrowMaxNnz ||
      double(p.sparse.rows) > kGpuRowSplitSmallTransposedMaxRows ||
      p.sparse.row_mean < kGpuRowSplitSmallTransposedMinMean ||
      p.sparse.density < kGpuFewRowDenseTransposeMinDensity ||
      p.sparse.density >= kGpuDenseSpmmDensity ||
      double(p.sparse.row_max) >= kGpuVdlMaxRowOverMean * p.sparse.row_mean)
    return nullptr;
  return first_applicable(
      all,
      {p.k >= kGpuFewRowDenseTransposeDenseMinK ? "cuda.spmm.dense" : "cuda.spmm.row_split",
       "cuda.spmm.row_split"},
      p);
}

// Transposes of more than 1024 even rows at 40% density and more whose values the kernels read
// through the permutation (at most a million nonzeros), the dense rule's domain from K = 64 until
// this rule: cuBLAS's work grows with the zeros and the row kernels' does not, so dense pays only
// on long rows. H100, 2026-11-26 (docs/benchmarks/checks/dense-ish-transposes): on eight generated
// such transposes (dense-ish-h100.csv.gz) and three on record (the DLMC 0.5 layer's, 2304 rows of
// 128, and two in checks/permuted-values/oos2-h100.csv.gz) dense was within 10% of the best on 3,
// 5 and 9 of the 11 at K = 64, 128 and 256. The best: at K = 64 row_split up to about 4000 rows
// (row_csc 1.08-2.1x slower) and row_csc on 4608-7000 (row_split 1.04-1.16x slower), dense only
// on rows of 350 and more; at K = 128 row_csc on rows of up to 240, dense from 275; at K = 256
// dense, except row_csc on rows of 100 and less (dense 1.13-1.28x slower). The first version of
// this rule split K = 64 by row length instead; a second set of nine (dense-ish-oos-h100.csv.gz)
// had it within 10% on 26 of 27 and showed the row count deciding at K = 64 (in sample since).
constexpr double kGpuManyRowDenseTransposeCscMinRows = 4500.0;  // K = 64: row_csc from it
constexpr double kGpuManyRowDenseTransposeDenseMean = 350.0;    // K = 64: dense from it
constexpr double kGpuManyRowDenseTransposeCscMaxMean = 250.0;   // K = 128: row_csc below it
constexpr double kGpuManyRowDenseTransposeShortMean = 110.0;    // K = 256: row_csc below it
constexpr int kGpuManyRowDenseTransposeMaxK = 256;
const SpmmVariant* choose_many_row_dense_transpose(const std::vector<const SpmmVariant*>& all,
                                                   const KernelProblem& p) {
  if (!p.transposed || p.k < kGpuDenseSpmmTransposedMinK || p.k > kGpuManyRowDenseTransposeMaxK ||
      double(p.sparse.nnz) > kGpuTransposedNarrowMaxNnz ||
      double(p.sparse.rows) <= kGpuRowSplitSmallTransposedMaxRows ||
      p.sparse.density < kGpuDenseSpmmDensity ||
      double(p.sparse.row_max) >= kGpuVdlMaxRowOverMean * p.sparse.row_mean)
    return nullptr;
  const double mean = p.sparse.row_mean;
  const char* pick = "cuda.spmm.dense";
  if (p.k <= kGpuDenseSpmmTransposedMinK) {
    if (mean < kGpuManyRowDenseTransposeDenseMean)
      pick = double(p.sparse.rows) >= kGpuManyRowDenseTransposeCscMinRows ? "cuda.spmm.row_csc"
                                                                          : "cuda.spmm.row_split";
  } else if (p.k < kGpuFewRowDenseTransposeDenseMinK) {
    if (mean < kGpuManyRowDenseTransposeCscMaxMean) pick = "cuda.spmm.row_csc";
  } else if (mean < kGpuManyRowDenseTransposeShortMean) {
    pick = "cuda.spmm.row_csc";
  }
  return first_applicable(all, {pick, "cuda.spmm.dense"}, p);
}

// S·B at 128 < K <= 512 on 384-768 even rows of mean >= 450 and more than 4096 columns: row_split,
// after dense (uniform 512 x 8192 and 768 x 16384 ran dense faster still). The rule of that window
// without the column bound came out on 2026-11-25 (checks/row-split: a clustered 512 x 4096 ran
// 0.74-0.79x cuSPARSE, a uniform 640 x 3000 0.83-0.92x); row_split has filled a wave of the GPU
// since (0918fb5). Rerun with it (H100,
// 2026-11-26, docs/benchmarks/checks/row-split-wide, set "fit": the 59 DLMC layers, SuiteSparse,
// nips, 16 generated): in the window it ran 1.03-1.21x cuSPARSE on the seven matrices of more than
// 4096 columns (the three 512 x 4608 layers 1.07-1.16x, uniform 700 x 5000 1.13-1.18x) and 0.67-0.88x
// on the two of 3000-4096 (B small enough for cuSPARSE's reuse); 256-row layers lost at K = 512
// (0.66-0.98x), 1024 rows and more 0.26-1.18x.
constexpr int kGpuRowSplitWideMaxK = 512;
constexpr double kGpuRowSplitWideMinRows = 384.0;
constexpr double kGpuRowSplitWideMaxRows = 768.0;
constexpr double kGpuRowSplitWideMinMean = 450.0;
constexpr double kGpuRowSplitWideMinCols = 4096.0;
bool row_split_wide_pays(const KernelProblem& p) {
  const double rows = double(p.sparse.rows);
  return !p.transposed && p.k > kGpuRowSplitMaxK && p.k <= kGpuRowSplitWideMaxK &&
         rows >= kGpuRowSplitWideMinRows && rows <= kGpuRowSplitWideMaxRows &&
         p.sparse.row_mean >= kGpuRowSplitWideMinMean &&
         double(p.sparse.cols) > kGpuRowSplitWideMinCols && p.sparse.row_cv <= kGpuRowSplitMaxCv;
}

bool row_split_pays(const KernelProblem& p) {
  if (row_split_small_pays(p)) return true;
  if (p.transposed)
    return p.k >= kGpuRowSplitTransposedMinK &&
           double(p.sparse.rows) <= kGpuRowSplitTransposedMaxRows &&
           p.sparse.row_mean >= kGpuRowSplitTransposedMinMean &&
           p.sparse.row_cv >= kGpuRowSplitTransposedMinCv;
  if (p.k <= kGpuVdlMaxK || p.k > kGpuRowSplitMaxK) return false;
  const double rows = double(p.sparse.rows), mean = p.sparse.row_mean;
  if (rows > kGpuRowSplitMaxRows || p.sparse.row_cv > kGpuRowSplitMaxCv) return false;
  if (p.k > kGpuVdlWideTransposedMaxK) return mean >= kGpuRowSplitMinMean;
  if (p.k <= kGpuVdlWideMaxK && rows >= kGpuVdlWideMinRows) return false;
  return mean >= kGpuRowSplitNarrowMinMean;
}

// K <= 4 with the dense side in shared memory, S read once in its own order (cuda.spmm.panel),
// measured on an H200 against the other variants and cuSPARSE (2026-11-25,
// docs/benchmarks/checks/panel): panels = S's columns x K over the floats one block may hold
// (58112 on sm_90).
// * Sᵀ·B: no transpose, so no gather of S's values into Sᵀ's order, which the others pay every run.
//   At K <= 2 with at most 4 panels it ran 1.06-3.5x faster than the best other variant on the
//   report's large matrices and a uniform 2M x 20000 (netflix K = 1: 0.46 against nnz_vsr's 1.47
//   ms; nytimes, 2 panels: 0.40 against 1.00), except where a row's part in a panel is short and
//   S's columns uneven: a power-law 500K x 100K (parts of 30, Sᵀ's cv 7.1) ran 0.34-0.72x, since
//   hot columns serialize the shared-memory atomics; the uniform rows of 30 (cv 0.02) ran 3.5x.
//   With 6 or more panels (banded 300K x 300K) it lost (0.89-0.94x). At K = 4 each nonzero costs
//   four atomics: it won only on the longest transposed rows (netflix, uniform: Sᵀ's rows of
//   3000-5654, 1.28-1.41x) and lost on ml-20m (748: 0.80x) and nytimes (8 panels: 0.75x). Out of
//   sample (five generated matrices of 5-60M nonzeros where it applies): 1.16-4.5x the best other
//   variant at K = 1 and 2, 2.2x at K = 4, slowest 0.94x. Short parts lose from a cv of 0.5 on
//   (H200, session 41, docs/benchmarks/checks/session-41/medium.csv.gz: transposes of cv 0.62,
//   1.09 and 1.24 with parts of 5-30 ran panel 0.29-0.60x cuSPARSE at K = 1; one of cv 0.26 and
//   parts of 25 kept its lead), where the bound had been a cv of 2. And parts under 10 lose
//   whatever the cv (a uniform 300K x 100K, parts of 5, cv 0.26: 0.62x cuSPARSE at K = 1 and 0.76x
//   at K = 2; session 41's oos2.csv.gz).
// * S·B: at K = 2-4 with at most 2 panels and even rows it ran 0.95-1.32x the best (netflix 1.21x,
//   uniform 2M x 20000 1.11-1.32x at K = 2 and 4; out of sample 1.04-1.07x at K = 2 and 0.94x at
//   K = 4); with more panels or skewed rows (power-law) 0.3-0.9x. At K = 1 it beat cuSPARSE where x
//   outgrows L1 and rows do not share columns (nytimes, 102660 columns: 1.35x; a uniform 300K x
//   100K, out of sample: 2.06x), but a clustered 200K x 100K, whose neighbouring rows reuse x in
//   L1, ran 0.70x. SparseFeatures::neighbour_share tells them apart: 0.16 (nytimes) and 0.002
//   (uniform) against 0.42 (clustered; a banded 300K x 300K, 0.42x, has 0.50), so K = 1 takes
//   panel on more than 65536 columns, rows of mean >= 100 and a share of at most 0.3 (fitted on
//   those four). Out of sample (five generated matrices, shares 0.001-0.42, H200,
//   docs/benchmarks/checks/spmv-neighbours) it picked right on four (panel 1.36-1.87x cuSPARSE
//   where it took it) and left one of share 0.33 to cuSPARSE where panel was 1.34x faster.
constexpr int kGpuPanelMaxK = 4;
constexpr double kGpuPanelFloats = 58112.0;
constexpr double kGpuPanelMinNnz = 500e3;
constexpr double kGpuPanelTransposedMaxPanels = 4.0;
constexpr double kGpuPanelTransposedMinPart = 50.0;
constexpr double kGpuPanelTransposedShortPart = 10.0;
constexpr double kGpuPanelTransposedEvenCv = 0.5;
constexpr double kGpuPanelTransposedWideMinMean = 2000.0;
constexpr double kGpuPanelMinNnzNoTrans = 2e6;
constexpr double kGpuPanelMaxPanels = 2.0;
constexpr double kGpuPanelEvenCv = 1.0;
constexpr double kGpuPanelSpmvMinCols = 65536.0;
constexpr double kGpuPanelSpmvMinMean = 100.0;
constexpr double kGpuPanelSpmvMaxNeighbourShare = 0.3;
bool panel_pays(const KernelProblem& p) {
  if (p.k > kGpuPanelMaxK || double(p.sparse.nnz) < kGpuPanelMinNnz) return false;
  // The panelled side is S's columns: Sᵀ's rows for the transposed product.
  const double n = p.transposed ? double(p.sparse.rows) : double(p.sparse.cols);
  const double panels = std::ceil(n * p.k / kGpuPanelFloats);
  if (p.transposed) {
    const double s_mean = double(p.sparse.nnz) / std::max(1.0, double(p.sparse.cols));  // S's rows
    if (panels > kGpuPanelTransposedMaxPanels) return false;
    const double part = s_mean / panels;
    if (part < kGpuPanelTransposedShortPart ||
        (part < kGpuPanelTransposedMinPart && p.sparse.row_cv > kGpuPanelTransposedEvenCv))
      return false;
    return p.k <= 2 ||
           (panels <= kGpuPanelMaxPanels && p.sparse.row_mean >= kGpuPanelTransposedWideMinMean);
  }
  if (double(p.sparse.nnz) < kGpuPanelMinNnzNoTrans || panels > kGpuPanelMaxPanels ||
      p.sparse.row_cv > kGpuPanelEvenCv)
    return false;
  return p.k > 1 || (double(p.sparse.cols) > kGpuPanelSpmvMinCols &&
                     p.sparse.row_mean >= kGpuPanelSpmvMinMean &&
                     p.sparse.neighbour_share <= kGpuPanelSpmvMaxNeighbourShare);
}

// Low precision: when the caller accepts fp16/bf16 operands and S is exactly V x 1 structured
// (V >= 2), the tensor-core variant of that V (docs/benchmarks/tensor-core.md). Without structure
// the encoding would pad, so the fp32 rules decide.
template <typename V>
const V* tensor_core_pick(const std::vector<const V*>& all, const char* op,
                          const KernelProblem& p) {
  if (p.precision == Precision::kF32 || p.vector_length < 2) return nullptr;
  const std::string name = std::string("cuda.") + op + ".tc_v" + std::to_string(p.vector_length);
  return first_applicable(all, {name.c_str()}, p);
}

const SddmmVariant* choose_gpu_sddmm(const std::vector<const SddmmVariant*>& all,
                                     const KernelProblem& p) {
  if (const SddmmVariant* tc = tensor_core_pick(all, "sddmm", p)) return tc;
  const double nnz = double(p.sparse.nnz);
  if (nnz * double(p.k) <= kGpuSddmmConvertMaxWork ||
      (nnz <= kGpuSddmmSmallNnz && p.sparse.row_cv >= kGpuSddmmConvertUnevenCv))
    return first_applicable(all, {"cuda.sddmm.convert", "cuda.sddmm.cusparse"}, p);
  if (p.sparse.row_cv <= kGpuSkewRowCv) {
    if (p.k <= kGpuSddmmSmallLongMaxK && p.sparse.row_mean >= kGpuSddmmLongRows &&
        nnz <= kGpuSddmmSmallNnz)
      return first_applicable(all, {"cuda.sddmm.convert", "cuda.sddmm.cusparse"}, p);
    // Large matrices whose rows' columns spread: convert at K <= 32, PRedS at 33..128.
    const bool large_spread = nnz > kGpuSddmmSmallNnz && p.sparse.col_span >= kGpuLocalColumnSpan;
    if (large_spread && p.k <= kGpuSddmmConvertLongMaxK &&
        p.sparse.row_mean >= kGpuSddmmConvertLongRows)
      return first_applicable(all, {"cuda.sddmm.convert", "cuda.sddmm.cusparse"}, p);
    if (large_spread && p.k >= kGpuSddmmPredsMinK && p.k <= kGpuSddmmPredsMaxK &&
        p.sparse.row_mean >= kGpuSddmmPredsRows)
      return first_applicable(all, {"cuda.sddmm.preds", "cuda.sddmm.cusparse"}, p);
  }
  const bool convert = p.sparse.row_cv > kGpuSkewRowCv || p.sparse.row_mean <= kGpuSddmmTinyRows ||
                       (p.sparse.row_mean <= kGpuSddmmShortRows && p.k <= kGpuSddmmShortRowsMaxK &&
                        p.sparse.col_span < kGpuLocalColumnSpan);
  if (convert) return first_applicable(all, {"cuda.sddmm.convert", "cuda.sddmm.cusparse"}, p);
  return first_applicable(all, {"cuda.sddmm.cusparse", "cuda.sddmm.convert"}, p);
}

// Row statistics the SpMM rules share.
struct SpmmShape {
  double rows, mean;
  bool small;            // at most kGpuSmallNnz nonzeros
  bool skewed;           // row cv above kGpuSkewRowCv
  bool bounded_longest;  // longest row within kGpuVdlMaxRowOverMean x the mean
  bool few_long;         // few rows, long for the K range (kGpuFewRows)
};

// Sᵀ·B at K <= 4 on up to a million nonzeros, since the cached transpose's kernels read S's
// values through its permutation instead of gathering them first (the gather's launch had cost
// our kernels 3-4 µs a run, which cuSPARSE's transposed product does not pay). Measured on an
// H100 (2026-11-26, docs/benchmarks/checks/permuted-values: sweep-h100.csv.gz, all 59 DLMC rn50
// layers, bcsstk13, delaunay_n14, hep-th and nips at K = 1 and 4; oos-h100.csv.gz, kos,
// MovieLens 100K and eleven generated matrices at K = 1, 2 and 4): vdl was within 10% of the best
// variant on 59 and 60 of the sweep's 63 problems, cuSPARSE 1.14-9.8x slower than the best. vdl
// waits on long rows where nnz_vsr splits them: skewed transposes (nips: cv 2.5, 2.3x), a row of
// 400 or more that is 2.5 means long on at most 1024 rows (DLMC layers of 256-1024 rows: vdl
// 1.07-1.35x slower) or 6 means on more rows (MovieLens 100K's items: 1.21-1.33x). Rules before
// this one sent these problems to cuSPARSE or panel (0.44-1.0x cuSPARSE on the second set).
// Skewed transposes past kGpuSkewRowCv (no such matrix in either set) keep the rules below.
// A longest row of 15 means or more waits too, whatever its length (H200, session 41,
// checks/session-41: on power-law transposes of 40K-500K nonzeros whose longest rows were 17-200
// means and under 400 long, vdl ran 1.2-2.8x behind nnz_vsr at K = 4 and up to 3.4x behind
// cuSPARSE at K = 1, where nnz_vsr was within 1.3x of it).
constexpr int kGpuTransposedNarrowMaxK = 4;
constexpr double kGpuTransposedNarrowSkewCv = 1.5;
constexpr double kGpuTransposedNarrowLongRow = 400.0;
constexpr double kGpuTransposedNarrowFewRows = 1024.0;
constexpr double kGpuTransposedNarrowFewRowsLongOverMean = 2.5;
constexpr double kGpuTransposedNarrowLongOverMean = 6.0;
const SpmmVariant* choose_transposed_narrow(const std::vector<const SpmmVariant*>& all,
                                            const KernelProblem& p) {
  if (!p.transposed || p.k > kGpuTransposedNarrowMaxK ||
      double(p.sparse.nnz) > kGpuTransposedNarrowMaxNnz || p.sparse.row_cv > kGpuSkewRowCv)
    return nullptr;
  const double longest = double(p.sparse.row_max);
  const double long_over_mean = double(p.sparse.rows) <= kGpuTransposedNarrowFewRows
                                    ? kGpuTransposedNarrowFewRowsLongOverMean
                                    : kGpuTransposedNarrowLongOverMean;
  const bool waits_on_long_rows =
      p.sparse.row_cv > kGpuTransposedNarrowSkewCv ||
      (longest >= kGpuTransposedNarrowLongRow && longest >= long_over_mean * p.sparse.row_mean) ||
      longest >= kGpuUnevenSmallLongestOverMean * p.sparse.row_mean;
  return first_applicable(
      all, {waits_on_long_rows ? "cuda.spmm.nnz_vsr" : "cuda.spmm.vdl", "cuda.spmm.cusparse"}, p);
}

// Sᵀ·B at K = 29-32 on transposes of at most 1024 even rows of mean >= 50 (up to a million
// nonzeros, so the values are read through the permutation): row_split, whose 8-lane groups fill
// at this K and whose split rows fill the GPU, where vdl gives a row to one group. H100,
// 2026-11-26: on the sweep of all 59 DLMC layers (checks/permuted-values, sweep-h100.csv.gz)
// row_split was within 3% of the best on all 17 such transposes (128-1024 rows of 51-205) and
// vdl 1.16-1.68x behind on 8; out of sample on ten generated ones (checks/transposed-k32, 200-1024
// rows of 75-1100) row_split was within 4% of the best on all ten at K = 32 and vdl 1.19-1.68x
// behind on five. At K = 24 the same set ran vdl or nnz_vsr fastest (row_split up to 1.44x behind),
// and on more than 1024 rows neither kernel led consistently, hence the bounds.
constexpr int kGpuTransposedSplitMinK = 29;
constexpr int kGpuTransposedSplitMaxK = 32;
constexpr double kGpuTransposedSplitMinMean = 50.0;
bool row_split_transposed_k32_pays(const KernelProblem& p) {
  return p.transposed && p.k >= kGpuTransposedSplitMinK && p.k <= kGpuTransposedSplitMaxK &&
         double(p.sparse.nnz) <= kGpuTransposedNarrowMaxNnz &&
         double(p.sparse.rows) <= kGpuRowSplitSmallTransposedMaxRows &&
         p.sparse.row_mean >= kGpuTransposedSplitMinMean &&
         double(p.sparse.row_max) < kGpuVdlMaxRowOverMean * p.sparse.row_mean;
}

// The rules that come from the small and medium matrices (DLMC, MovieLens 100K, kos, generated
// ones; "Small problems" above). nullptr where none applies and the general rules decide.
const SpmmVariant* choose_small_gpu_spmm(const std::vector<const SpmmVariant*>& all,
                                         const KernelProblem& p, const SpmmShape& f) {
  if (p.k == 1 && !p.transposed && double(p.sparse.nnz) <= kGpuVdlSpmvEvenMaxNnz &&
      f.rows <= kGpuVdlSpmvEvenMaxRows && f.mean <= kGpuVdlSpmvMaxMean &&
      p.sparse.row_cv <= kGpuVdlSpmvEvenMaxCv &&
      double(p.sparse.row_max) <= kGpuVdlSpmvEvenMaxRowOverMean * f.mean)
    return first_applicable(all, {"cuda.spmm.vdl", "cuda.spmm.cusparse"}, p);
  if (f.skewed && f.small)
    return first_applicable(all, {"cuda.spmm.nnz_vsr", "cuda.spmm.cusparse"}, p);
  if (!p.transposed) {
    if (p.k > kGpuVdlMaxK && p.k <= kGpuSmallUnevenMaxK &&
        double(p.sparse.nnz) >= kGpuSpmmShortRowsMinNnz &&
        double(p.sparse.nnz) <= kGpuUnevenTransposedMaxNnz &&
        p.sparse.row_cv >= kGpuSmallUnevenMinCv && f.mean >= kGpuSmallUnevenMinMean)
      return first_applicable(all, {"cuda.spmm.nnz_vsr", "cuda.spmm.cusparse"}, p);
    return nullptr;
  }
  if (p.k > 1 && double(p.sparse.nnz) <= kGpuUnevenTransposedMaxNnz &&
      p.sparse.row_cv > kGpuUnevenTransposedCv && f.mean >= kGpuUnevenTransposedMinMean)
    return first_applicable(all, {"cuda.spmm.cusparse", "cuda.spmm.nnz_vsr"}, p);
  if (p.k > kGpuVdlWideMaxK && p.k <= kGpuVdlWideTransposedMaxK && f.few_long)
    return first_applicable(all, {"cuda.spmm.cusparse", "cuda.spmm.vdl"}, p);
  if (small_transpose_of_few_rows(p))
    return first_applicable(all, {"cuda.spmm.cusparse", "cuda.spmm.row_csc"}, p);
  return nullptr;
}

// S·B at K <= 4 on few long rows: cuda.spmm.vdl's team kernel (fewer than 4096 rows of mean >= 64,
// a team of 32-256 lanes per row, every (column, value) pair of a step requested at once),
// measured on an H100 (2026-11-25, docs/benchmarks/checks/vdl-team): over the 59 DLMC rn50 layers,
// nips, the SuiteSparse files and six generated matrices it ran 1.12-1.17x the warp-per-row
// kernel's time at K = 1-4 and was at least 0.98x the best other variant wherever rows are
// not skewed (DLMC 0.5 at K = 4: 6.8 µs against cuSPARSE's 17.1; nips K = 1: 1.01x, K = 4: 1.64x
// over panel). Out of sample on six more generated matrices (banded, clustered, uniform; 800-4000
// rows of mean 70-1000): 1.01-1.26x the best other at K = 1, 1.17-1.58x at K = 2 and 4. Those rows
// were even (cv <= 0.25); on skewed ones (power-law, cv 4.8-4.9) it ran 0.24-0.67x cuSPARSE, and
// rows in between (MovieLens 100K's users, cv 0.95) are unmeasured, hence the cv bound. The rule
// comes before panel's: on 3000 rows of 1000 (3M nonzeros, two panels) vdl took 0.024 ms at K = 2
// against nnz_vsr's 0.035 and more for panel.
constexpr int kGpuVdlTeamMaxK = 4;
constexpr double kGpuVdlTeamMaxRows = 4096.0;
constexpr double kGpuVdlTeamMinMean = 64.0;
constexpr double kGpuVdlTeamMaxCv = 0.5;
bool vdl_team_pays(const KernelProblem& p) {
  return !p.transposed && p.k <= kGpuVdlTeamMaxK && double(p.sparse.rows) < kGpuVdlTeamMaxRows &&
         p.sparse.row_mean >= kGpuVdlTeamMinMean && p.sparse.row_cv <= kGpuVdlTeamMaxCv;
}

// Sᵀ·B whose B (S's rows x K, here Sᵀ's columns x K) outgrows L2, on transposes of very long rows:
// nnz_vsr, which the plan then runs slice by slice of S's rows so the gathers of B stay in L2
// (kernels/registry.cpp, SlicedTransposePlan; docs/benchmarks/checks/sliced-transpose, H200,
// 2026-11-26). netflix's transpose (17770 rows of 5655) at K = 128, 256, 512: sliced nnz_vsr 7.06,
// 14.36, 34.2 ms against row_split's 11.07, 20.81, 40.47 unsliced (row_split sliced: 8.2, 18.7,
// 52.3). ml-20m's (rows of 748) gained only 0.97-1.12x from the switch then and kept row_split;
// nytimes's transposes already ran nnz_vsr and are sliced too (1.14-1.47x at K = 128-512). Out of
// sample (same H200): even transposes (uniform 2M x 20000, clustered 1M x 10000; cv < 0.5) ran
// sliced nnz_vsr at 0.84-1.29x cuSPARSE against row_csc's 1.20-1.56x, and worst with 60-120 slices
// (each run of nnz_vsr has a fixed cost), so the rule keeps to uneven rows (netflix: cv 0.97), as
// row_split's transposed rule does, and to products the plan does slice (transposed_slices.hpp:
// at most 64 slices), with the device's L2 as the plan slices (KernelProblem::gpu_l2_bytes; the
// H100/H200's 50 MiB when not known).
// From K = 64 since 2026-11-26 (H100, docs/benchmarks/checks/nnz-vsr-chunks-h100): sliced nnz_vsr
// against row_split, the pick before, on netflix 1.36x (1.035x on the H200 in the 22dff74 report)
// and on the three power-law transposes of the out-of-sample set 1.19x, 0.99x and 1.13x.
// Rows of mean 700 and up since 2026-11-26 (1000 before; H100, docs/benchmarks/checks/
// sliced-transpose): since nnz_vsr's chunks shrink, sliced nnz_vsr beat row_split on ml-20m at
// K = 128 and 256 by 1.14x and 1.11x (1.13x and 1.07x on the H200 report of 66efd42; 1.03x and
// 0.98x at K = 512), and out of sample on three generated ratings transposes of rows of 733-900 by
// 1.07-1.57x on all 10 problems that moved (K = 64-512).
// Even rows too (cv < 0.5) from K = 256 on at least 10000 transposed rows since 2026-11-27 (H100,
// docs/benchmarks/checks/sliced-even-transposes): since nnz_vsr's chunks shrink, sliced nnz_vsr
// beat row_csc, the pick before, 1.34-1.51x on uniform and clustered transposes of 10000-40000
// rows of 1000-2000 at K = 256 and 512 (eight problems); not on 5000 rows (0.80-0.92x), nor where
// the plan does not slice (over 64 slices: 0.92-0.94x), nor at K = 64-128 (0.66-1.64x).
constexpr int kGpuSlicedTransposedMinK = 64;
constexpr double kGpuSlicedTransposedMinMean = 700.0;
constexpr int kGpuSlicedEvenTransposedMinK = 256;
constexpr double kGpuSlicedEvenTransposedMinRows = 10000.0;
bool sliced_nnz_vsr_pays(const KernelProblem& p) {
  // The rules see Sᵀ: its columns are S's rows, the rows of B.
  const bool uneven = p.sparse.row_cv >= kGpuRowSplitTransposedMinCv;
  const bool even_wide = p.k >= kGpuSlicedEvenTransposedMinK &&
                         double(p.sparse.rows) >= kGpuSlicedEvenTransposedMinRows;
  return p.transposed && p.k >= kGpuSlicedTransposedMinK &&
         p.sparse.row_mean >= kGpuSlicedTransposedMinMean && (uneven || even_wide) &&
         p.sparse.row_cv <= kGpuSkewRowCv &&
         transposed_slice_rows(p.sparse.cols, p.k, p.sparse.row_mean, gpu_l2_bytes(p)) > 0;
}

// S·B at 256 < K <= 512 on 1000-8192 rows of mean <= 100 whose consecutive rows share columns
// (neighbour_share >= 0.3: banded, clustered, meshes): row_csc, whose rows run with their K tiles
// across the grid there (kernels/cuda/spmm_row_csc.cu: fewer rows than fill the GPU) and whose
// groups of neighbouring rows hit one another's rows of B in L1. H100, 2026-11-26
// (docs/benchmarks/checks/local-rows-k512): on six generated banded and clustered matrices of
// 1000-7000 rows (set A) row_csc was the fastest or within 8% at K = 300, 512 and 1024, cuSPARSE,
// which auto ran, 1.04-1.89x slower; bcsstk13 (neighbour share 0.61) ran it 1.26-1.27x faster than
// cuSPARSE at K = 512 (checks/row-csc-tiles and the H200 report of bcde07e). At K = 1024 the
// banded matrix of 1000 rows of 100 ran cuSPARSE 1.08x faster, uniform columns (share 0.01) ran
// cuSPARSE as fast or faster, and few-row DLMC layers ran row_csc 1.2-3.6x slower than the best
// at K = 512, hence the bounds.
constexpr int kGpuLocalRowsCscMinK = 257;
constexpr int kGpuLocalRowsCscMaxK = 512;
constexpr double kGpuLocalRowsCscMinRows = 1000.0;
constexpr double kGpuLocalRowsCscMaxRows = 8192.0;  // row_csc's tiles in the grid on an H100/H200
constexpr double kGpuLocalRowsCscMaxMean = 100.0;
constexpr double kGpuLocalRowsCscMinShare = 0.3;
bool row_csc_local_rows_pays(const KernelProblem& p) {
  const double rows = double(p.sparse.rows);
  return !p.transposed && p.k >= kGpuLocalRowsCscMinK && p.k <= kGpuLocalRowsCscMaxK &&
         rows >= kGpuLocalRowsCscMinRows && rows <= kGpuLocalRowsCscMaxRows &&
         p.sparse.row_mean <= kGpuLocalRowsCscMaxMean &&
         p.sparse.neighbour_share >= kGpuLocalRowsCscMinShare &&
         double(p.sparse.row_max) < kGpuVdlMaxRowOverMean * p.sparse.row_mean;
}

// Medium matrices (100K to 4.3M nonzeros) whose longest row is at least 6 means: nnz_vsr, S·B and
// Sᵀ·B, any K > 1. Since its chunks shrink until its warps fill the GPU (7ab95a8; from 4.3M
// nonzeros = 512 x 64 warps x 132 SMs they are whole) nnz_vsr has no fixed cost left, and its equal
// chunks do not wait on the longest row as the row kernels do. The rules before this one were
// fitted when it cost 70-80 us a call, and sent such matrices to vdl, row_csc or cuSPARSE. Refit on
// an H100, 2026-11-26 (docs/benchmarks/checks/short-rows-refit; `auto` within 10% of the best of
// nnz_vsr, row_csc, row_split, vdl and cuSPARSE):
// * in sample (181 problems: run.sh's real files and medium generated ones, run2.sh's 20 uneven
//   ones): the UCI kos corpus's transpose ran nnz_vsr 1.31-2.36x faster than cuSPARSE, which the
//   small-uneven-transpose rule gave it, MovieLens 100K's 1.25-2.33x and its users
//   (S·B) 1.23-1.54x, nips's transpose at K = 32-64 1.26-1.58x (the few-rows transposed rule, now
//   gone, gave it cuSPARSE), and generated power-law matrices 1.2-4.5x faster than the vdl and
//   row_csc picks;
// * out of sample (run3.sh: eight generated matrices and four DLMC layers, 139 problems): within
//   10% of the best on 121, against 66 with the rules before; 1.49x cuSPARSE in geometric mean
//   against 1.08x (the old picks' worst, row_csc on a power-law 50K x 30K S·B at K = 32: 0.09x).
//   Its misses: S·B of many rows of mean 30 (power-law 50K and 100K rows, 1.5-3M nonzeros) at
//   K = 16-64, where cuSPARSE ran 1.2-1.7x faster (0.59x at worst), a DLMC layer at K = 256 (1.35x)
//   and a clustered transpose of longest 6.6 means at K <= 32, where vdl ran 1.2-1.25x faster.
// Below 100K nonzeros, from a longest row of 15 means (H200, session 41,
// docs/benchmarks/checks/session-41, uneven.csv.gz): fourteen generated power-law matrices of
// 40K-99K nonzeros, rows of mean 1.65-12.5, row cv 0.5-2.8 (under the skewed rule's 4), longest row
// 17-200 means, none seen by a rule before, ran nnz_vsr within 10% of the fastest variant on 192
// of 210 problems (K = 1-256, S·B and Sᵀ·B); the rules gave S·B to cuSPARSE, row_csc and vdl, 0.83x
// cuSPARSE in geometric mean and within 10% on 15 of 105, up to 8.5x behind nnz_vsr. hep-th
// (longest 13 means) and session 40's 80K power law of longest 13.5 means keep their picks:
// nnz_vsr ran 1.1-1.5x behind the best on hep-th, up to 1.23x on the other. Out of sample (ten
// more, oos.csv.gz, `auto` measured): S·B 0.94x -> 1.41x cuSPARSE, within 10% of the best on 23 ->
// 60 of 70; Sᵀ·B 1.49x -> 1.72x, 36 -> 61. Its misses: vdl 1.1-1.3x ahead at K <= 16 on rows of
// 15.4 means, cuSPARSE 1.05-1.21x ahead at K >= 128 on 5000 rows of 6, and nnz_vsr 1.1-1.4x ahead at
// K >= 64 on two matrices under the bound (10.3 and 14.7 means).
constexpr double kGpuNnzVsrWholeChunksNnz = 4.3e6;
constexpr double kGpuUnevenLongestOverMean = 6.0;
constexpr int kGpuUnevenVendorMinK = 16;
constexpr int kGpuUnevenVendorMaxK = 64;
constexpr double kGpuUnevenVendorMinNnz = 1e6;
constexpr double kGpuUnevenVendorMinMean = 20.0;
bool uneven_nnz_vsr_pays(const KernelProblem& p) {
  const double nnz = double(p.sparse.nnz);
  const double longest_over_mean = nnz >= kGpuSpmmShortRowsMinNnz
                                       ? kGpuUnevenLongestOverMean
                                       : kGpuUnevenSmallLongestOverMean;
  return (p.k > 1 || nnz < kGpuSpmmShortRowsMinNnz) && nnz < kGpuNnzVsrWholeChunksNnz &&
         double(p.sparse.row_max) >= longest_over_mean * p.sparse.row_mean;
}
// ... except S·B at K = 16-64 on a million nonzeros or more in rows of mean >= 20: cuSPARSE, whose
// row split gains on such rows while nnz_vsr pays its segment sums. H200, session 41
// (checks/session-41/medium.csv.gz): power-law 50K x 20K of 1.5M (mean 30) and 80K x 5K of 2M
// (mean 25) ran cuSPARSE 1.4-1.8x faster than nnz_vsr at K = 16-64 (not at 128-256); the same
// miss the H100 refit's held-out set recorded (short-rows-refit oos3: mean 30, 1.5-3M nonzeros,
// 1.2-1.7x). Replayed: medium S·B 1.30x -> 1.33x cuSPARSE, 80 -> 85 of 98 within 10%; oos3 1.30x
// -> 1.34x, 61 -> 66 of 72. A power law of 400K nonzeros in rows of 40 kept nnz_vsr (within 2%).
bool uneven_vendor_pays(const KernelProblem& p) {
  return !p.transposed && p.k >= kGpuUnevenVendorMinK && p.k <= kGpuUnevenVendorMaxK &&
         double(p.sparse.nnz) >= kGpuUnevenVendorMinNnz &&
         p.sparse.row_mean >= kGpuUnevenVendorMinMean;
}

// Sᵀ·B at K >= 256 that the rules give nnz_vsr, on 200K-5M nonzeros: cuSPARSE's non-transposed
// CSR_ALG3 on the plan's cached transpose (cuda.spmm.cusparse_on_transpose). H100, 2026-11-27
// (docs/benchmarks/checks/vendor-on-transpose): on the report's twelve matrices and sixteen more
// (DLMC layers, kos, MovieLens 100K, generated), the ten such problems ran it faster than nnz_vsr
// and than every other variant: DLMC final_dense 1.14x and 1.50x at K = 256 and 512, group4_2_1
// 1.03x and 1.15x, nips 1.01x and 1.12x, kos 1.08x and 1.07x, a power-law 100K x 20K of 4M 1.17x
// and 1.56x. Below 200K nonzeros its fixed cost loses (MovieLens 100K at K = 256: 0.71x); above 5M
// (ml-20m, nytimes, netflix, the 1M x 1M power law) nnz_vsr, sliced where B outgrows L2, stays
// ahead or even (0.59-1.02x at K = 256-512). Held out (nine matrices, 18 problems): 1.12x over
// nnz_vsr in geometric mean, 0.92-1.79x (all of K = 512 faster, three of nine at K = 256 slower by
// 4-8%), within 10% of the fastest variant on 17. Transposed rows of mean >= 30 only, the shortest
// measured: fk-lda on the nytimes corpus (K = 256; minibatch transposes of 102660 rows of about 9)
// ran 1.01x slower per pass with it than with nnz_vsr (H100, 0.2040-0.2054 against 0.2023-0.2025 s,
// two alternating rounds).
constexpr int kGpuVendorOnTransposeMinK = 256;
constexpr double kGpuVendorOnTransposeMinNnz = 2e5;
constexpr double kGpuVendorOnTransposeMaxNnz = 5e6;
constexpr double kGpuVendorOnTransposeMinMean = 30.0;
bool vendor_on_wide_transpose_pays(const KernelProblem& p, const SpmmVariant& pick) {
  const double nnz = double(p.sparse.nnz);
  return p.transposed && p.k >= kGpuVendorOnTransposeMinK && nnz >= kGpuVendorOnTransposeMinNnz &&
         nnz <= kGpuVendorOnTransposeMaxNnz && p.sparse.row_mean >= kGpuVendorOnTransposeMinMean &&
         std::string(pick.name()) == "cuda.spmm.nnz_vsr";
}

// And at K = 32-64 on large transposes of long, not uniform rows (at least 4M nonzeros, rows of
// mean >= 100, cv >= 0.1), whatever the rules gave (probably since ALG3's 32-column slices keep
// more hot rows of B in L1 than our whole-row gathers, as ncu showed for S·B in
// checks/large-l2-ncu; not profiled here). In the same runs: ml-20m's transpose 1.08x and 1.14x the
// pick (row_split) at K = 32 and 64, nytimes's 1.13x and 1.06x, netflix's 1.04x and 1.03x,
// generated power-law and clustered transposes of 4M-30M nonzeros 1.01-1.38x; uniform ones (cv
// 0.03) 0.92-1.05x, the 1M x 1M power law's rows of 20 0.70-0.93x, and from K = 128 it lost on most
// (0.64-0.95x). Held out (six generated power-law and clustered transposes of 6M-40M nonzeros, 12
// problems): 1.11x the picks before (vdl, nnz_vsr) in geometric mean, 0.82-1.43x, within 10% of the
// fastest variant on 10 of 12 (7 before).
constexpr int kGpuVendorOnLargeTransposeMinK = 32;
constexpr int kGpuVendorOnLargeTransposeMaxK = 64;
constexpr double kGpuVendorOnLargeTransposeMinNnz = 4e6;
constexpr double kGpuVendorOnLargeTransposeMinMean = 100.0;
constexpr double kGpuVendorOnLargeTransposeMinCv = 0.1;
constexpr double kGpuVendorOnLargeTransposeMaxDensity = 0.05;  // dense-ish ones: the dense rules
// ... and on medium transposes (500K-4M nonzeros) of at least 10000 rows of mean >= 12. H200,
// session 41 (checks/session-41, medium.csv.gz and oos2.csv.gz: 26 generated matrices; 17 such
// transposes): cuSPARSE on the cached transpose within 1.01x of the fastest variant on 16 of 17 at
// K = 32 and 14 of 17 at K = 64 (worst 1.10x), where the rules' picks (nnz_vsr, row_csc) ran up
// to 2.2x behind. Not at K = 16 or 128 (1.0-1.4x behind there), nor on the few long rows of a
// 5000-row transpose (1.3-1.5x behind row_split and vdl), nor on banded transposes (cv 0.11: the
// H100's checks/vendor-on-transpose measured a banded 50K x 50K of 2M 1.31-1.67x behind row_csc),
// hence a cv of 0.15. nips (749K nonzeros, 12419 words of 60) falls in it: 1.00-1.08x faster
// than nnz_vsr at K = 32-64 in the bf43c74 report and on the H100.
constexpr double kGpuVendorOnMediumTransposeMinCv = 0.15;
constexpr double kGpuVendorOnMediumTransposeMinNnz = 5e5;
constexpr double kGpuVendorOnMediumTransposeMinMean = 12.0;
constexpr double kGpuVendorOnMediumTransposeMinRows = 10000.0;
bool vendor_on_large_transpose_pays(const KernelProblem& p) {
  if (!p.transposed || p.k < kGpuVendorOnLargeTransposeMinK ||
      p.k > kGpuVendorOnLargeTransposeMaxK ||
      p.sparse.density > kGpuVendorOnLargeTransposeMaxDensity)
    return false;
  const double nnz = double(p.sparse.nnz);
  if (nnz >= kGpuVendorOnLargeTransposeMinNnz)
    return p.sparse.row_mean >= kGpuVendorOnLargeTransposeMinMean &&
           p.sparse.row_cv >= kGpuVendorOnLargeTransposeMinCv;
  return nnz >= kGpuVendorOnMediumTransposeMinNnz &&
         p.sparse.row_mean >= kGpuVendorOnMediumTransposeMinMean &&
         p.sparse.row_cv >= kGpuVendorOnMediumTransposeMinCv &&
         double(p.sparse.rows) >= kGpuVendorOnMediumTransposeMinRows;
}

const SpmmVariant* choose_gpu_spmm_by_shape(const std::vector<const SpmmVariant*>& all,
                                            const KernelProblem& p);

// Tensor-core picks first (low precision, column-vector structure), then the shape rules, then
// the two vendor-on-transpose rules above, which may replace the shape rules' pick for Sᵀ·B.
const SpmmVariant* choose_gpu_spmm(const std::vector<const SpmmVariant*>& all,
                                   const KernelProblem& p) {
  if (const SpmmVariant* tc = tensor_core_pick(all, "spmm", p)) return tc;
  const SpmmVariant* v = choose_gpu_spmm_by_shape(all, p);
  if (v && (vendor_on_wide_transpose_pays(p, *v) || vendor_on_large_transpose_pays(p)))
    if (const SpmmVariant* w = first_applicable(all, {"cuda.spmm.cusparse_on_transpose"}, p))
      return w;
  return v;
}

// The fp32 rules by the shape of S (or Sᵀ); choose_gpu_spmm has taken the tensor-core picks.
const SpmmVariant* choose_gpu_spmm_by_shape(const std::vector<const SpmmVariant*>& all,
                                            const KernelProblem& p) {
  if (vdl_team_pays(p))
    if (const SpmmVariant* v = first_applicable(all, {"cuda.spmm.vdl"}, p)) return v;
  if (const SpmmVariant* v = choose_transposed_narrow(all, p)) return v;
  if (row_split_transposed_k32_pays(p))
    if (const SpmmVariant* v = first_applicable(all, {"cuda.spmm.row_split"}, p)) return v;
  if (sliced_nnz_vsr_pays(p))
    if (const SpmmVariant* v = first_applicable(all, {"cuda.spmm.nnz_vsr"}, p)) return v;
  // S·B: row_split before dense (it won on the DLMC 0.5 layer up to K = 128); Sᵀ·B: dense first,
  // except on small transposes of few rows.
  const bool row_split = row_split_pays(p);
  if ((row_split && !p.transposed) || row_split_small_transpose_pays(p))
    if (const SpmmVariant* v = first_applicable(all, {"cuda.spmm.row_split"}, p)) return v;
  if (row_csc_local_rows_pays(p))
    if (const SpmmVariant* v = first_applicable(all, {"cuda.spmm.row_csc"}, p)) return v;
  // Before dense, whose rule for Sᵀ·B on transposes of long rows stood for row kernels waiting on
  // them (nnz_vsr does not: DLMC bottleneck_2_block_group4_2_1's transpose, longest 8.3 means, ran
  // nnz_vsr 1.08-1.43x faster than dense at K = 64-512, H100, h100-4c0764c and
  // checks/short-rows-refit).
  // Likewise long transposed rows whose values the kernels read through the permutation.
  const bool read_through = double(p.sparse.nnz) <= kGpuTransposedNarrowMaxNnz;
  if ((uneven_nnz_vsr_pays(p) || (long_transposed_rows(p) && read_through)) && !panel_pays(p))
    return first_applicable(
        all,
        {uneven_vendor_pays(p) ? "cuda.spmm.cusparse" : "cuda.spmm.nnz_vsr", "cuda.spmm.cusparse"},
        p);
  if (const SpmmVariant* v = choose_few_row_dense_ish_transpose(all, p)) return v;
  if (const SpmmVariant* v = choose_many_row_dense_transpose(all, p)) return v;
  if (dense_spmm_pays(p))
    if (const SpmmVariant* v = first_applicable(all, {"cuda.spmm.dense"}, p)) return v;
  if (row_split || row_split_wide_pays(p))
    if (const SpmmVariant* v = first_applicable(all, {"cuda.spmm.row_split"}, p)) return v;
  // The even long transposes that row_split leaves: vdl up to K = 64, row_csc above.
  if (p.transposed && p.k >= kGpuRowSplitTransposedMinK &&
      double(p.sparse.rows) <= kGpuRowSplitTransposedMaxRows &&
      p.sparse.row_mean >= kGpuRowSplitTransposedMinMean &&
      p.sparse.row_cv < kGpuRowSplitTransposedMinCv)
    return first_applicable(
        all,
        {p.k <= kGpuVdlWideTransposedMaxK ? "cuda.spmm.vdl" : "cuda.spmm.row_csc",
         "cuda.spmm.row_csc"},
        p);
  SpmmShape f;
  f.rows = double(p.sparse.rows);
  f.mean = p.sparse.row_mean;
  f.small = double(p.sparse.nnz) <= kGpuSmallNnz;
  f.skewed = p.sparse.row_cv > kGpuSkewRowCv;
  f.bounded_longest = double(p.sparse.row_max) <= kGpuVdlMaxRowOverMean * f.mean;
  f.few_long = f.rows < kGpuFewRows &&
               f.mean >= (p.k <= kGpuVdlMaxK ? kGpuFewRowsLongNarrow : kGpuFewRowsLongWide);
  const double rows = f.rows, mean = f.mean;
  if (panel_pays(p))
    if (const SpmmVariant* v = first_applicable(all, {"cuda.spmm.panel"}, p)) return v;
  if (const SpmmVariant* v = choose_small_gpu_spmm(all, p, f)) return v;
  if (p.k == 1 && p.transposed && values_gathered_windowed(p) &&
      mean >= kGpuTransposedSpmvLongRows)
    return first_applicable(all, {"cuda.spmm.nnz_vsr", "cuda.spmm.cusparse"}, p);
  if (p.k == 1 && (!f.skewed || !p.transposed))
    return first_applicable(all, {"cuda.spmm.cusparse", "cuda.spmm.nnz_vsr"}, p);
  if (p.transposed && p.k > kGpuVdlMaxK && p.k <= kGpuVdlWideTransposedMaxK &&
      ((rows < kGpuVdlWideTransposedFewRowsUneven && mean >= kGpuVdlWideMinMean) ||
       (rows < kGpuVdlWideTransposedFewRows && p.sparse.row_cv <= kGpuTransposedEvenCv) ||
       (rows >= kGpuVdlWideTransposedManyRows && mean >= kGpuVdlWideTransposedManyMinMean &&
        p.k <= kGpuVdlWideMaxK)))
    return first_applicable(all, {"cuda.spmm.vdl", "cuda.spmm.nnz_vsr"}, p);
  if (f.skewed) return first_applicable(all, {"cuda.spmm.nnz_vsr", "cuda.spmm.cusparse"}, p);
  const double nnz = double(p.sparse.nnz);
  if (!p.transposed && nnz >= kGpuSpmmShortRowsMinNnz && p.k > kGpuVdlMaxK &&
      p.k <= kGpuSpmmVeryShortMaxK && mean <= kGpuSpmmVeryShortRows &&
      (p.k > kGpuSpmmVeryShortLocalMaxK ||
       (p.sparse.col_span >= kGpuLocalColumnSpan && (p.k > kGpuVdlWideMaxK || !f.small))))
    return first_applicable(all, {"cuda.spmm.nnz_vsr", "cuda.spmm.row_csc"}, p);
  if (!p.transposed && nnz < kGpuSpmmShortRowsMinNnz && p.k > kGpuVdlMaxK &&
      p.k <= kGpuSpmmTinyRowsMaxK && mean < kGpuSpmmTinyRows &&
      p.sparse.col_span >= kGpuLocalColumnSpan) {
    if (p.k > kGpuVdlWideMaxK && f.bounded_longest)
      return first_applicable(all, {"cuda.spmm.row_csc", "cuda.spmm.cusparse"}, p);
    return first_applicable(all, {"cuda.spmm.cusparse", "cuda.spmm.row_csc"}, p);
  }
  if (p.transposed) {
    const bool even = p.sparse.row_cv <= kGpuTransposedEvenCv;
    if (p.k <= kGpuVdlMaxK)
      return first_applicable(
          all, {even ? "cuda.spmm.vdl" : "cuda.spmm.nnz_vsr", "cuda.spmm.nnz_vsr"}, p);
    if (even && p.k >= kGpuTransposedVeryShortMinK && p.k <= kGpuSpmmVeryShortMaxK &&
        mean <= kGpuSpmmVeryShortRows && nnz >= kGpuSpmmShortRowsMinNnz)
      return first_applicable(all, {"cuda.spmm.nnz_vsr", "cuda.spmm.row_csc"}, p);
    if (even && (mean <= kGpuTransposedShortRows || rows <= kGpuTransposedLongEvenMaxRows))
      return first_applicable(all, {"cuda.spmm.row_csc", "cuda.spmm.nnz_vsr"}, p);
    return first_applicable(all, {"cuda.spmm.nnz_vsr", "cuda.spmm.cusparse"}, p);
  }
  if (p.k <= kGpuVdlMaxK && f.few_long)
    return first_applicable(all, {"cuda.spmm.cusparse", "cuda.spmm.vdl"}, p);
  if (p.k <= kGpuVdlMaxK) return first_applicable(all, {"cuda.spmm.vdl", "cuda.spmm.cusparse"}, p);
  const bool few_rows = rows < kGpuVdlWideMaxRows;
  if (p.k <= kGpuVdlWideMaxK && few_rows &&
      ((rows >= kGpuVdlWideMinRows && mean >= kGpuVdlWideMinMean) ||
       (f.small && mean <= kGpuVdlWideSmallMaxMean && f.bounded_longest)))
    return first_applicable(all, {"cuda.spmm.vdl", "cuda.spmm.cusparse"}, p);
  if (mean <= kGpuSpmmShortRows && !(f.small && few_rows))
    return first_applicable(all, {"cuda.spmm.row_csc", "cuda.spmm.cusparse"}, p);
  return first_applicable(all, {"cuda.spmm.cusparse", "cuda.spmm.row_csc"}, p);
}

}  // namespace

// A K that is not a multiple of 4 rules out 16-byte loads of the dense rows (row r starts 4·K·r
// bytes in), so every GPU kernel falls back to narrower loads. H100, 2026-11-26
// (docs/benchmarks/checks/odd-k, run.sh): `auto` ran 1.2-1.9x slower at K = 49-50 and 65 than at
// K = 52 and 68 on kos, nips, MovieLens 100K and a uniform 500K x 17770 matrix of 20M nonzeros,
// and SDDMM at K = 257 1.6x slower than at 260 (cuSPARSE's SpMM lost 1.1-1.5x there too). LDA and
// GaP run such K (kos and nips: 50 topics); ALS and SFA store their factors padded to a multiple
// of 4 already (apps/common/padded.hpp), which this does for every caller. So `auto` may run
// the next multiple of 4 on zero-padded copies of the dense operands (kernels/registry.cpp), which
// costs two copy kernels a run, each moving rows x K floats:
// * run2.sh (those four matrices): SDDMM 1.1-1.35x faster at K = 49-257 (one 0.97x), Sᵀ·B
//   1.0-1.23x at K = 49-65 (0.96x at 257); S·B not, whose copy of C is as large as the kernel's
//   own output and whose large problems run cuSPARSE, which loses less at odd K (0.82-1.23x); nor
//   MovieLens 100K (100K nonzeros: 0.8-0.9x), where the copy kernels' fixed cost decides. Hence
//   SDDMM at any K >= 5 and Sᵀ·B at 5 <= K < 128, from 1e7 nonzeros x K.
// * run3.sh, out of sample (five more matrices, 45 problems): 1.13x in geometric mean, 0.68-2.11x
//   (ml-20m's Sᵀ·B 1.8-2.1x, its SDDMM 1.1-1.8x); every problem of a clustered 200K x 200K of 1M
//   nonzeros lost (0.68-0.87x): 2.5 nonzeros per row of A, B or C, so the copies move about as many
//   bytes as the kernel. The rule now also asks for nonzeros >= 10 x (rows + columns) (in sample:
//   set on run3.sh's rows; the other matrices have 14-121).
constexpr double kGpuPadWidthMinWork = 1e7;        // nonzeros x K
constexpr double kGpuPadWidthMinNnzPerRow = 10.0;  // nonzeros / (rows + columns)
constexpr int kGpuPadWidthTransposedMaxK = 128;
bool pads_width(DeviceKind device, const KernelProblem& p) {
  const double nnz = double(p.sparse.nnz), lines = double(p.sparse.rows) + double(p.sparse.cols);
  return device == DeviceKind::kGpu && p.precision == Precision::kF32 && p.k >= 5 && p.k % 4 != 0 &&
         nnz * double(p.k) >= kGpuPadWidthMinWork && nnz >= kGpuPadWidthMinNnzPerRow * lines;
}
int auto_sddmm_width(DeviceKind device, const KernelProblem& p) {
  return pads_width(device, p) ? (p.k + 3) / 4 * 4 : p.k;
}
int auto_spmm_width(DeviceKind device, const KernelProblem& p) {
  return pads_width(device, p) && p.transposed && p.k < kGpuPadWidthTransposedMaxK
             ? (p.k + 3) / 4 * 4
             : p.k;
}

const SddmmVariant& choose_sddmm_variant(DeviceKind device, const KernelProblem& p) {
  const auto& all = sddmm_variants();
  const SddmmVariant* v = nullptr;
  if (device == DeviceKind::kGpu) {
    v = choose_gpu_sddmm(all, p);
  } else {
    // omp.sddmm.aspt everywhere: it tiles only panels whose B rows overflow L2 and is otherwise a
    // row-wise kernel with register-blocked dot products and long rows split across threads, at
    // least as fast as omp.sddmm.rows on every measured matrix (cpu-notes.md, "SDDMM").
    v = first_applicable(all, {"omp.sddmm.aspt", "omp.sddmm.rows", "ref.sddmm"}, p);
  }
  FK_CHECK(v != nullptr, "no SDDMM variant applies on the " << to_string(device));
  return *v;
}

const SpmmVariant& choose_spmm_variant(DeviceKind device, const KernelProblem& p) {
  const auto& all = spmm_variants();
  const SpmmVariant* v = nullptr;
  if (device == DeviceKind::kGpu) {
    v = choose_gpu_spmm(all, p);
  } else {
    // cpu-notes.md, "SpMM": skewed rows -> nonzero-balanced parts; Sᵀ·B too, since the rules
    // only know S's row statistics, not those of Sᵀ's rows (S's columns), and nnz_balanced is
    // within a few percent of omp.spmm.rows when rows are even. Everything else -> ASpT: it tiles
    // the panels whose B rows overflow the cache and runs the others through a lean row path
    // that is as fast as omp.spmm.rows on large problems and faster on small ones.
    if (cpu_spmm_skewed(p) || p.transposed)
      v = first_applicable(all, {"omp.spmm.nnz_balanced", "omp.spmm.rows", "ref.spmm"}, p);
    else
      v = first_applicable(all, {"omp.spmm.aspt", "omp.spmm.rows", "ref.spmm"}, p);
  }
  FK_CHECK(v != nullptr, "no SpMM variant applies on the " << to_string(device));
  return *v;
}

// The fused ratio SpMM (and its product and residual forms, which share these rules and plans):
// it reads each B row once where the SDDMM → divide → SpMM pair reads it twice and passes over the
// nonzeros three times (docs/benchmarks/ratio-spmm.md; the product form checked against the rules
// in docs/benchmarks/checks/product-spmm). On the GPU
// (kernels/cuda/ratio_spmm_fused.cu) it runs wherever it applies (K <= 1024). Four rules that sent
// some shapes to the pair (by row mean and nonzeros, by the size of B, by row count, and small
// skewed matrices at K <= 32) each failed on shapes they were not fitted on (the last: 1.064x the
// faster of the two in geometric mean on held-out check 4, where always fused was 1.030x). Since
// the kernel's chains shorten on small problems it was faster than the pair on all 180 cases of
// the held-out checks' 18 matrices, both ways, at K = 16-256 (0.66x in geometric mean, the slowest
// 0.99x: the set the chain length was chosen on), and on ten new matrices at K = 16-128 0.64x, the
// slowest 1.04x (80 cases; H100, docs/benchmarks/ratio-spmm.md).
// On the CPU (2 cores; docs/benchmarks/ratio-spmm.md) the fused rows pay from K = 64 on rows of
// any length or skew, and from K = 48 on rows of mean >= 100 that are not skewed. Over all the
// CPU measurements (LDA corpora and minibatches and their transposes, ml-100k, uniform,
// clustered, power-law, banded and DLMC matrices): 0.99-1.76x the pair at K >= 128 (23 cases),
// 0.92-1.45x at K = 64-100 (37), 0.78-1.26x at K <= 32 (18). The first rule (K >= 48 on rows of
// mean >= 100, not skewed, fitted on untransposed shapes only) sent the transposes of the LDA
// corpora to the pair, up to 1.54x slower. Checked on 24 further cases after the change: auto
// within 6% of the faster everywhere.
constexpr int kCpuRatioMinK = 48;
constexpr int kCpuRatioAnyRowsMinK = 64;
constexpr double kCpuRatioMinRowMean = 100;

const RatioSpmmVariant* choose_ratio_spmm_variant(DeviceKind device, const KernelProblem& p) {
  const auto& all = ratio_spmm_variants();
  if (device == DeviceKind::kGpu) {
    return first_applicable(all, {"cuda.ratio_spmm.fused"}, p);
  }
  const bool any_rows = p.k >= kCpuRatioAnyRowsMinK;
  const bool long_even_rows = p.k >= kCpuRatioMinK && p.sparse.row_mean >= kCpuRatioMinRowMean &&
                              !cpu_spmm_skewed(p);
  if (!any_rows && !long_even_rows) return nullptr;
  return first_applicable(all, {"omp.ratio_spmm.rows"}, p);
}

}  // namespace fk
