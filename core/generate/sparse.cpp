#include "core/generate/sparse.hpp"

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>

#include "core/error.hpp"
#include "core/generate/sampling.hpp"
#include "core/memory.hpp"
#include "core/parallel_errors.hpp"
#include "core/random.hpp"

namespace fk::gen {
namespace {

using detail::apportion;
using detail::DistinctSampler;
using detail::random_permutation;
using detail::zipf_weights;

// Stream layout under Rng(seed): split(0) row lengths (per row: split(0).split(r); for vector,
// per block of rows: split(0).split(b)), split(1) shuffles of Zipf ranks, split(2).split(r) the
// columns and values of row r (vector: its values only), split(3).split(g) the column set of
// cluster g (vector: of block g).
constexpr std::uint64_t kLengthStream = 0, kRankStream = 1, kRowStream = 2, kClusterStream = 3;
constexpr std::int64_t kRowBlock = 256;
constexpr double kDefaultPowerLaw = 1.0;
constexpr std::int64_t kDefaultClusterRows = 32;
constexpr std::int64_t kDefaultVectorRows = 4;
constexpr double kInClusterShare = 0.8;      // share of a clustered row's entries in its column set
constexpr double kClusterWidthFactor = 1.5;  // column set size / mean row length
const float kBelowOneAndHalf = std::nextafter(1.5f, 0.0f);

struct KindName {
  SparseKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {{SparseKind::kUniform, "uniform"},
                               {SparseKind::kPowerLaw, "powerlaw"},
                               {SparseKind::kBanded, "banded"},
                               {SparseKind::kBlockClustered, "clustered"},
                               {SparseKind::kColumnVector, "vector"}};

const char* kind_name(SparseKind k) {
  for (const KindName& kn : kKinds)
    if (kn.kind == k) return kn.name;
  return "?";
}

[[noreturn]] void spec_error(const std::string& text, const std::string& what) {
  throw Error("sparse spec '" + text + "': " + what +
              " (expected KIND:rows=R,cols=C,nnz=Z[,param=P][,seed=S], KIND one of uniform, "
              "powerlaw, banded, clustered, vector)");
}

// Integers may be written plainly or in exact scientific form ("1e6").
bool parse_count(const std::string& v, std::int64_t& out) {
  if (v.empty()) return false;
  if (v.find_first_not_of("0123456789") == std::string::npos) {
    errno = 0;
    char* end = nullptr;
    const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || x > static_cast<unsigned long long>(INT64_MAX)) return false;
    out = static_cast<std::int64_t>(x);
    return true;
  }
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (*end != '\0' || !std::isfinite(d) || d < 0 || d > 9e15 || d != std::floor(d)) return false;
  out = static_cast<std::int64_t>(d);
  return true;
}

// Rows that share one length and one column set: a vector's rows, or 1 for the other kinds.
std::int64_t rows_per_vector(const SparseSpec& s) {
  if (s.kind != SparseKind::kColumnVector) return 1;
  return s.param ? static_cast<std::int64_t>(*s.param) : kDefaultVectorRows;
}

std::int64_t band_half_width(const SparseSpec& s) {
  const double width = s.param.value_or(
      2.0 * std::ceil(static_cast<double>(s.nnz) / static_cast<double>(s.rows)) + 1);
  return static_cast<std::int64_t>(width - 1) / 2;  // the band is 2h + 1 columns
}

// The band of row r: [lo, hi) around the diagonal scaled to the matrix shape.
void band_of(const SparseSpec& s, std::int64_t h, std::int64_t r, std::int64_t& lo,
             std::int64_t& hi) {
  const auto center = static_cast<std::int64_t>(
      (static_cast<double>(r) + 0.5) * static_cast<double>(s.cols) / static_cast<double>(s.rows));
  lo = std::max<std::int64_t>(0, center - h);
  hi = std::min<std::int64_t>(s.cols, center + h + 1);
}

void check_spec(const SparseSpec& s) {
  FK_REQUIRE(s.rows >= 1, "sparse: rows must be >= 1, got " << s.rows);
  FK_REQUIRE(s.cols >= 1 && s.cols <= std::numeric_limits<std::int32_t>::max(),
             "sparse: cols must be in [1, 2^31), got " << s.cols);
  FK_REQUIRE(s.nnz >= 0, "sparse: nnz must be >= 0, got " << s.nnz);
  FK_REQUIRE(
      static_cast<double>(s.nnz) <= static_cast<double>(s.rows) * static_cast<double>(s.cols),
      "sparse: nnz " << s.nnz << " exceeds rows x cols = " << s.rows << " x " << s.cols);
  // Row offsets and per-row counts, and each nonzero's column and value (twice while they are
  // sorted into rows); each thread's column marks (DistinctSampler), and for powerlaw the rows'
  // and columns' ranks and weights and the columns' alias table.
  const double rows = static_cast<double>(s.rows), cols = static_cast<double>(s.cols);
  const bool power = s.kind == SparseKind::kPowerLaw;
  const double bytes = (power ? 32.0 : 16.0) * (rows + 1) + 16.0 * static_cast<double>(s.nnz) +
                       4.0 * cols * omp_get_max_threads() + (power ? 40.0 * cols : 0.0);
  FK_REQUIRE(fits_in_memory(bytes), "sparse: " << s.rows << " rows, " << s.cols << " columns and "
                                               << s.nnz << " nonzeros need "
                                               << memory_shortfall(bytes));
  // A param given is checked against its kind's range (NaN fails every comparison); one not
  // given takes the kind's default, which is always valid.
  const double p = s.param.value_or(0);
  const bool whole = p == std::floor(p);
  switch (s.kind) {
    case SparseKind::kUniform:
      FK_REQUIRE(!s.param, "sparse: uniform takes no param, got " << p);
      break;
    case SparseKind::kPowerLaw:
      FK_REQUIRE(!s.param || (p >= 0 && p <= 5),
                 "sparse: powerlaw param (Zipf exponent) must be in [0, 5], got " << p);
      break;
    case SparseKind::kBanded:
      FK_REQUIRE(!s.param || (whole && p >= 1 && p <= 2.0 * static_cast<double>(s.cols) + 1),
                 "sparse: banded param (band width in columns) must be a whole number in [1, "
                     << 2 * s.cols + 1 << "] (2 cols + 1), got " << p);
      break;
    case SparseKind::kBlockClustered:
      FK_REQUIRE(!s.param || (whole && p >= 1 && p <= static_cast<double>(s.rows)),
                 "sparse: clustered param (rows per cluster) must be a whole number in [1, "
                     << s.rows << "] (rows), got " << p);
      break;
    case SparseKind::kColumnVector: {
      FK_REQUIRE(!s.param || p == 2 || p == 4 || p == 8,
                 "sparse: vector param (rows per vector) must be 2, 4 or 8, got " << p);
      const std::int64_t v = rows_per_vector(s);
      FK_REQUIRE(s.rows % v == 0 && s.nnz % v == 0,
                 "sparse: vector rows and nnz must be multiples of "
                     << v << " (rows per vector), got rows=" << s.rows << ", nnz=" << s.nnz);
      break;
    }
  }
}

}  // namespace

SparseSpec parse_sparse_spec(const std::string& text) {
  SparseSpec s;
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) spec_error(text, "missing ':' after the kind");
  const std::string kind = text.substr(0, colon);
  bool kind_ok = false;
  for (const KindName& kn : kKinds)
    if (kind == kn.name) {
      s.kind = kn.kind;
      kind_ok = true;
    }
  if (!kind_ok) spec_error(text, "unknown kind '" + kind + "'");
  bool seen_rows = false, seen_cols = false, seen_nnz = false, seen_param = false,
       seen_seed = false;
  std::stringstream fields(text.substr(colon + 1));
  std::string field;
  while (std::getline(fields, field, ',')) {
    const std::size_t eq = field.find('=');
    if (eq == std::string::npos) spec_error(text, "'" + field + "' is not key=value");
    const std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    auto once = [&](bool& seen) {
      if (seen) spec_error(text, "'" + key + "' given twice");
      seen = true;
    };
    std::int64_t n = 0;
    if (key == "rows" || key == "cols" || key == "nnz" || key == "seed") {
      if (!parse_count(value, n)) spec_error(text, "bad value '" + value + "' for " + key);
      if (key == "rows") once(seen_rows), s.rows = n;
      if (key == "cols") once(seen_cols), s.cols = n;
      if (key == "nnz") once(seen_nnz), s.nnz = n;
      if (key == "seed") once(seen_seed), s.seed = static_cast<std::uint64_t>(n);
    } else if (key == "param") {
      once(seen_param);
      char* end = nullptr;
      const double p = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !std::isfinite(p))
        spec_error(text, "bad value '" + value + "' for param");
      s.param = p;  // its range depends on the kind: check_spec
    } else {
      spec_error(text, "unknown key '" + key + "'");
    }
  }
  if (!seen_rows) spec_error(text, "missing rows=");
  if (!seen_cols) spec_error(text, "missing cols=");
  if (!seen_nnz) spec_error(text, "missing nnz=");
  try {
    check_spec(s);
  } catch (const Error& e) {
    spec_error(text, e.what());
  }
  return s;
}

