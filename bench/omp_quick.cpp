// omp_quick: a quick, GoogleTest-free timing program for the OpenMP SDDMM/SpMM variants, the
// `auto` choice and Eigen's sparse x dense product. Not part of the test suite; it produced the
// numbers in docs/benchmarks/cpu-notes.md.
//
//   omp_quick [--quick] [--sweep] [--shares 0.5,-1] [--control] [--dlmc-all] [--only SUBSTRING]
//             [--op spmm|sddmm] [--k 32,128] [--rounds N] [--sample-ms MS] [--csv FILE]
//   omp_quick --report FILE...
//
// --quick: synthetic matrices 4x smaller; --sweep: also time a grid of ASpT parameters; --shares:
// also time ASpT with these min_heavy_share values (labels aspt[share X]; -1: no such rule);
// --control: also time a second, separately prepared copy of the default ASpT plan (aspt[control]),
// so that each run shows how far identical code strays (the report adds aspt[control]/aspt);
// --op: only that operation;
// --dlmc-all: every DLMC matrix instead of a sample; --only: matrices whose name or group contains
// SUBSTRING; --csv: append the raw results to FILE instead of printing tables; --report: print the
// tables from one or more such files, keeping the best time of each (case, contender) over all
// of them.
//
// Timing. Contenders run in turn, round-robin (one sample = as many repetitions as last about MS
// milliseconds, default 20; 0 = a single run; each sample follows one untimed run of the same
// contender, so every contender is timed with its own data warm, as in an app's loop). A sample during which the kernel preempted one of
// our threads (getrusage's involuntary context switches) is discarded and retried: the shared
// 2-core machine these notes were taken on was loaded by other developers' builds and GPU
// emulators, and an OpenMP barrier waiting for a preempted thread costs a scheduler slice. The
// best of `rounds` clean samples counts; the best over several invocations (--csv, then --report)
// is kept. Each result is checked once against ref.* (max error relative to
// sum |a||b|, the conformance tests' bound).
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/io/matrix_market.hpp"
#include "core/io/smtx.hpp"
#include "core/random.hpp"
#include "core/timer.hpp"
#include "kernels/omp/aspt_tiling.hpp"
#include "kernels/omp/omp_variants.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace {

using fk::HostCsr;

struct Matrix {
  std::string name;
  std::string group;  // banded, clustered, uniform, skewed, suitesparse, dlmc
  HostCsr s;
};

struct Options {
  bool quick = false, sweep = false, dlmc_all = false, control = false;
  std::string only, csv, op;
  std::vector<double> shares;
  std::vector<std::string> reports;
  std::vector<int> ks{32, 128, 256};
  int rounds = 7;
  double sample_ms = 20;
};

// ---- inputs --------------------------------------------------------------------------------------

HostCsr banded(std::int64_t n, std::int64_t half) {
  HostCsr m;
  m.rows = m.cols = n;
  for (std::int64_t r = 0; r < n; ++r) {
    for (std::int64_t c = std::max<std::int64_t>(0, r - half); c <= std::min(n - 1, r + half); ++c)
      m.col_idx.push_back(std::int32_t(c));
    m.row_ptr.push_back(std::int64_t(m.col_idx.size()));
  }
  return m;
}

// Groups of `group` consecutive rows share a random set of `shared` columns; each row takes
// `from_shared` of them and `extra` uniformly random columns (community structure over a wide N).
HostCsr clustered(std::int64_t n, std::int64_t group, std::int64_t shared, std::int64_t from_shared,
                  std::int64_t extra, fk::Rng& rng) {
  HostCsr m;
  m.rows = m.cols = n;
  std::vector<std::int32_t> set, row;
  for (std::int64_t r = 0; r < n; ++r) {
    if (r % group == 0) {
      set.clear();
      for (std::int64_t i = 0; i < shared; ++i) set.push_back(std::int32_t(rng.below(n)));
    }
    row.clear();
    for (std::int64_t i = 0; i < from_shared; ++i) row.push_back(set[rng.below(set.size())]);
    for (std::int64_t i = 0; i < extra; ++i) row.push_back(std::int32_t(rng.below(n)));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (std::size_t i = row.size(); i > 1; --i) std::swap(row[i - 1], row[rng.below(i)]);  // unsorted
    m.col_idx.insert(m.col_idx.end(), row.begin(), row.end());
    m.row_ptr.push_back(std::int64_t(m.col_idx.size()));
  }
  return m;
}

