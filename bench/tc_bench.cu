// tc_bench: the benchmark of issue 8. Times the half-precision tensor-core column-vector SpMM and
// SDDMM (kernels/cuda/tc_vector.hpp; Chen et al., SC'21) against cuBLAS dense half GEMM on the
// dense equivalent, cuSPARSE Blocked-ELL SpMM and our own fp32 kernels behind `auto`, and checks
// the tensor-core results against the CPU. One CSV row per (op, matrix, V, K, contender); see
// --help.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/device_buffer.hpp"
#include "core/generate/sparse.hpp"
#include "core/half.hpp"
#include "core/io/csv.hpp"
#include "core/io/smtx.hpp"
#include "core/random.hpp"
#include "core/timer.hpp"
#include "core/vector_csr.hpp"
#include "kernels/cuda/tc_vector.hpp"
#include "kernels/tc_steps.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace po = boost::program_options;
using fk::HalfBits;
using fk::Precision;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Options {
  std::vector<std::string> matrices;
  std::vector<int> vs{2, 4, 8};
  std::vector<int> ks{64, 128, 256};
  Precision precision = Precision::kF16;
  int runs = 30, warmup = 5;
  bool spmm = true, sddmm = true;
  std::string csv, commit;
  bool allow_no_gpu = false;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<int> parse_ints(const std::string& text, const char* option) {
  std::vector<int> out;
  for (const std::string& item : split_list(text)) {
    std::size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    FK_CHECK(used == item.size() && value > 0,
             "--" << option << ": '" << item << "' is not a positive integer");
    out.push_back(value);
  }
  FK_CHECK(!out.empty(), "--" << option << " needs at least one value");
  return out;
}

std::int64_t round_up(std::int64_t x, std::int64_t to) { return (x + to - 1) / to * to; }

// ---- the matrices -------------------------------------------------------------------------------

std::filesystem::path data_root() {
  const char* env = std::getenv("FK_SHARED_DATA");
  return env && *env ? std::filesystem::path(env) : std::filesystem::path(FK_SHARED_DATA_DIR);
}

// Generated V x 1 matrices of n x n at each sparsity, and the DLMC ResNet-50 layers that exist:
// one 256 x 2304 layer at every pruning level and two larger 90% layers (the layers that
// scripts/device_pack.sh carries to the GPU machines).
std::vector<std::string> default_matrices(bool quick) {
  const std::int64_t n = quick ? 1024 : 4096;
  const std::vector<int> vs = quick ? std::vector<int>{4, 8} : std::vector<int>{2, 4, 8};
  const std::vector<double> sparsities =
      quick ? std::vector<double>{0.9} : std::vector<double>{0.5, 0.7, 0.8, 0.9, 0.95, 0.98};
  std::vector<std::string> out;
  for (const int v : vs)
    for (const double sp : sparsities) {
      // A multiple of V, so that the nonzeros fill whole vectors.
      const std::int64_t nnz = std::llround((1 - sp) * double(n) * double(n) / v) * v;
      std::ostringstream spec;
      spec << "vector:rows=" << n << ",cols=" << n << ",nnz=" << nnz << ",param=" << v << ",seed=1";
      out.push_back(spec.str());
    }
  const std::filesystem::path dir = data_root() / "dlmc/rn50/magnitude_pruning";
  std::vector<std::string> layers;
  if (quick) {
    layers = {"0.9/bottleneck_2_block_group3_1_1"};
  } else {
    for (const char* level : {"0.5", "0.7", "0.8", "0.9", "0.95", "0.98"})
      layers.push_back(std::string(level) + "/bottleneck_2_block_group3_1_1");
    layers.insert(layers.end(), {"0.9/bottleneck_2_block_group4_1_1", "0.9/final_dense"});
  }
  int missing = 0;
  for (const std::string& layer : layers) {
    const std::filesystem::path file = dir / (layer + ".smtx");
    if (std::filesystem::is_regular_file(file))
      out.push_back(file.string());
    else
      ++missing;
  }
  if (missing > 0)
    std::cerr << "tc_bench: " << missing << " of the default DLMC files are not under "
              << dir.string() << " (set FK_SHARED_DATA); running without them\n";
  return out;
}

struct Matrix {
  std::string name;
  fk::HostCsr s;
  int own_v = 0;  // a generated V x 1 matrix is encoded with its own V only; 0: use --v
};

bool is_file_item(const std::string& item) {
  const auto ends_with = [&](const std::string& tail) {
    return item.size() >= tail.size() &&
           item.compare(item.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends_with(".smtx") || ends_with(".smtx.gz") || std::filesystem::is_regular_file(item);
}

// Splits --matrices at commas, keeping each generator spec's own "key=value" parts with it.
std::vector<std::string> split_matrices(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& piece : split_list(text)) {
    const bool continues = !out.empty() && piece.find('=') != std::string::npos &&
                           piece.find(':') == std::string::npos && !is_file_item(piece);
    if (continues)
      out.back() += "," + piece;
    else
      out.push_back(piece);
  }
  return out;
}

Matrix load_matrix(const std::string& item) {
  Matrix m;
  if (is_file_item(item)) {
    m.s = fk::io::read_smtx(item);
    // DLMC files are named by their path below dlmc/ (model/method/sparsity/layer), as in the
    // paper.
    const std::size_t at = item.rfind("dlmc/");
    m.name = at == std::string::npos ? std::filesystem::path(item).filename().string()
                                     : item.substr(at + 5);
    m.name = m.name.substr(0, m.name.find(".smtx"));
  } else {
    const fk::gen::SparseSpec spec = fk::gen::parse_sparse_spec(item);
    m.s = fk::gen::generate_sparse(spec);
    m.name = fk::gen::to_string(spec);
    if (item.rfind("vector:", 0) == 0)
      m.own_v = spec.param ? static_cast<int>(*spec.param) : fk::vector_length_of(m.s.view());
  }
  if (m.s.vals.empty()) {
    // .smtx is pattern only: the generators' value range, from a fixed seed.
    fk::Rng rng(7);
    m.s.vals.resize(static_cast<std::size_t>(m.s.nnz()));
    for (float& x : m.s.vals) x = static_cast<float>(rng.uniform(0.5, 1.5));
  }
  return m;
}

// ---- timing -------------------------------------------------------------------------------------

// CUDA events on the context's stream. Every timed run follows a write of 2x the L2 size on that
// stream, so each run starts with a cold L2, as in an application whose other work evicts the
// operands.
class EventTimer {
 public:
  EventTimer(const fk::Context& ctx, int warmup, int runs)
      : stream_(fk::stream_of(ctx)), warmup_(warmup), runs_(runs) {
    int l2 = 0;
    FK_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ctx.gpu().device));
    flush_ = fk::DeviceBuffer<unsigned char>(2 * std::max<std::int64_t>(l2, 1 << 20));
    FK_CUDA_CHECK(cudaEventCreate(&start_));
    FK_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  // Median milliseconds of the timed runs of f, after the untimed warm-up runs.
  template <typename F>
  double median_ms(F&& f) {
    for (int i = 0; i < warmup_; ++i) f();
    std::vector<double> ms;
    for (int i = 0; i < runs_; ++i) {
      // A new byte each time keeps the flush a real write.
      FK_CUDA_CHECK(cudaMemsetAsync(flush_.data(), (i & 0x7f) + 1, flush_.bytes(), stream_));
      FK_CUDA_CHECK(cudaEventRecord(start_, stream_));
      f();
      FK_CUDA_CHECK(cudaEventRecord(stop_, stream_));
      FK_CUDA_CHECK(cudaEventSynchronize(stop_));
      float t = 0;
      FK_CUDA_CHECK(cudaEventElapsedTime(&t, start_, stop_));
      ms.push_back(t);
    }
    return fk::median(ms);
  }

 private:
  cudaStream_t stream_;
  int warmup_, runs_;
  fk::DeviceBuffer<unsigned char> flush_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// ---- the report ---------------------------------------------------------------------------------

// The columns shared by every contender of one (op, matrix, V, K).
struct Case {
  std::string op, matrix;
  std::int64_t m = 0, n = 0, nnz = 0, stored = 0;
  int v = 0, k = 0;
  double padding = 0;
};

struct Result {
  std::string contender, detail;
  double ms = kNaN;
  double err = kNaN;  // tc rows only
};

std::string number(double x) {
  if (std::isnan(x)) return "";
  std::ostringstream os;
  os.precision(6);
  os << x;
  return os.str();
}

class Report {
 public:
  Report(const Options& opt, std::string device) : opt_(opt), device_(std::move(device)) {
    if (!opt.csv.empty()) {
      csv_.open(opt.csv);
      FK_CHECK(csv_.good(), "cannot write " << opt.csv);
      csv_ << "op,matrix,m,n,nnz,v,stored,padding_ratio,k,precision,contender,detail,median_ms,"
              "tflops_useful,"
              "speedup_of_tc,max_rel_err,device,commit\n";
    }
    std::printf("%-5s %-56s %2s %4s %6s %-13s %10s %8s %8s %9s  %s\n", "op", "matrix", "V", "K",
                "pad", "contender", "ms", "TFLOP/s", "tc_x", "max_err", "detail");
  }

  void add(const Case& c, const Result& r, double tc_ms) {
    const double tflops = 2.0 * double(c.nnz) * c.k / (r.ms * 1e-3) / 1e12;
    const double speedup = r.ms / tc_ms;
    if (csv_.is_open()) {
      const std::vector<std::string> fields{c.op,
                                            c.matrix,
                                            std::to_string(c.m),
                                            std::to_string(c.n),
                                            std::to_string(c.nnz),
                                            std::to_string(c.v),
                                            std::to_string(c.stored),
                                            number(c.padding),
                                            std::to_string(c.k),
                                            fk::to_string(opt_.precision),
                                            r.contender,
                                            r.detail,
                                            number(r.ms),
                                            number(tflops),
                                            number(speedup),
                                            number(r.err),
                                            device_,
                                            opt_.commit};
      for (std::size_t i = 0; i < fields.size(); ++i)
        csv_ << (i ? "," : "") << fk::io::csv_escape(fields[i]);
      csv_ << '\n' << std::flush;  // row by row, so a run cut short keeps what it measured
    }
    char err[32] = "-";
    if (!std::isnan(r.err)) std::snprintf(err, sizeof err, "%.2e", r.err);
    std::printf("%-5s %-56s %2d %4d %6.3f %-13s %10.4f %8.2f %8.2f %9s  %s\n", c.op.c_str(),
                c.matrix.c_str(), c.v, c.k, c.padding, r.contender.c_str(), r.ms, tflops, speedup,
                err, r.detail.c_str());
    std::fflush(stdout);
  }

 private:
  const Options& opt_;
  std::string device_;
  std::ofstream csv_;
};

// Runs one contender; a failure becomes a row that says why instead of ending the benchmark.
template <typename F>
Result attempt(const std::string& contender, F&& f) {
  Result r;
  r.contender = contender;
  try {
    f(r);
  } catch (const std::exception& e) {
    r.ms = kNaN;
    r.detail = std::string("error: ") + e.what();
  }
  return r;
}

// ---- inputs and checks --------------------------------------------------------------------------

cudaDataType half_type(Precision p) { return p == Precision::kBF16 ? CUDA_R_16BF : CUDA_R_16F; }

// Random dense operands of one K, in 16 bits on the device and as the same values in fp32 (on the
// host for the checks, on the device for the fp32 contenders). B (N x K) serves both SpMM and
// SDDMM; its device copy has N rounded up to 32 rows, zero below N, for cuSPARSE's padded columns.
struct Operands {
  std::vector<float> a, b;  // host, exactly the 16-bit values
  fk::DeviceBuffer<HalfBits> a16, b16;
  fk::DeviceBuffer<float> a32, b32;
};

Operands make_operands(std::int64_t m, std::int64_t n, int k, Precision p) {
  Operands o;
  fk::Rng rng(1000 + static_cast<std::uint64_t>(k));
  const auto draw = [&](std::int64_t count, std::vector<float>& host, std::int64_t padded_count) {
    std::vector<HalfBits> bits(static_cast<std::size_t>(padded_count), fk::float_to_half(0.0f, p));
    host.resize(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) {
      bits[i] = fk::float_to_half(static_cast<float>(rng.uniform(-1.0, 1.0)), p);
      host[i] = fk::half_to_float(bits[i], p);
    }
    return bits;
  };
  o.a16 = fk::DeviceBuffer<HalfBits>(draw(m * k, o.a, m * k));
  o.b16 = fk::DeviceBuffer<HalfBits>(draw(n * k, o.b, round_up(n, 32) * k));
  o.a32 = fk::DeviceBuffer<float>(o.a);
  o.b32 = fk::DeviceBuffer<float>(o.b);
  return o;
}

double rel_err(double x, double y) { return std::abs(x - y) / std::max(1.0, std::abs(y)); }

// Max rel_err of C = S·B over about 256 evenly spaced rows; the reference is accumulated in double
// from the 16-bit values the kernel read (S's values rounded as DeviceVectorCsr rounds them).
double check_spmm(const fk::HostVectorCsr& e, Precision p, const std::vector<float>& b, int k,
                  const std::vector<float>& c) {
  const int v = e.v;
  const std::int64_t stride = std::max<std::int64_t>(1, e.rows / 256);
  std::vector<double> acc(static_cast<std::size_t>(k));
  double worst = 0;
  for (std::int64_t r = 0; r < e.rows; r += stride) {
    std::fill(acc.begin(), acc.end(), 0.0);
    const std::int64_t block = r / v;
    for (std::int64_t j = e.block_ptr[block]; j < e.block_ptr[block + 1]; ++j) {
      const double s = fk::round_to(e.vals[j * v + r % v], p);
      const float* brow = &b[static_cast<std::size_t>(e.col_idx[j]) * k];
      for (int t = 0; t < k; ++t) acc[t] += s * brow[t];
    }
    for (int t = 0; t < k; ++t) worst = std::max(worst, rel_err(c[r * k + t], acc[t]));
  }
  return worst;
}

// Max rel_err of the unscaled SDDMM over about 65536 evenly spaced stored values (padding included:
// the kernel computes those too, and zero for rows past M).
double check_sddmm(const fk::HostVectorCsr& e, const std::vector<float>& a,
                   const std::vector<float>& b, int k, const std::vector<float>& out) {
  const int v = e.v;
  const std::int64_t stride = std::max<std::int64_t>(1, e.stored() / 65536);
  double worst = 0;
  for (std::int64_t i = 0; i < e.stored(); i += stride) {
    const std::int64_t j = i / v;
    const std::int64_t block =
        std::upper_bound(e.block_ptr.begin(), e.block_ptr.end(), j) - e.block_ptr.begin() - 1;
    const std::int64_t row = block * v + i % v;
    double y = 0;
    if (row < e.rows)
      for (int t = 0; t < k; ++t)
        y += double(a[row * k + t]) * b[static_cast<std::size_t>(e.col_idx[j]) * k + t];
    worst = std::max(worst, rel_err(out[i], y));
  }
  return worst;
}

// ---- cuSPARSE Blocked-ELL -----------------------------------------------------------------------

// S in cuSPARSE's Blocked-ELL on the device: square blocks of `block`, every block row padded with
// column -1 to the largest block count; rows and columns rounded up to multiples of `block`.
struct DeviceBell {
  int block = 0;
  std::int64_t rows = 0, cols = 0, ell_cols = 0;
  fk::DeviceBuffer<std::int32_t> col_ind;  // (rows / block) x (ell_cols / block), row-major
  fk::DeviceBuffer<HalfBits> vals;         // rows x ell_cols, row-major
};

DeviceBell to_blocked_ell(const fk::HostCsr& s, int block, Precision p) {
  DeviceBell out;
  out.block = block;
  out.rows = round_up(s.rows, block);
  out.cols = round_up(s.cols, block);
  std::vector<std::vector<std::int32_t>> blocks(static_cast<std::size_t>(out.rows / block));
  for (std::int64_t r = 0; r < s.rows; ++r)
    for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j)
      blocks[r / block].push_back(s.col_idx[j] / block);
  std::size_t width = 0;
  for (auto& cols : blocks) {
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    width = std::max(width, cols.size());
  }
  out.ell_cols = static_cast<std::int64_t>(width) * block;
  std::vector<std::int32_t> col_ind(blocks.size() * width, -1);
  for (std::size_t br = 0; br < blocks.size(); ++br)
    std::copy(blocks[br].begin(), blocks[br].end(),
              col_ind.begin() + static_cast<std::ptrdiff_t>(br * width));
  std::vector<HalfBits> vals(static_cast<std::size_t>(out.rows * out.ell_cols),
                             fk::float_to_half(0.0f, p));
  for (std::int64_t r = 0; r < s.rows; ++r) {
    const std::vector<std::int32_t>& cols = blocks[r / block];
    for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
      const std::int64_t slot =
          std::lower_bound(cols.begin(), cols.end(), s.col_idx[j] / block) - cols.begin();
      vals[r * out.ell_cols + slot * block + s.col_idx[j] % block] =
          fk::float_to_half(s.vals[j], p);
    }
  }
  out.col_ind = fk::DeviceBuffer<std::int32_t>(col_ind);
  out.vals = fk::DeviceBuffer<HalfBits>(vals);
  return out;
}