std::string to_string(const SparseSpec& spec) {
  std::ostringstream os;
  os << kind_name(spec.kind) << ":rows=" << spec.rows << ",cols=" << spec.cols
     << ",nnz=" << spec.nnz;
  if (spec.param) {  // a param given is part of the spec, 0 included
    // The shortest form that reads back to the same double.
    std::ostringstream p;
    for (int digits = 6; digits <= 17; ++digits) {
      p.str("");
      p.precision(digits);
      p << *spec.param;
      if (std::strtod(p.str().c_str(), nullptr) == *spec.param) break;
    }
    os << ",param=" << p.str();
  }
  os << ",seed=" << spec.seed;
  return os.str();
}

HostCsr generate_sparse(const SparseSpec& spec) {
  check_spec(spec);
  const std::int64_t R = spec.rows, C = spec.cols;
  const Rng root(spec.seed);
  const double mean_len = static_cast<double>(spec.nnz) / static_cast<double>(R);

  // Row lengths: proportional weights and per-row caps, apportioned to exactly nnz. For vector,
  // one length per block of V rows (which all take it), apportioned to nnz / V.
  const std::int64_t V = rows_per_vector(spec), units = R / V;
  std::vector<double> weights(static_cast<std::size_t>(units), 1.0);
  std::vector<std::int64_t> caps(static_cast<std::size_t>(units), C);
  std::vector<double> col_weights;  // powerlaw only
  const std::int64_t half = spec.kind == SparseKind::kBanded ? band_half_width(spec) : 0;
  const Rng length_root = root.split(kLengthStream);
  switch (spec.kind) {
    case SparseKind::kUniform:
    case SparseKind::kBlockClustered:
    case SparseKind::kColumnVector:
      // Poisson lengths, as when every entry's row is uniform.
#pragma omp parallel for schedule(static)
      for (std::int64_t u = 0; u < units; ++u) {
        Rng rng = length_root.split(static_cast<std::uint64_t>(u));
        weights[u] = static_cast<double>(rng.poisson(mean_len));
      }
      break;
    case SparseKind::kPowerLaw: {
      const double a = spec.param.value_or(kDefaultPowerLaw);
      Rng rank_rng = root.split(kRankStream);
      const std::vector<std::int64_t> row_rank = random_permutation(R, rank_rng);
      const std::vector<double> zr = zipf_weights(R, a);
      for (std::int64_t r = 0; r < R; ++r) weights[r] = zr[row_rank[r]];
      const std::vector<std::int64_t> col_rank = random_permutation(C, rank_rng);
      const std::vector<double> zc = zipf_weights(C, a);
      col_weights.resize(static_cast<std::size_t>(C));
      for (std::int64_t c = 0; c < C; ++c) col_weights[c] = zc[col_rank[c]];
      break;
    }
    case SparseKind::kBanded: {
      double capacity = 0;
      for (std::int64_t r = 0; r < R; ++r) {
        std::int64_t lo, hi;
        band_of(spec, half, r, lo, hi);
        caps[r] = hi - lo;
        capacity += static_cast<double>(hi - lo);
      }
      // A bad spec, not an internal fault: the message goes to the user as it is.
      FK_REQUIRE(static_cast<double>(spec.nnz) <= capacity,
                 "sparse: nnz " << spec.nnz << " does not fit in a band of " << 2 * half + 1
                                << " columns (" << static_cast<std::int64_t>(capacity)
                                << " places); raise param or lower nnz");
      break;
    }
  }
  const std::vector<std::int64_t> len = apportion(weights, caps, spec.nnz / V);  // per unit
  std::vector<double>().swap(weights);

  HostCsr m;
  m.rows = R;
  m.cols = C;
  m.row_ptr.assign(static_cast<std::size_t>(R) + 1, 0);
  for (std::int64_t r = 0; r < R; ++r) m.row_ptr[r + 1] = m.row_ptr[r] + len[r / V];
  FK_CHECK(m.row_ptr[R] == spec.nnz,
           "sparse: internal error, apportioned " << m.row_ptr[R] << " of " << spec.nnz);
  m.col_idx.resize(static_cast<std::size_t>(spec.nnz));
  m.vals.resize(static_cast<std::size_t>(spec.nnz));

  // Clustered rows come in groups; a work item is one group so its column set is drawn once.
  const std::int64_t group =
      spec.kind == SparseKind::kBlockClustered
          ? (spec.param ? static_cast<std::int64_t>(*spec.param) : std::min(kDefaultClusterRows, R))
          : kRowBlock;
  const std::int64_t set_size = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(std::ceil(kClusterWidthFactor * mean_len)), 1, C);
  const std::int64_t nblocks = (R + group - 1) / group;
  std::unique_ptr<AliasTable> col_table;
  if (!col_weights.empty()) col_table = std::make_unique<AliasTable>(col_weights);
  const Rng row_root = root.split(kRowStream), cluster_root = root.split(kClusterStream);
  ParallelErrors errors;