template <typename Len>
HostCsr random_rows(std::int64_t rows, std::int64_t cols, fk::Rng& rng, Len len) {
  HostCsr m;
  m.rows = rows;
  m.cols = cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t l = std::min<std::int64_t>(len(r), cols);
    for (std::int64_t i = 0; i < l; ++i) m.col_idx.push_back(std::int32_t(rng.below(cols)));
    m.row_ptr.push_back(std::int64_t(m.col_idx.size()));
  }
  return m;
}

std::vector<float> random_vec(std::int64_t n, fk::Rng& rng) {
  std::vector<float> v(n);
  for (auto& x : v) x = float(rng.uniform(-1, 1));
  return v;
}

std::vector<Matrix> matrices(const Options& o) {
  std::vector<Matrix> out;
  fk::Rng rng(7);
  const std::int64_t scale = o.quick ? 4 : 1;
  out.push_back({"band_200k_w33", "banded", banded(200000 / scale, 16)});
  out.push_back({"clustered_64k", "clustered", clustered(65536 / scale, 64, 96, 48, 16, rng)});
  out.push_back({"uniform_100k_r32", "uniform",
                 random_rows(100000 / scale, 100000 / scale, rng, [](std::int64_t) { return 32; })});
  out.push_back({"powerlaw_100k", "skewed", random_rows(100000 / scale, 100000 / scale, rng, [&](std::int64_t) {
                   return std::int64_t(2 + 4.0 / std::pow(std::max(rng.uniform(), 1e-7), 0.8));
                 })});
  out.push_back({"one_huge_row", "skewed", random_rows(20000 / scale, 200000 / scale, rng, [&](std::int64_t r) {
                   return r == 7 ? 200000 / scale : std::int64_t(4);
                 })});
  const std::string root = std::string(FK_SHARED_DATA_DIR);
  for (const char* f : {"bcsstk13", "delaunay_n14", "hep-th"}) {
    const std::string path = root + "/suitesparse/" + f + ".mtx";
    if (std::filesystem::exists(path)) out.push_back({f, "suitesparse", fk::io::read_matrix_market(path)});
  }
  const std::string dl = root + "/dlmc/rn50/magnitude_pruning/";
  std::vector<std::string> files;
  if (o.dlmc_all && std::filesystem::exists(dl)) {
    for (const auto& d : std::filesystem::directory_iterator(dl))
      for (const auto& f : std::filesystem::directory_iterator(d.path()))
        if (f.path().extension() == ".smtx") files.push_back(d.path().filename().string() + "/" + f.path().stem().string());
    std::sort(files.begin(), files.end());
  } else {
    files = {"0.9/bottleneck_2_block_group4_1_1", "0.9/bottleneck_2_block_group3_2_1", "0.9/final_dense",
             "0.9/bottleneck_projection_block_group_projection_block_group4", "0.5/bottleneck_2_block_group3_1_1",
             "0.8/bottleneck_2_block_group3_1_1", "0.98/bottleneck_2_block_group3_1_1"};
  }
  for (const auto& f : files) {
    const std::string path = dl + f + ".smtx";
    if (std::filesystem::exists(path)) out.push_back({"rn50/" + f, "dlmc", fk::io::read_smtx(path)});
  }
  return out;
}

// ---- results -------------------------------------------------------------------------------------

// One case = (op, matrix, K); per case the best time of every contender and what `auto` chose.
struct CaseKey {
  std::string op, group, matrix;
  int k;
  bool operator<(const CaseKey& o) const { return std::tie(op, group, matrix, k) < std::tie(o.op, o.group, o.matrix, o.k); }
};
struct CaseResult {
  std::map<std::string, double> ms;  // contender -> best time
  double heavy_share = 0, aspt_prep_ms = 0, max_err = 0;
  std::string auto_name;  // what `auto` chose when measured; the report asks the current rules again
  std::int64_t nnz = 0;
  fk::SparseFeatures features;  // what the `auto` rules see
};
using Results = std::map<CaseKey, CaseResult>;
// Files keep cases in the order they were first measured.
std::vector<CaseKey> g_order;