// cuSPARSE descriptors that destroy themselves, so that a refused setup leaks nothing.
struct SpMat {
  cusparseConstSpMatDescr_t d = nullptr;
  ~SpMat() {
    if (d) cusparseDestroySpMat(d);
  }
};
template <typename Descr>
struct DnMat {
  Descr d = nullptr;
  ~DnMat() {
    if (d) cusparseDestroyDnMat(d);
  }
};

// C (rows x K, row-major, c_type) = Blocked-ELL S · B (cols x K, row-major), fp32 compute.
// Construction runs it once, so a combination cuSPARSE refuses throws there.
class BellSpmm {
 public:
  BellSpmm(cusparseHandle_t handle, const DeviceBell& a, Precision p, const HalfBits* b, int k,
           void* c, cudaDataType c_type)
      : handle_(handle) {
    FK_CUSPARSE_CHECK(cusparseCreateConstBlockedEll(
        &a_.d, a.rows, a.cols, a.block, a.ell_cols, a.col_ind.data(), a.vals.data(),
        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, half_type(p)));
    FK_CUSPARSE_CHECK(
        cusparseCreateConstDnMat(&b_.d, a.cols, k, k, b, half_type(p), CUSPARSE_ORDER_ROW));
    FK_CUSPARSE_CHECK(cusparseCreateDnMat(&c_.d, a.rows, k, k, c, c_type, CUSPARSE_ORDER_ROW));
    std::size_t bytes = 0;
    FK_CUSPARSE_CHECK(cusparseSpMM_bufferSize(
        handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, a_.d,
        b_.d, &zero_, c_.d, CUDA_R_32F, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, &bytes));
    work_ = fk::DeviceBuffer<unsigned char>(static_cast<std::int64_t>(bytes));
    run();
  }
  void run() {
    FK_CUSPARSE_CHECK(cusparseSpMM(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                   CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, a_.d, b_.d, &zero_,
                                   c_.d, CUDA_R_32F, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, work_.data()));
  }

