// The readers on the real public files in ../shared/data (each test skips when its file is absent).
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/io/csv.hpp"
#include "core/io/format.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/ratings.hpp"
#include "core/io/smtx.hpp"
#include "core/io/uci.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

#define FK_REQUIRE_DATA(var, rel)                 \
  const std::string var = test::shared_data(rel); \
  if (var.empty()) GTEST_SKIP() << "../shared/data/" << rel << " absent"

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(IoRealData, KosCorpusCountsAndSpeed) {
  FK_REQUIRE_DATA(docword, "uci-kos/docword.kos.txt.gz");
  FK_REQUIRE_DATA(vocab, "uci-kos/vocab.kos.txt");
  const auto t0 = std::chrono::steady_clock::now();
  const io::Corpus c = io::read_uci(docword, vocab);
  const double secs = seconds_since(t0);
  RecordProperty("read_seconds", std::to_string(secs));
  EXPECT_EQ(c.counts.rows, 3430);
  EXPECT_EQ(c.counts.cols, 6906);
  EXPECT_EQ(c.counts.nnz(), 353160);
  double tokens = 0;
  for (float v : c.counts.vals) tokens += v;
  EXPECT_EQ(tokens, 467714.0);
  ASSERT_EQ(c.vocab.size(), 6906u);
  EXPECT_EQ(c.vocab.front(), "aarp");
  EXPECT_EQ(c.vocab.back(), "zones");
  // The file opens with "1 61 2" and "1 76 1".
  ASSERT_GE(c.counts.row_ptr[1], 2);
  EXPECT_EQ(c.counts.col_idx[0], 60);
  EXPECT_EQ(c.counts.vals[0], 2.0f);
  EXPECT_EQ(c.counts.col_idx[1], 75);
  EXPECT_EQ(io::detect_format(docword), io::InputFormat::kUci);
#ifdef NDEBUG
  EXPECT_LT(secs, 1.0) << "reading KOS took " << secs << " s";
#endif
}

TEST(IoRealData, MovieLens100k) {
  FK_REQUIRE_DATA(path, "movielens-100k/u.data");
  const io::Ratings r = io::read_ratings(path);
  EXPECT_EQ(r.size(), 100000);
  EXPECT_EQ(r.users(), 943);
  EXPECT_EQ(r.items(), 1682);
  EXPECT_EQ(r.user_ids[0], "196");  // first line: 196 242 3 881250949
  EXPECT_EQ(r.item_ids[0], "242");
  EXPECT_EQ(r.rating[0], 3.0f);
  double sum = 0;
  for (float v : r.rating) {
    EXPECT_TRUE(v == 1 || v == 2 || v == 3 || v == 4 || v == 5) << v;
    sum += v;
  }
  EXPECT_EQ(sum, 352986.0);
  const HostCsr m = r.to_csr();
  EXPECT_EQ(m.rows, 943);
  EXPECT_EQ(m.cols, 1682);
  EXPECT_EQ(m.nnz(), 100000);
  EXPECT_EQ(io::detect_format(path), io::InputFormat::kRatings);
}

// A symmetric matrix read from one stored triangle must equal its transpose.
void expect_symmetric(const HostCsr& m) {
  HostCsr a = m;
  sort_columns(a);
  HostCsr t = transpose(a.view());
  sort_columns(t);
  EXPECT_EQ(a.row_ptr, t.row_ptr);
  EXPECT_EQ(a.col_idx, t.col_idx);
  EXPECT_EQ(a.vals, t.vals);
}