void note_time(Results& r, const CaseKey& key, const std::string& who, double ms) {
  if (!r.count(key)) g_order.push_back(key);
  auto& slot = r[key].ms;
  slot[who] = slot.count(who) ? std::min(slot[who], ms) : ms;
}

// CSV: "T,op,group,matrix,k,contender,ms" and
// "C,op,group,matrix,k,nnz,heavy_share,prep_ms,auto,max_err,rows,cols,row_mean,row_cv,row_max,empty_rows,nonempty_cols".
void write_csv(const std::string& path, const Results& r) {
  std::ofstream f(path, std::ios::app);
  for (const auto& key : g_order) {
    const auto& c = r.at(key);
    const std::string head = key.op + "," + key.group + "," + key.matrix + "," + std::to_string(key.k);
    const auto& ft = c.features;
    f << "C," << head << "," << c.nnz << "," << c.heavy_share << "," << c.aspt_prep_ms << "," << c.auto_name << ","
      << c.max_err << "," << ft.rows << "," << ft.cols << "," << ft.row_mean << "," << ft.row_cv << "," << ft.row_max
      << "," << ft.empty_rows << "," << ft.nonempty_cols << "\n";
    for (const auto& [who, ms] : c.ms) f << "T," << head << "," << who << "," << ms << "\n";
  }
}

void read_csv(const std::string& path, Results& r) {
  std::ifstream f(path);
  if (!f) throw fk::Error("cannot read " + path);
  for (std::string line; std::getline(f, line);) {
    std::vector<std::string> p;
    std::stringstream ss(line);
    for (std::string t; std::getline(ss, t, ',');) p.push_back(t);
    if (p.size() < 6) continue;
    const CaseKey key{p[1], p[2], p[3], std::stoi(p[4])};
    if (p[0] == "T" && p.size() == 7) {
      note_time(r, key, p[5], std::stod(p[6]));
    } else if (p[0] == "C" && p.size() == 17) {
      if (!r.count(key)) g_order.push_back(key);
      auto& c = r[key];
      c.nnz = std::stoll(p[5]);
      auto& ft = c.features;
      ft.nnz = c.nnz;
      ft.rows = std::stoll(p[10]);
      ft.cols = std::stoll(p[11]);
      ft.row_mean = std::stod(p[12]);
      ft.row_cv = std::stod(p[13]);
      ft.row_max = std::stoll(p[14]);
      ft.empty_rows = std::stoll(p[15]);
      ft.nonempty_cols = std::stoll(p[16]);
      ft.density = ft.rows * ft.cols > 0 ? double(ft.nnz) / (double(ft.rows) * double(ft.cols)) : 0;
      c.heavy_share = std::stod(p[6]);
      c.aspt_prep_ms = c.aspt_prep_ms > 0 ? std::min(c.aspt_prep_ms, std::stod(p[7])) : std::stod(p[7]);
      c.auto_name = p[8];
      c.max_err = std::max(c.max_err, std::stod(p[9]));
    }
  }
}

std::string fmt(double x, int prec = 3) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, x);
  return b;
}

// Largest |got - want| / sum |a||b| over the outputs (the conformance tests' bound).
double err_vs(const std::vector<float>& got, const std::vector<float>& want, const std::vector<float>& bound) {
  double e = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    e = std::max(e, std::fabs(double(got[i]) - want[i]) / (double(bound[i]) + 1e-30));
  }
  return e;
}

// ---- timing --------------------------------------------------------------------------------------

struct Contender {
  std::string name;
  std::function<void()> run;
  std::vector<double> ms;     // clean samples
  std::vector<double> dirty;  // samples during which a thread of ours was preempted
};

// Context switches of this process so far (all threads). With OMP_WAIT_POLICY=active (main()
// makes sure) idle OpenMP threads spin instead of sleeping, so any switch during a sample means
// another process took a core from one of our threads.
long preemptions() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_nivcsw + u.ru_nvcsw;
}