 private:
  cusparseHandle_t handle_;
  const float one_ = 1, zero_ = 0;
  SpMat a_;
  DnMat<cusparseConstDnMatDescr_t> b_;
  DnMat<cusparseDnMatDescr_t> c_;
  fk::DeviceBuffer<unsigned char> work_;
};

// ---- one matrix ---------------------------------------------------------------------------------

const Result kDenseSkipped{"cublas_dense", "skipped: the dense equivalent has over 2^31 entries"};

class MatrixBench {
 public:
  MatrixBench(const fk::Context& ctx, const Options& opt, EventTimer& timer, Report& report,
              const Matrix& mat)
      : ctx_(ctx), opt_(opt), timer_(timer), report_(report), mat_(mat), s32_(mat.s) {
    const fk::HostCsr& s = mat.s;
    // The dense equivalent for cuBLAS: S's values rounded to 16 bits, zeros elsewhere.
    if (s.rows * s.cols <= (std::int64_t(1) << 31)) {
      std::vector<HalfBits> dense(static_cast<std::size_t>(s.rows * s.cols),
                                  fk::float_to_half(0.0f, opt.precision));
      for (std::int64_t r = 0; r < s.rows; ++r)
        for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j)
          dense[r * s.cols + s.col_idx[j]] = fk::float_to_half(s.vals[j], opt.precision);
      dense_ = fk::DeviceBuffer<HalfBits>(dense);
    }
  }

  void run_v(int v) {
    const fk::HostVectorCsr e = fk::to_vector_csr(mat_.s.view(), v);
    const fk::tc::DeviceVectorCsr dev(e, opt_.precision);
    staged_.reset();  // built on first use, for this V
    Case c;
    c.matrix = mat_.name;
    c.m = mat_.s.rows;
    c.n = mat_.s.cols;
    c.nnz = mat_.s.nnz();
    c.v = v;
    c.stored = e.stored();
    c.padding = fk::encoding_stats(e).padding_ratio();
    for (const int k : opt_.ks) {
      c.k = k;
      const Operands& o = operands(k);
      if (opt_.spmm) {
        c.op = "spmm";
        spmm(c, e, dev, o);
      }
      if (opt_.sddmm) {
        c.op = "sddmm";
        sddmm(c, e, dev, o);
      }
    }
  }

 private:
  const Operands& operands(int k) {
    auto it = operands_.find(k);
    if (it == operands_.end())
      it = operands_.emplace(k, make_operands(mat_.s.rows, mat_.s.cols, k, opt_.precision)).first;
    return it->second;
  }

  // Reports tc first, then the others with their speedup over it.
  void report(const Case& c, const Result& tc, const std::vector<Result>& others) {
    report_.add(c, tc, tc.ms);
    for (const Result& r : others) report_.add(c, r, tc.ms);
  }

  // The contenders that do not depend on V run once per (op, K) and are reported with every V.
  template <typename F>
  Result cached(const std::string& op, const std::string& contender, int k, F&& f) {
    const std::string key = op + '/' + contender + '/' + std::to_string(k);
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, attempt(contender, f)).first;
    return it->second;
  }

  void spmm(const Case& c, const fk::HostVectorCsr& e, const fk::tc::DeviceVectorCsr& dev,
            const Operands& o) {
    const Precision p = opt_.precision;
    const int k = c.k;
    // One output buffer for every contender, with rows rounded up to 32 for Blocked-ELL's padded
    // rows.
    fk::DeviceBuffer<float> out(round_up(c.m, 32) * k);
    const fk::DenseView<const HalfBits> b{o.b16.data(), c.n, k};
    const fk::DenseView<float> cv{out.data(), c.m, k};

    // A tensor-core kernel's result on a NaN-poisoned C (every output must be written), checked,
    // then timed.
    const auto checked_and_timed = [&](Result& r, const auto& call) {
      out.fill_bytes(0xff);
      call();
      ctx_.synchronize();
      std::vector<float> host(static_cast<std::size_t>(c.m * k));
      out.download(host.data(), c.m * k);
      r.err = check_spmm(e, p, o.b, k, host);
      r.ms = timer_.median_ms(call);
    };
    const Result tc = attempt("tc", [&](Result& r) {
      checked_and_timed(r, [&] { fk::tc::spmm(ctx_, p, dev.view(), b, cv); });
    });

    std::vector<Result> others;
    others.push_back(attempt("tc_staged", [&](Result& r) {
      FK_CHECK(fk::tc::staged_fits(ctx_, c.n, c.v), "B's slice of " << c.n << " rows does not fit in shared memory");
      if (!staged_) staged_ = std::make_unique<fk::tc::StagedVectorCsr>(e, p);
      checked_and_timed(r, [&] { fk::tc::spmm_staged(ctx_, p, staged_->view(), b, cv); });
      r.detail = std::to_string(fk::tc::conflicting_loads(fk::tc::deal_tc_steps(e), e)) + " conflicting loads";
    }));
    if (dense_.size() == 0)
      others.push_back(kDenseSkipped);
    else
      others.push_back(cached("spmm", "cublas_dense", k, [&](Result& r) {
        // Row-major C = S·B is column-major Cᵀ = Bᵀ·Sᵀ, where B and S read as column-major are
        // already Bᵀ (K x N, ld K) and Sᵀ (N x M, ld N): no transposes.
        const float one = 1, zero = 0;
        const auto call = [&] {
          FK_CUBLAS_CHECK(cublasGemmEx(ctx_.gpu().cublas(), CUBLAS_OP_N, CUBLAS_OP_N, k, int(c.m),
                                       int(c.n), &one, o.b16.data(), half_type(p), k, dense_.data(),
                                       half_type(p), int(c.n), &zero, out.data(), CUDA_R_32F, k,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        };
        r.ms = timer_.median_ms(call);
        r.detail = "GemmEx 16-bit in, fp32 out, COMPUTE_32F, GEMM_DEFAULT";
      }));
    others.push_back(attempt("cusparse_bell", [&](Result& r) { bell(c, o, out.data(), r); }));
    others.push_back(cached("spmm", "fp32_auto", k, [&](Result& r) {
      fk::PreparedSpmm plan =
          fk::make_spmm_plan(ctx_, s32_.view(), k, fk::Op::kNoTrans, "auto");
      const fk::DenseView<const float> b32{o.b32.data(), c.n, k};
      r.ms = timer_.median_ms([&] { plan.run(ctx_, nullptr, b32, cv); });
      r.detail = plan.variant->name();
    }));
    report(c, tc, others);
  }

  // Blocked-ELL at block size V when cuSPARSE takes it, else the next power of two that it takes;
  // C in fp32 when cuSPARSE takes that, else in 16 bits. The detail says which.
  void bell(const Case& c, const Operands& o, void* out, Result& r) {
    std::string refused;
    for (int block = c.v; block <= 32; block *= 2) {
      auto it = bell_.find(block);
      if (it == bell_.end())
        it = bell_.emplace(block, to_blocked_ell(mat_.s, block, opt_.precision)).first;
      const DeviceBell& a = it->second;
      for (const cudaDataType c_type : {CUDA_R_32F, half_type(opt_.precision)}) {
        std::unique_ptr<BellSpmm> op;
        try {
          op = std::make_unique<BellSpmm>(ctx_.gpu().cusparse(), a, opt_.precision, o.b16.data(),
                                          c.k, out, c_type);
        } catch (const fk::Error& e) {
          refused = e.what();
          continue;
        }
        r.ms = timer_.median_ms([&] { op->run(); });
        std::ostringstream d;
        d << "block " << block << (block == c.v ? "" : " (block V refused)") << ", C "
          << (c_type == CUDA_R_32F ? "fp32" : "16-bit") << ", ell_cols " << a.ell_cols;
        r.detail = d.str();
        return;
      }
    }
    throw fk::Error("cuSPARSE took no block size from V to 32; last refusal: " + refused);
  }

  void sddmm(const Case& c, const fk::HostVectorCsr& e, const fk::tc::DeviceVectorCsr& dev,
             const Operands& o) {
    const Precision p = opt_.precision;
    const int k = c.k;
    const fk::DenseView<const HalfBits> a{o.a16.data(), c.m, k};
    const fk::DenseView<const HalfBits> b{o.b16.data(), c.n, k};

    const Result tc = attempt("tc", [&](Result& r) {
      fk::DeviceBuffer<float> out(e.stored());
      const auto call = [&] { fk::tc::sddmm(ctx_, p, dev.view(), a, b, false, out.data()); };
      call();
      ctx_.synchronize();
      r.err = check_sddmm(e, o.a, o.b, k, out.to_host());
      r.ms = timer_.median_ms(call);
    });

    std::vector<Result> others;
    if (dense_.size() == 0)
      others.push_back(kDenseSkipped);
    else
      others.push_back(cached("sddmm", "cublas_dense", k, [&](Result& r) {
        // Row-major D = A·Bᵀ (M x N) is column-major Dᵀ = B·Aᵀ: B read as column-major is Bᵀ (K x
        // N, ld K), hence op T; A read as column-major is Aᵀ (K x M, ld K).
        fk::DeviceBuffer<float> out(c.m * c.n);
        const float one = 1, zero = 0;
        const auto call = [&] {
          FK_CUBLAS_CHECK(cublasGemmEx(ctx_.gpu().cublas(), CUBLAS_OP_T, CUBLAS_OP_N, int(c.n),
                                       int(c.m), k, &one, o.b16.data(), half_type(p), k,
                                       o.a16.data(), half_type(p), k, &zero, out.data(), CUDA_R_32F,
                                       int(c.n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        };
        r.ms = timer_.median_ms(call);
        r.detail = "GemmEx 16-bit in, fp32 out, COMPUTE_32F, GEMM_DEFAULT";
      }));
    others.push_back(cached("sddmm", "fp32_auto", k, [&](Result& r) {
      fk::PreparedSddmm plan = fk::make_sddmm_plan(ctx_, s32_.view(), k, "auto");
      fk::DeviceBuffer<float> out(c.nnz);
      const fk::DenseView<const float> a32{o.a32.data(), c.m, k};
      const fk::DenseView<const float> b32{o.b32.data(), c.n, k};
      r.ms = timer_.median_ms([&] { plan.run(ctx_, a32, b32, nullptr, out.data()); });
      r.detail = plan.variant->name();
    }));
    report(c, tc, others);
  }

  const fk::Context& ctx_;
  const Options& opt_;
  EventTimer& timer_;
  Report& report_;
  const Matrix& mat_;
  fk::DeviceCsr s32_;                    // the original CSR in fp32, for our fp32 kernels
  fk::DeviceBuffer<HalfBits> dense_;     // dense equivalent (empty when too large)
  std::map<int, Operands> operands_;     // by K, the same for every V
  std::map<int, DeviceBell> bell_;       // by block size
  std::map<std::string, Result> cache_;  // V-independent contenders by op/contender/K
  std::unique_ptr<fk::tc::StagedVectorCsr> staged_;  // the current V's staged form
};

// ---- options ------------------------------------------------------------------------------------

const char* kAbout =
    "tc_bench: half-precision tensor-core SpMM and SDDMM on the column-vector (V x 1) encoding\n"
    "(Chen et al., SC'21) against cuBLAS dense GEMM, cuSPARSE Blocked-ELL SpMM and our fp32 "
    "kernels.\n"
    "\n"
    "For every (matrix, V, K): S is encoded with V (rows in groups of V; positions a row lacks in "
    "its\n"
    "group's column union are stored as zeros, the padding ratio column says how many); operands "
    "are\n"
    "random in [-1, 1), fixed seed, rounded to --precision. Contenders (median of --runs after\n"
    "--warmup, CUDA events, each timed run after an L2 flush of 2x the L2 size):\n"
    "  spmm  C (M x K, fp32) = S (M x N) . B (N x K)\n"
    "    tc             fk::tc::spmm\n"
    "    tc_staged      fk::tc::spmm_staged (B's 16-column slices in shared memory), where they fit\n"
    "    cublas_dense   cublasGemmEx on the dense M x N equivalent, 16-bit inputs, fp32 C, "
    "COMPUTE_32F\n"
    "    cusparse_bell  cusparseSpMM on Blocked-ELL with block size V (or the next power of two "
    "that\n"
    "                   cuSPARSE accepts), 16-bit values, fp32 C where accepted; detail says "
    "which\n"
    "    fp32_auto      make_spmm_plan(..., \"auto\") on the original fp32 CSR, fp32 operands\n"
    "  sddmm out = (A (M x K) . B^T (B: N x K)) at S's pattern, unscaled, fp32\n"
    "    tc             fk::tc::sddmm (every stored value, padding included)\n"
    "    cublas_dense   cublasGemmEx computing all of A . B^T (M x N fp32)\n"
    "    fp32_auto      make_sddmm_plan(..., \"auto\"), unscaled\n"
    "    (cuSPARSE has no Blocked-ELL SDDMM, so there is no Blocked-ELL contender for SDDMM.)\n"
    "cublas_dense and fp32_auto do not depend on V: they run once per (matrix, K) and are repeated "
    "on\n"
    "every V's rows. tflops_useful = 2 nnz K / time (nnz of S, padding not counted); speedup_of_tc "
    "=\n"
    "contender time / tc time. max_rel_err (tc rows): max |x - y| / max(1, |y|) over sampled "
    "entries\n"
    "(about 256 evenly spaced rows of C; about 65536 evenly spaced stored values for SDDMM), y "
    "computed\n"
    "on the CPU in double from the same 16-bit values.\n"
    "\n"
    "CSV columns: op, matrix, m, n, nnz, v, stored, padding_ratio, k, precision, contender, "
    "detail,\n"
    "median_ms, tflops_useful, speedup_of_tc, max_rel_err, device, commit.\n"
    "\n"
    "Options";

std::string default_matrices_help() {
  return "comma list of generator specs (core/generate/sparse.hpp; "
         "vector:rows=R,cols=C,nnz=Z,param=V,seed=S "
         "is exactly V x 1 structured) and/or .smtx paths. Default: vector matrices 4096 x 4096 "
         "with V 2, 4, 8 at sparsity 0.5, 0.7, 0.8, "
         "0.9, 0.95, 0.98, and the DLMC rn50 magnitude_pruning layers "
         "bottleneck_2_block_group3_1_1 "
         "(256 x 2304) at 0.5-0.98 plus 0.9 bottleneck_2_block_group4_1_1 (512 x 4608) and "
         "final_dense "
         "(1000 x 2048), found under $FK_SHARED_DATA/dlmc "
         "(else " FK_SHARED_DATA_DIR "/dlmc)";
}

// Returns false when the program should exit now (help), with `code`.
bool parse_options(int argc, char** argv, Options& opt, int& code) {
  po::options_description desc(kAbout, 100, 50);
  desc.add_options()("matrices", po::value<std::string>()->value_name("LIST"),
                     default_matrices_help().c_str())(
      "v", po::value<std::string>()->value_name("LIST"),
      "vector lengths to encode .smtx files and non-vector generated matrices with (default "
      "2,4,8); "
      "a generated vector matrix uses its own V")("k", po::value<std::string>()->value_name("LIST"),
                                                  "dense widths K (default 64,128,256)")(
      "precision", po::value<std::string>()->value_name("P"), "fp16 (default) or bf16")(
      "runs", po::value<int>()->value_name("N"),
      "timed runs per contender; the median is reported (default 30)")(
      "warmup", po::value<int>()->value_name("N"), "untimed runs before them (default 5)")(
      "ops", po::value<std::string>()->value_name("LIST"),
      "spmm, sddmm or both (default spmm,sddmm)")(
      "csv", po::value<std::string>()->value_name("FILE"), "write the rows to FILE (overwritten)")(
      "commit", po::value<std::string>()->value_name("ID"),
      "commit column (default $FK_COMMIT, else 'unknown')")(
      "quick",
      "smoke run: 1024 x 1024 vector matrices with V 4 and 8 at 90%, one DLMC layer, K 64, "
      "5 runs after 1 warm-up (options given explicitly still apply)")(
      "allow-no-gpu", "without a usable GPU, say so and exit 0 (default: exit 2)")(
      "help,h", "print this help and exit");
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, desc), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc << '\n';
    code = 0;
    return false;
  }
  const bool quick = vm.count("quick") > 0;
  opt.matrices = vm.count("matrices") ? split_matrices(vm["matrices"].as<std::string>())
                                      : default_matrices(quick);
  FK_CHECK(!opt.matrices.empty(), "--matrices is empty");
  if (vm.count("v")) opt.vs = parse_ints(vm["v"].as<std::string>(), "v");
  for (const int v : opt.vs)
    FK_CHECK(v == 1 || v == 2 || v == 4 || v == 8, "--v: " << v << " is not 1, 2, 4 or 8");
  if (quick) opt.ks = {64};
  if (vm.count("k")) opt.ks = parse_ints(vm["k"].as<std::string>(), "k");
  if (vm.count("precision")) {
    opt.precision = fk::parse_precision(vm["precision"].as<std::string>());
    FK_CHECK(opt.precision != Precision::kF32,
             "--precision: fp16 or bf16 (fp32 is what fp32_auto measures)");
  }
  if (quick) {
    opt.runs = 5;
    opt.warmup = 1;
  }
  if (vm.count("runs")) opt.runs = vm["runs"].as<int>();
  if (vm.count("warmup")) opt.warmup = vm["warmup"].as<int>();
  FK_CHECK(opt.runs >= 1 && opt.warmup >= 0, "--runs must be >= 1 and --warmup >= 0");
  if (vm.count("ops")) {
    const std::vector<std::string> ops = split_list(vm["ops"].as<std::string>());
    opt.spmm = std::count(ops.begin(), ops.end(), "spmm") > 0;
    opt.sddmm = std::count(ops.begin(), ops.end(), "sddmm") > 0;
    FK_CHECK(std::size_t(opt.spmm) + std::size_t(opt.sddmm) == ops.size() && !ops.empty(),
             "--ops: a list of spmm and sddmm");
  }
  if (vm.count("csv")) opt.csv = vm["csv"].as<std::string>();
  const char* env_commit = std::getenv("FK_COMMIT");
  opt.commit = vm.count("commit")          ? vm["commit"].as<std::string>()
               : env_commit && *env_commit ? env_commit
                                           : "unknown";
  opt.allow_no_gpu = vm.count("allow-no-gpu") > 0;
  return true;
}

int run(int argc, char** argv) {
  Options opt;
  int code = 0;
  if (!parse_options(argc, argv, opt, code)) return code;
  const int no_gpu_code = opt.allow_no_gpu ? 0 : 2;
  if (fk::cuda_device_count() == 0) {
    std::cerr << "tc_bench: no usable CUDA GPU (no device or no driver); nothing measured\n";
    return no_gpu_code;
  }
  std::optional<fk::Context> gpu;
  try {
    gpu.emplace(fk::Context::create(fk::DeviceRequest::kGpu));
  } catch (const fk::Error& e) {
    std::cerr << "tc_bench: the GPU is not usable: " << e.what() << "; nothing measured\n";
    return no_gpu_code;
  }
  const fk::Context& ctx = *gpu;
  if (!fk::tc::supported(ctx)) {
    std::cerr << "tc_bench: " << ctx.describe()
              << " lacks the sm_80 mma.sync instructions; nothing measured\n";
    return no_gpu_code;
  }
  EventTimer timer(ctx, opt.warmup, opt.runs);
  Report report(opt, ctx.gpu().props.name);
  for (std::size_t i = 0; i < opt.matrices.size(); ++i) {
    fk::Stopwatch watch;
    Matrix mat = load_matrix(opt.matrices[i]);
    const std::vector<int> vs = mat.own_v > 0 ? std::vector<int>{mat.own_v} : opt.vs;
    std::cerr << "[" << i + 1 << "/" << opt.matrices.size() << "] " << mat.name << ": "
              << mat.s.rows << " x " << mat.s.cols << ", nnz " << mat.s.nnz() << ", V";
    for (const int v : vs) std::cerr << ' ' << v;
    std::cerr << std::endl;
    MatrixBench bench(ctx, opt, timer, report, mat);
    for (const int v : vs) bench.run_v(v);
    std::cerr << "    done in " << watch.seconds() << " s" << std::endl;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const po::error& e) {
    std::cerr << "tc_bench: " << e.what() << " (see --help)\n";
  } catch (const std::exception& e) {
    std::cerr << "tc_bench: " << e.what() << '\n';
  }
  return 1;
}