TEST(IoRealData, SuiteSparseSymmetricMatricesExpand) {
  struct Want {
    const char* file;
    std::int64_t n, nnz;
    bool pattern;
  };
  int found = 0;
  for (const Want& w : {Want{"suitesparse/bcsstk13.mtx", 2003, 83883, false},
                        Want{"suitesparse/delaunay_n14.mtx", 16384, 98244, true},
                        Want{"suitesparse/hep-th.mtx", 8361, 31502, false}}) {
    const std::string path = test::shared_data(w.file);
    if (path.empty()) continue;
    ++found;
    SCOPED_TRACE(w.file);
    const HostCsr m = io::read_matrix_market(path);
    EXPECT_EQ(m.rows, w.n);
    EXPECT_EQ(m.cols, w.n);
    EXPECT_EQ(m.nnz(), w.nnz);
    validate(m.view());
    expect_symmetric(m);
    if (w.pattern) {
      EXPECT_EQ(m.vals, std::vector<float>(m.col_idx.size(), 1.0f));
    }
    EXPECT_EQ(io::read_matrix_market_coo(path).nnz(), w.nnz);
    EXPECT_EQ(io::detect_format(path), io::InputFormat::kMtx);
  }
  if (found == 0) GTEST_SKIP() << "no SuiteSparse files in ../shared/data";
}

TEST(IoRealData, HepThFirstEntryAndMirror) {
  FK_REQUIRE_DATA(path, "suitesparse/hep-th.mtx");
  // The first stored entry is "7765 1 1": (7764, 0) and its mirror (0, 7764), both 1.
  const HostCoo coo = io::read_matrix_market_coo(path);
  ASSERT_GE(coo.nnz(), 2);
  EXPECT_EQ(coo.row[0], 7764);
  EXPECT_EQ(coo.col[0], 0);
  EXPECT_EQ(coo.row[1], 0);
  EXPECT_EQ(coo.col[1], 7764);
  EXPECT_EQ(coo.val[0], 1.0f);
  EXPECT_EQ(coo.val[1], 1.0f);
}

// Every DLMC ResNet-50 .smtx file present against its row of dlmc_rn50.csv (rows, cols, nnz and
// the row-length mean and population standard deviation).
TEST(IoRealData, DlmcFilesMatchTheirCatalogue) {
  FK_REQUIRE_DATA(catalogue, "dlmc/dlmc_rn50.csv");
  io::CsvReader in(catalogue);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < in.header().size(); ++i) col[in.header()[i]] = i;
  for (const char* k : {"path", "nrows", "ncols", "nnz", "mean_nnz_per_row", "std_nnz_per_row"})
    ASSERT_TRUE(col.count(k)) << "catalogue lacks column " << k;
  std::vector<std::string> f;
  int checked = 0;
  while (in.next(f)) {
    const std::string path = test::shared_data(f[col["path"]]);  // e.g. dlmc/rn50/.../x.smtx
    if (path.empty()) continue;  // the catalogue lists more matrices than are stored here
    SCOPED_TRACE(path);
    const HostCsr m = io::read_smtx(path);
    EXPECT_EQ(m.rows, std::stoll(f[col["nrows"]]));
    EXPECT_EQ(m.cols, std::stoll(f[col["ncols"]]));
    EXPECT_EQ(static_cast<double>(m.nnz()), std::stod(f[col["nnz"]]));
    const SparseFeatures feat = features(m.view());
    EXPECT_NEAR(feat.row_mean, std::stod(f[col["mean_nnz_per_row"]]), 1e-6 * feat.row_mean);
    EXPECT_NEAR(feat.row_cv * feat.row_mean, std::stod(f[col["std_nnz_per_row"]]),
                1e-5 * std::max(1.0, feat.row_mean));
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no .smtx files in ../shared/data/dlmc";
  RecordProperty("files_checked", checked);
}

TEST(IoRealData, DlmcDetectedAsSmtx) {
  FK_REQUIRE_DATA(path, "dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group1_1_1.smtx");
  EXPECT_EQ(io::detect_format(path), io::InputFormat::kSmtx);
  const HostCsr m = io::read_smtx(path);
  EXPECT_EQ(m.rows, 64);
  EXPECT_EQ(m.cols, 256);
  EXPECT_EQ(m.nnz(), 1638);
}

}  // namespace
}  // namespace fk