// Collects `rounds` clean samples per contender, round-robin: a sample during which one of our
// threads was preempted is set aside (on a loaded machine an OpenMP barrier then waits a whole
// scheduler slice for it), and retried, up to 40 attempts per wanted sample.
void time_round_robin(std::vector<Contender>& cs, int rounds, double sample_ms) {
  for (auto& c : cs) c.run();  // warm-up (page faults, caches)
  fk::Stopwatch probe;
  cs.front().run();
  const int reps = std::max(1, int(sample_ms / std::max(1e-3, probe.milliseconds())));
  for (int attempt = 0; attempt < 40 * rounds; ++attempt) {
    bool done = true;
    for (auto& c : cs) {
      if (int(c.ms.size()) >= rounds) continue;
      done = false;
      c.run();  // untimed: its own data back in cache, whatever the previous contender left
      const long before = preemptions();
      fk::Stopwatch w;
      for (int i = 0; i < reps; ++i) c.run();
      const double ms = w.milliseconds() / reps;
      (preemptions() == before ? c.ms : c.dirty).push_back(ms);
    }
    if (done) break;
  }
}

// Best clean sample, or (marked by the caller) the best of all when none was clean.
double best(const Contender& c) {
  const auto& v = c.ms.empty() ? c.dirty : c.ms;
  return *std::min_element(v.begin(), v.end());
}

// ASpT with each --shares value as AsptParams::min_heavy_share, the rest resolved as by default.
template <typename Make>
void add_shares(const Options& o, Make make) {
  for (double share : o.shares) {
    fk::aspt::AsptParams p;
    p.min_heavy_share = share;
    std::ostringstream label;
    label << "aspt[share " << share << "]";
    make(label.str(), p);
  }
}

// ASpT parameter grid for --sweep: panel rows x tile bytes x the B bytes that row-by-row order
// keeps in cache (AsptParams::cached_b_bytes), with the default threshold of 2.
template <typename Make>
void add_sweep(int k, Make make) {
  for (std::int64_t pr : {64, 256})
    for (std::int64_t tb : {32 << 10, 128 << 10, 512 << 10})
      for (std::int64_t cached : {256 << 10, 512 << 10, 3072 << 10}) {
        fk::aspt::AsptParams p;
        p.panel_rows = pr;
        p.tile_cols = std::max<std::int64_t>(8, tb / (4 * k));
        p.cached_b_bytes = cached;
        make("aspt[p" + std::to_string(pr) + "/b" + std::to_string(tb >> 10) + "K/c" +
                 std::to_string(cached >> 10) + "K]",
             p);
      }
}