#pragma omp parallel
  {
    std::unique_ptr<DistinctSampler> sampler;
    errors.run([&] {
      sampler = col_table ? std::make_unique<DistinctSampler>(&col_weights, col_table.get())
                          : std::make_unique<DistinctSampler>(C);
    });
    std::vector<std::int32_t> cols, set, picked, outside;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < nblocks; ++b) {
      errors.run(b, [&] {
        const std::int64_t r0 = b * group, r1 = std::min(R, r0 + group);
        if (spec.kind == SparseKind::kBlockClustered) {
          Rng g = cluster_root.split(static_cast<std::uint64_t>(b));
          sampler->sample_below(set_size, C, g, set);
        }
        for (std::int64_t r = r0; r < r1; ++r) {
          Rng rng = row_root.split(static_cast<std::uint64_t>(r));
          const std::int64_t n = len[r / V];
          switch (spec.kind) {
            case SparseKind::kUniform:
            case SparseKind::kPowerLaw:
              sampler->sample(n, rng, cols);
              break;
            case SparseKind::kBanded: {
              std::int64_t lo, hi;
              band_of(spec, half, r, lo, hi);
              sampler->sample_below(n, hi - lo, rng, cols);
              for (std::int32_t& c : cols) c += static_cast<std::int32_t>(lo);
              break;
            }
            case SparseKind::kBlockClustered: {
              const auto s = static_cast<std::int64_t>(set.size());
              std::int64_t k_in =
                  std::min<std::int64_t>(s, std::llround(kInClusterShare * static_cast<double>(n)));
              std::int64_t k_out = n - k_in;
              if (k_out > C - s) {
                k_out = C - s;
                k_in = n - k_out;
              }
              sampler->sample_below(k_in, s, rng, picked);  // positions in the set
              for (std::int32_t& p : picked) p = set[p];
              // The others: positions among the columns outside the set, mapped by a merge walk.
              sampler->sample_below(k_out, C - s, rng, outside);
              std::size_t si = 0;
              for (std::int32_t& o : outside) {
                // o-th column not in `set` (both sorted): skip set members at or below it.
                while (si < set.size() && set[si] <= o + static_cast<std::int32_t>(si)) ++si;
                o += static_cast<std::int32_t>(si);
              }
              cols.resize(picked.size() + outside.size());
              std::merge(picked.begin(), picked.end(), outside.begin(), outside.end(),
                         cols.begin());
              break;
            }
            case SparseKind::kColumnVector:
              // A vector's first row draws the shared column set and the others repeat it; work
              // items of kRowBlock rows never split a vector, as V divides kRowBlock.
              if (r % V == 0) {
                Rng g = cluster_root.split(static_cast<std::uint64_t>(r / V));
                sampler->sample(n, g, set);
              }
              cols = set;
              break;
          }
          FK_CHECK(static_cast<std::int64_t>(cols.size()) == n,
                   "sparse: internal error, row " << r << " drew " << cols.size() << " of " << n);
          const std::int64_t at = m.row_ptr[r];
          for (std::int64_t j = 0; j < n; ++j) {
            m.col_idx[at + j] = cols[j];
            // Rounding to float could reach 1.5 itself; keep the interval half-open.
            m.vals[at + j] = std::min(static_cast<float>(0.5 + rng.uniform()), kBelowOneAndHalf);
          }
        }
      });
    }
  }
  errors.rethrow();
  return m;
}

}  // namespace fk::gen