void bench_sddmm(const Matrix& m, int k, const Options& o, Results& res) {
  fk::Context ctx(fk::DeviceKind::kCpu);
  const fk::CsrView sv = m.s.view();
  fk::Rng rng(1234 + k);
  fk::HostDense<float> a(m.s.rows, k), b(m.s.cols, k);
  a.assign_values(random_vec(a.size(), rng));
  b.assign_values(random_vec(b.size(), rng));
  const std::vector<float> scale = random_vec(m.s.nnz(), rng);
  std::vector<float> want(m.s.nnz()), bound(m.s.nnz());
  {
    auto ref = fk::make_sddmm_plan(ctx, sv, k, "ref.sddmm");
    ref.run(ctx, a.view(), b.view(), scale.data(), want.data());
    fk::HostDense<float> aa = a, ab = b;
    for (auto& x : aa.storage()) x = std::fabs(x);
    for (auto& x : ab.storage()) x = std::fabs(x);
    std::vector<float> as(scale);
    for (auto& x : as) x = std::fabs(x);
    ref.run(ctx, aa.view(), ab.view(), as.data(), bound.data());
  }
  struct Entry {
    std::string label;
    std::unique_ptr<fk::SddmmPlan> plan;
    double prep_ms;
    std::vector<float> out;
  };
  std::vector<Entry> es;
  std::vector<std::unique_ptr<fk::SddmmVariant>> own;  // variants with explicit parameters
  auto add = [&](const std::string& label, const fk::SddmmVariant& v) {
    fk::Stopwatch w;
    auto plan = v.prepare(ctx, sv, k);
    es.push_back({label, std::move(plan), w.milliseconds(), std::vector<float>(m.s.nnz())});
  };
  add("omp.sddmm.rows", fk::find_sddmm_variant("omp.sddmm.rows"));
  add("omp.sddmm.aspt", fk::find_sddmm_variant("omp.sddmm.aspt"));
  if (o.control) add("aspt[control]", fk::find_sddmm_variant("omp.sddmm.aspt"));
  fk::aspt::AsptParams no_tiles;
  no_tiles.heavy_threshold = std::int64_t(1) << 40;  // nothing is heavy: row-wise, same dot kernels
  own.push_back(fk::make_omp_sddmm_aspt_with(no_tiles));
  add("aspt[no tiles]", *own.back());
  auto add_own = [&](const std::string& label, const fk::aspt::AsptParams& p) {
    own.push_back(fk::make_omp_sddmm_aspt_with(p));
    add(label, *own.back());
  };
  if (o.sweep) add_sweep(k, add_own);
  add_shares(o, add_own);
  std::vector<Contender> cs;
  for (auto& e : es)
    cs.push_back({e.label, [&, p = e.plan.get(), out = e.out.data()] { p->run(ctx, a.view(), b.view(), scale.data(), out); }, {}, {}});
  time_round_robin(cs, o.rounds, o.sample_ms);
  const CaseKey key{"SDDMM", m.group, m.name, k};
  for (auto& c : cs) {
    note_time(res, key, c.name, best(c));
    if (c.ms.empty()) std::cerr << "no clean sample: " << key.op << " " << m.name << " K=" << k << " " << c.name << "\n";
  }
  auto& info = res[key];
  info.nnz = m.s.nnz();
  info.features = fk::features(sv);
  info.auto_name = fk::make_sddmm_plan(ctx, sv, k, "auto").variant->name();
  info.aspt_prep_ms = es[1].prep_ms;
  info.heavy_share = fk::aspt::build_aspt_tiling(sv, fk::aspt::resolve_params(fk::aspt::sddmm_request({}), m.s.rows, m.s.cols, m.s.nnz(), k, omp_get_max_threads()))
                         .heavy_fraction();
  for (auto& e : es) info.max_err = std::max(info.max_err, err_vs(e.out, want, bound));
}

void bench_spmm(const Matrix& m, int k, const Options& o, Results& res) {
  fk::Context ctx(fk::DeviceKind::kCpu);
  const fk::CsrView sv = m.s.view();
  fk::Rng rng(4321 + k);
  fk::HostDense<float> b(m.s.cols, k);
  b.assign_values(random_vec(b.size(), rng));
  const std::vector<float> vals = random_vec(std::max<std::int64_t>(1, m.s.nnz()), rng);
  std::vector<float> want, bound;
  {
    auto ref = fk::make_spmm_plan(ctx, sv, k, fk::Op::kNoTrans, "ref.spmm");
    fk::HostDense<float> c(m.s.rows, k);
    ref.run(ctx, vals.data(), b.view(), c.view());
    want = c.values();
    fk::HostDense<float> ab = b;
    for (auto& x : ab.storage()) x = std::fabs(x);
    std::vector<float> av(vals);
    for (auto& x : av) x = std::fabs(x);
    ref.run(ctx, av.data(), ab.view(), c.view());
    bound = c.values();
  }
  struct Entry {
    std::string label;
    std::unique_ptr<fk::SpmmPlan> plan;
    double prep_ms;
    fk::HostDense<float> c;
  };
  std::vector<Entry> es;
  std::vector<std::unique_ptr<fk::SpmmVariant>> own;
  auto add = [&](const std::string& label, const fk::SpmmVariant& v) {
    fk::Stopwatch w;
    auto plan = v.prepare(ctx, sv, k);
    es.push_back({label, std::move(plan), w.milliseconds(), fk::HostDense<float>(m.s.rows, k)});
  };
  for (const char* n : {"omp.spmm.rows", "omp.spmm.nnz_balanced", "omp.spmm.aspt"}) add(n, fk::find_spmm_variant(n));
  if (o.control) add("aspt[control]", fk::find_spmm_variant("omp.spmm.aspt"));
  auto add_own = [&](const std::string& label, const fk::aspt::AsptParams& p) {
    own.push_back(fk::make_omp_spmm_aspt_with(p));
    add(label, *own.back());
  };
  if (o.sweep) add_sweep(k, add_own);
  add_shares(o, add_own);
  // Eigen: a row-major sparse map over our row offsets and values; Eigen wants inner indices of
  // the offsets' type, so the 32-bit column indices are widened once (not timed).
  std::vector<std::int64_t> cols64(m.s.col_idx.begin(), m.s.col_idx.end());
  using EigenCsr = Eigen::SparseMatrix<float, Eigen::RowMajor, std::int64_t>;
  using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const EigenCsr> es_map(m.s.rows, m.s.cols, m.s.nnz(), m.s.row_ptr.data(), cols64.data(), vals.data());
  Eigen::Map<const RowMat> eb(b.data(), m.s.cols, k);
  fk::HostDense<float> ec_store(m.s.rows, k);
  Eigen::Map<RowMat> ec(ec_store.data(), m.s.rows, k);
  Eigen::setNbThreads(omp_get_max_threads());  // Eigen's row-major sparse x dense runs OpenMP rows

  std::vector<Contender> cs;
  for (auto& e : es)
    cs.push_back({e.label, [&, p = e.plan.get(), c = &e.c] { p->run(ctx, vals.data(), b.view(), c->view()); }, {}, {}});
  cs.push_back({"eigen", [&] { ec.noalias() = es_map * eb; }, {}, {}});
  time_round_robin(cs, o.rounds, o.sample_ms);
  const CaseKey key{"SpMM", m.group, m.name, k};
  for (auto& c : cs) {
    note_time(res, key, c.name, best(c));
    if (c.ms.empty()) std::cerr << "no clean sample: " << key.op << " " << m.name << " K=" << k << " " << c.name << "\n";
  }
  auto& info = res[key];
  info.nnz = m.s.nnz();
  info.features = fk::features(sv);
  info.auto_name = fk::make_spmm_plan(ctx, sv, k, fk::Op::kNoTrans, "auto").variant->name();
  info.aspt_prep_ms = es[2].prep_ms;
  info.heavy_share = fk::aspt::build_aspt_tiling(sv, fk::aspt::resolve_params({}, m.s.rows, m.s.cols, m.s.nnz(), k, omp_get_max_threads()))
                         .heavy_fraction();
  for (auto& e : es) info.max_err = std::max(info.max_err, err_vs(e.c.values(), want, bound));
  info.max_err = std::max(info.max_err, err_vs(ec_store.values(), want, bound));
}

// ---- report --------------------------------------------------------------------------------------

struct Ratios {
  std::map<std::string, std::vector<double>> by_key;  // "ratio, group, K" -> one value per matrix
  double worst_auto = 0;
  std::string worst_auto_case;
  void add(const std::string& key, double r) { by_key[key].push_back(r); }
};

void report(Results& res) {
  // `auto` as the current rule table (kernels/select.cpp) decides, from the recorded features.
  for (auto& [key, c] : res) {
    const fk::KernelProblem p{c.features, key.k};
    c.auto_name = key.op == "SDDMM" ? fk::choose_sddmm_variant(fk::DeviceKind::kCpu, p).name()
                                    : fk::choose_spmm_variant(fk::DeviceKind::kCpu, p).name();
  }
  Ratios rt;
  std::set<std::string> sweep_labels;
  std::cout << "| op | group | matrix | K | nnz | heavy share | rows | aspt | aspt[no tiles] | rows/aspt | auto (auto/best) | "
               "aspt prep ms | check |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& key : g_order) {
    if (key.op != "SDDMM") continue;
    const auto& c = res.at(key);
    auto ms = [&](const char* n) { return c.ms.count(n) ? c.ms.at(n) : NAN; };
    const double rows = ms("omp.sddmm.rows"), aspt = ms("omp.sddmm.aspt"), notiles = ms("aspt[no tiles]");
    const double best_v = std::min(rows, aspt), auto_ms = ms(c.auto_name.c_str());
    const std::string gk = key.group + ", K=" + std::to_string(key.k);
    rt.add("SDDMM rows/aspt, " + gk, rows / aspt);
    rt.add("SDDMM aspt[no tiles]/aspt, " + gk, notiles / aspt);
    rt.add("SDDMM auto/best, " + gk, auto_ms / best_v);
    if (c.ms.count("aspt[control]")) rt.add("SDDMM aspt[control]/aspt, " + gk, c.ms.at("aspt[control]") / aspt);
    if (auto_ms / best_v > rt.worst_auto) {
      rt.worst_auto = auto_ms / best_v;
      rt.worst_auto_case = "SDDMM " + key.matrix + " K=" + std::to_string(key.k);
    }
    std::cout << "| SDDMM | " << key.group << " | " << key.matrix << " | " << key.k << " | " << c.nnz << " | "
              << fmt(c.heavy_share, 2) << " | " << fmt(rows) << " | " << fmt(aspt) << " | " << fmt(notiles) << " | "
              << fmt(rows / aspt, 2) << "x | " << c.auto_name.substr(10) << " (" << fmt(auto_ms / best_v, 2) << ") | "
              << fmt(c.aspt_prep_ms, 1) << " | " << (c.max_err < 1e-5 ? "ok" : "ERR " + fmt(c.max_err * 1e6, 1) + "e-6")
              << " |\n";
  }
  std::cout << "\n| op | group | matrix | K | nnz | heavy share | rows | nnz_balanced | aspt | eigen | eigen/auto | "
               "auto (auto/best) | aspt prep ms | check |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& key : g_order) {
    if (key.op != "SpMM") continue;
    const auto& c = res.at(key);
    auto ms = [&](const char* n) { return c.ms.count(n) ? c.ms.at(n) : NAN; };
    const double rows = ms("omp.spmm.rows"), bal = ms("omp.spmm.nnz_balanced"), aspt = ms("omp.spmm.aspt"),
                 eigen = ms("eigen");
    const double best_v = std::min({rows, bal, aspt}), auto_ms = ms(c.auto_name.c_str());
    const std::string gk = key.group + ", K=" + std::to_string(key.k);
    rt.add("SpMM rows/aspt, " + gk, rows / aspt);
    rt.add("SpMM rows/nnz_balanced, " + gk, rows / bal);
    rt.add("SpMM eigen/auto, " + gk, eigen / auto_ms);
    rt.add("SpMM auto/best, " + gk, auto_ms / best_v);
    if (c.ms.count("aspt[control]")) rt.add("SpMM aspt[control]/aspt, " + gk, c.ms.at("aspt[control]") / aspt);
    if (auto_ms / best_v > rt.worst_auto) {
      rt.worst_auto = auto_ms / best_v;
      rt.worst_auto_case = "SpMM " + key.matrix + " K=" + std::to_string(key.k);
    }
    std::cout << "| SpMM | " << key.group << " | " << key.matrix << " | " << key.k << " | " << c.nnz << " | "
              << fmt(c.heavy_share, 2) << " | " << fmt(rows) << " | " << fmt(bal) << " | " << fmt(aspt) << " | "
              << fmt(eigen) << " | " << fmt(eigen / auto_ms, 2) << "x | " << c.auto_name.substr(9) << " ("
              << fmt(auto_ms / best_v, 2) << ") | " << fmt(c.aspt_prep_ms, 1) << " | "
              << (c.max_err < 1e-5 ? "ok" : "ERR " + fmt(c.max_err * 1e6, 1) + "e-6") << " |\n";
  }
  // ASpT parameter sweep: the five best settings per case next to the default.
  for (const auto& key : g_order) {
    const auto& c = res.at(key);
    std::vector<std::pair<double, std::string>> v;
    for (const auto& [who, t] : c.ms)
      if (who.rfind("aspt[p", 0) == 0) v.push_back({t, who});
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    std::cout << "sweep " << key.op << " " << key.matrix << " K=" << key.k << ": default "
              << fmt(c.ms.at(key.op == "SDDMM" ? "omp.sddmm.aspt" : "omp.spmm.aspt")) << ", best";
    for (std::size_t i = 0; i < std::min<std::size_t>(5, v.size()); ++i) std::cout << ' ' << v[i].second << '=' << fmt(v[i].first);
    std::cout << '\n';
  }
  std::cout << "\n| ratio | matrices | geomean | min | max |\n|---|---|---|---|---|\n";
  for (const auto& [key, v] : rt.by_key) {
    double lg = 0;
    for (double r : v) lg += std::log(r);
    std::cout << "| " << key << " | " << v.size() << " | " << fmt(std::exp(lg / double(v.size())), 2) << " | "
              << fmt(*std::min_element(v.begin(), v.end()), 2) << " | " << fmt(*std::max_element(v.begin(), v.end()), 2)
              << " |\n";
  }
  std::cout << "\nworst auto/best: " << fmt(rt.worst_auto, 3) << " (" << rt.worst_auto_case << ")\n";
}

}  // namespace

int run(int argc, char** argv);

// An argument's value as a number, all of it; a usage error (exit 2) naming the option otherwise.
template <typename T>
T number(const std::string& text, const char* option) {
  std::istringstream in(text);
  T v{};
  if (!(in >> v) || !(in >> std::ws).eof()) {
    std::cerr << "omp_quick: " << option << ": '" << text << "' is not a number\n";
    std::exit(2);
  }
  return v;
}

int main(int argc, char** argv) {
  // OpenMP reads its environment when the program starts: restart once with spinning idle
  // threads so that preempted samples can be recognised (see preemptions()).
  if (!std::getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "active", 1);
    execv("/proc/self/exe", argv);
  }
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // an unreadable or malformed --report file: one line
    std::cerr << "omp_quick: error: " << e.what() << "\n";
    return 1;
  }
}

int run(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") o.quick = true;
    else if (a == "--sweep") o.sweep = true;
    else if (a == "--dlmc-all") o.dlmc_all = true;
    else if (a == "--control") o.control = true;
    else if (a == "--only" && i + 1 < argc) o.only = argv[++i];
    else if (a == "--op" && i + 1 < argc) o.op = argv[++i];
    else if (a == "--shares" && i + 1 < argc) {
      std::stringstream ss(argv[++i]);
      for (std::string t; std::getline(ss, t, ',');)
        o.shares.push_back(number<double>(t, "--shares"));
    } else if (a == "--rounds" && i + 1 < argc)
      o.rounds = number<int>(argv[++i], "--rounds");
    else if (a == "--sample-ms" && i + 1 < argc)
      o.sample_ms = number<double>(argv[++i], "--sample-ms");
    else if (a == "--csv" && i + 1 < argc) o.csv = argv[++i];
    else if (a == "--report") {
      while (i + 1 < argc) o.reports.push_back(argv[++i]);
    } else if (a == "--k" && i + 1 < argc) {
      o.ks.clear();
      std::stringstream ss(argv[++i]);
      for (std::string t; std::getline(ss, t, ',');) o.ks.push_back(number<int>(t, "--k"));
    } else {
      std::cerr << "usage: omp_quick [--quick] [--sweep] [--shares 0.5,-1] [--control] [--dlmc-all] [--only SUBSTRING]\n"
                   "                 [--op spmm|sddmm] [--k 32,128] [--rounds N] [--sample-ms MS] [--csv FILE]\n"
                   "       omp_quick --report FILE...\n";
      return 2;
    }
  }
  bool ok = o.rounds >= 1 && o.sample_ms >= 0 && !o.ks.empty() &&
            (o.op.empty() || o.op == "spmm" || o.op == "sddmm" || o.op == "both");
  for (int k : o.ks) ok = ok && k >= 1;
  if (!ok) {
    std::cerr << "omp_quick: --rounds must be at least 1, --sample-ms at least 0, every --k at "
                 "least 1, --op spmm, sddmm or both\n";
    return 2;
  }
  Results res;
  if (!o.reports.empty()) {
    for (const auto& f : o.reports) read_csv(f, res);
    report(res);
    return 0;
  }
  std::cerr << "threads: " << omp_get_max_threads() << ", best of " << o.rounds << " round-robin rounds\n";
  const auto ms = matrices(o);
  for (const auto& m : ms) {
    if (!o.only.empty() && m.name.find(o.only) == std::string::npos && m.group.find(o.only) == std::string::npos) continue;
    if (o.op != "spmm")
      for (int k : o.ks) bench_sddmm(m, k, o, res);
    if (o.op != "sddmm")
      for (int k : o.ks) bench_spmm(m, k, o, res);
  }
  if (!o.csv.empty()) {
    write_csv(o.csv, res);
  } else {
    std::cout << "threads: " << omp_get_max_threads() << ", times in ms (best of " << o.rounds << " rounds)\n\n";
    report(res);
  }
  return 0;
}
