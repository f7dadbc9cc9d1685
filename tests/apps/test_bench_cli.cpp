// fk-bench as a user runs it: the built binary (FK_BENCH_EXE) on tiny generated problems on the
// CPU. Checks the exit status, the CSV (header, one row per variant and case, every row checked
// against the reference), appending to an existing CSV, --list, and that bad options fail with a
// message naming the option.
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/build_info.hpp"
#include "core/generate/sparse.hpp"
#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"
#include "tests/apps/app_test_util.hpp"

namespace fk {
namespace {

using Outcome = test::ExeOutcome;
using test::slurp;

// Runs fk-bench with `args` (already shell-quoted where needed), capturing both streams.
Outcome run_bench(const test::TempDir& dir, const std::string& args) {
  return test::run_executable(dir, FK_BENCH_EXE, args);
}

// RFC 4180 lines: quoted fields may hold commas and doubled quotes (no embedded newlines here).
std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

struct Csv {
  std::string header_line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
};

Csv read_csv(const std::string& path) {
  std::ifstream in(path);
  Csv csv;
  std::getline(in, csv.header_line);
  csv.header = split_csv_line(csv.header_line);
  std::string line;
  while (std::getline(in, line)) {
    const auto fields = split_csv_line(line);
    EXPECT_EQ(fields.size(), csv.header.size()) << "CSV row with the wrong field count: " << line;
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < fields.size() && i < csv.header.size(); ++i) row[csv.header[i]] = fields[i];
    csv.rows.push_back(row);
  }
  return csv;
}

// What a default CPU run must time: every CPU variant this build registers that applies to the
// problem (the generated matrix of `spec` at width k, transposed for Sᵀ·B as the registry sees
// it), plus "auto".
template <typename V>
std::multiset<std::string> cpu_variants(const std::vector<const V*>& all, const std::string& spec, int k,
                                        bool transposed = false) {
  KernelProblem problem{features(gen::generate_sparse(gen::parse_sparse_spec(spec)).view()), k};
  if (transposed) {
    std::swap(problem.sparse.rows, problem.sparse.cols);
    problem.sparse.row_mean = double(problem.sparse.nnz) / double(problem.sparse.rows);
  }
  std::multiset<std::string> names{"auto"};
  for (const V* v : all)
    if (device_of(v->backend()) == DeviceKind::kCpu && v->why_not(problem).empty()) names.insert(v->name());
  return names;
}

// A fresh seed per run: every variant must be right on any input, not on one lucky draw.
std::string fresh_seed() { return std::to_string(std::random_device{}() % 1000000 + 1); }

const char* const kExpectedHeader =
    "op,form,matrix,m,n,nnz,k,variant,chosen,device,device_name,threads,prep_ms,median_ms,min_ms,"
    "max_ms,runs,gflops,gbps,"
    "floor_ms,bound,baseline,speedup_vs_baseline,max_rel_err,checked_rows,status,message,seed,"
    "precision,flush_bytes,warmup,tolerance,bandwidth_gbs,build";

// Every row of `csv` measured, correct to float32 rounding, with the numbers the report needs.
void expect_rows_checked(const Csv& csv) {
  for (const auto& row : csv.rows) {
    SCOPED_TRACE(row.at("variant") + " k=" + row.at("k") + " form=" + row.at("form"));
    EXPECT_EQ(row.at("status"), "ok") << row.at("message");
    ASSERT_FALSE(row.at("max_rel_err").empty());
    EXPECT_LT(std::stod(row.at("max_rel_err")), 1e-4);
    EXPECT_GT(std::stod(row.at("median_ms")), 0.0);
    EXPECT_LE(std::stod(row.at("min_ms")), std::stod(row.at("median_ms")));
    EXPECT_GE(std::stod(row.at("max_ms")), std::stod(row.at("median_ms")));
    EXPECT_GT(std::stod(row.at("gflops")), 0.0);
    EXPECT_GT(std::stod(row.at("bandwidth_gbs")), 0.0);
    EXPECT_EQ(row.at("build"), build_commit());
    EXPECT_GT(std::stod(row.at("floor_ms")), 0.0);
    EXPECT_EQ(row.at("device"), "cpu");
    EXPECT_EQ(row.at("precision"), "fp32");
    EXPECT_FALSE(row.at("flush_bytes").empty());
    EXPECT_FALSE(row.at("warmup").empty());
    EXPECT_DOUBLE_EQ(std::stod(row.at("tolerance")), 1e-4);
    if (row.at("variant") == "auto") {
      EXPECT_FALSE(row.at("chosen").empty()) << "the auto row must say what auto picked";
    }
    if (!row.at("baseline").empty() && row.at("variant") == row.at("baseline")) {
      EXPECT_DOUBLE_EQ(std::stod(row.at("speedup_vs_baseline")), 1.0);
    }
  }
}

// The variants of the rows with this K (and form/op), as a multiset: one row per variant.
std::multiset<std::string> variants_of(const Csv& csv, const std::string& k, const std::string& form) {
  std::multiset<std::string> names;
  for (const auto& row : csv.rows)
    if (row.at("k") == k && row.at("form") == form) names.insert(row.at("variant"));
  return names;
}

TEST(BenchCli, SddmmWritesOneCheckedRowPerVariantAndK) {
  test::TempDir dir;
  const std::string csv_path = dir.file("sddmm.csv");
  const std::string spec = "uniform:rows=300,cols=200,nnz=3000";
  const Outcome o = run_bench(dir, "sddmm --gen " + spec + " --device cpu --threads 2 --k 8,33 --runs 3 --warmup 1 "
                                   "--no-flush --seed " + fresh_seed() + " --csv '" + csv_path + "'");
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const Csv csv = read_csv(csv_path);
  EXPECT_EQ(csv.header_line, kExpectedHeader);
  const auto expected8 = cpu_variants(sddmm_variants(), spec, 8);
  const auto expected33 = cpu_variants(sddmm_variants(), spec, 33);
  EXPECT_GE(expected8.size(), 2u) << "at least ref.sddmm and auto";
  EXPECT_EQ(variants_of(csv, "8", "scaled"), expected8);
  EXPECT_EQ(variants_of(csv, "33", "scaled"), expected33);
  EXPECT_EQ(csv.rows.size(), expected8.size() + expected33.size());
  expect_rows_checked(csv);
  for (const auto& row : csv.rows) {
    EXPECT_EQ(row.at("op"), "sddmm");
    EXPECT_EQ(row.at("m"), "300");
    EXPECT_EQ(row.at("n"), "200");
  }
  // The table names every variant and the auto summary.
  for (const auto& name : expected33) EXPECT_NE(o.out.find(name), std::string::npos) << name;
  EXPECT_NE(o.out.find("auto picked"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("fastest ref."), std::string::npos) << "the oracle is no candidate";
}

// A row above --tolerance is 'wrong' and fails the run (exit 1, the count on stderr); a row at
// exactly the reference's value stays ok. --check-nnz bounds the rows checked.
TEST(BenchCli, RowsAboveTheToleranceAreWrongAndFailTheRun) {
  test::TempDir dir;
  const std::string csv_path = dir.file("t.csv");
  const Outcome o = run_bench(dir, "sddmm --gen powerlaw:rows=300,cols=200,nnz=3000 --device cpu --k 8 "
                                   "--runs 2 --warmup 0 --no-flush --tolerance 1e-12 --check-nnz 500 "
                                   "--csv '" + csv_path + "'");
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("exceeded the tolerance"), std::string::npos) << o.err;
  const Csv csv = read_csv(csv_path);
  ASSERT_FALSE(csv.rows.empty());
  int wrong = 0;
  for (const auto& row : csv.rows) {
    SCOPED_TRACE(row.at("variant"));
    EXPECT_DOUBLE_EQ(std::stod(row.at("tolerance")), 1e-12);
    const std::int64_t checked = std::stoll(row.at("checked_rows"));
    EXPECT_GT(checked, 0);
    EXPECT_LT(checked, 300) << "--check-nnz 500 of 3000 nonzeros";
    const double err = std::stod(row.at("max_rel_err"));
    EXPECT_EQ(row.at("status"), err > 1e-12 ? "wrong" : "ok");
    wrong += row.at("status") == "wrong";
  }
  EXPECT_GT(wrong, 0) << "float sums in another order than the double reference's";
}

// --transpose benchmarks Sᵀ (its shape swapped, its label marked '^T'); --name replaces the label.
TEST(BenchCli, TransposeSwapsTheShapeAndNameSetsTheLabel) {
  test::TempDir dir;
  const std::string csv_path = dir.file("t.csv");
  const std::string common = "sddmm --gen uniform:rows=300,cols=200,nnz=3000 --device cpu --k 8 "
                              "--runs 2 --warmup 0 --no-flush --transpose --csv '" + csv_path + "'";
  ASSERT_EQ(run_bench(dir, common).code, 0);
  ASSERT_EQ(run_bench(dir, common + " --name mine").code, 0);
  const Csv csv = read_csv(csv_path);
  ASSERT_GE(csv.rows.size(), 4u);
  std::set<std::string> labels;
  for (const auto& row : csv.rows) {
    EXPECT_EQ(row.at("m"), "200");
    EXPECT_EQ(row.at("n"), "300");
    EXPECT_EQ(row.at("status"), "ok") << row.at("message");
    labels.insert(row.at("matrix"));
  }
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_TRUE(labels.count("mine"));
  const std::string generated = *labels.begin() == "mine" ? *labels.rbegin() : *labels.begin();
  EXPECT_EQ(generated.substr(generated.size() - 2), "^T") << generated;
}

// The compulsory bytes behind GB/s and the floor count only the rows of A and B that some nonzero
// reads: with empty rows and columns counted, kernels ran below the "floor" (x_floor 0.12).
TEST(BenchCli, CompulsoryBytesLeaveOutEmptyRowsAndColumns) {
  test::TempDir dir;
  const std::string mtx = dir.file("holes.mtx");
  // 6 x 5, nonzeros in rows 1 and 3 only, columns 2 and 4 only: 2 non-empty rows and columns.
  std::ofstream(mtx) << "%%MatrixMarket matrix coordinate real general\n6 5 3\n1 2 1.0\n"
                        "3 2 2.0\n3 4 0.5\n";
  const std::string csv_path = dir.file("b.csv");
  for (const char* op : {"sddmm", "ratio-spmm"}) {
    const Outcome o =
        run_bench(dir, std::string(op) + " --input '" + mtx + "' --device cpu --k 4 " +
                           "--runs 2 --warmup 0 --no-flush --csv '" + csv_path + "'");
    ASSERT_EQ(o.code, 0) << o.out << o.err;
  }
  const Csv csv = read_csv(csv_path);
  ASSERT_FALSE(csv.rows.empty());
  for (const auto& row : csv.rows) {
    SCOPED_TRACE(row.at("op") + " " + row.at("form") + " " + row.at("variant"));
    // SDDMM scaled: 12*3 + 4*4*(2 + 2); the ratio SpMM: 8*3 + 4*4*(2 + 2 + 6) (C's six rows).
    const double want = row.at("op") == "sddmm" ? 100.0 : 184.0;
    const double bytes = std::stod(row.at("gbps")) * 1e9 * std::stod(row.at("median_ms")) * 1e-3;
    EXPECT_NEAR(bytes, want, 2e-3 * want);
    EXPECT_EQ(row.at("flush_bytes"), "0");  // --no-flush, recorded
    EXPECT_EQ(row.at("warmup"), "0");
  }
  // On this tiny matrix the sequential oracle is the fastest row by far: the summary's "fastest"
  // must still be one of the variants auto chooses from.
  const Outcome s = run_bench(dir, "spmm --input '" + mtx +
                                       "' --device cpu --k 4 --runs 3 "
                                       "--warmup 1 --no-flush");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_NE(s.out.find("auto picked"), std::string::npos) << s.out;
  EXPECT_EQ(s.out.find("fastest ref."), std::string::npos) << s.out;
  // --precision bf16 on the CPU runs fp32 variants: the CSV says fp32, checked at fp32's
  // tolerance (the half-precision one would have let 100x larger errors pass).
  const std::string p_csv = dir.file("p.csv");
  const Outcome p =
      run_bench(dir, "spmm --input '" + mtx + "' --device cpu --k 4 --runs 2 " +
                         "--warmup 0 --no-flush --precision bf16 --csv '" + p_csv + "'");
  ASSERT_EQ(p.code, 0) << p.err;
  for (const auto& row : read_csv(p_csv).rows) {
    EXPECT_EQ(row.at("precision"), "fp32");
    EXPECT_DOUBLE_EQ(std::stod(row.at("tolerance")), 1e-4);
  }
}

TEST(BenchCli, SpmmBothOpsAndSddmmUnscaledAccumulateInOneCsv) {
  test::TempDir dir;
  const std::string csv_path = dir.file("all.csv");
  const std::string common = " --device cpu --threads 2 --runs 2 --warmup 1 --seed " + fresh_seed() +
                             " --csv '" + csv_path + "'";
  // Power-law rows (one long row among short ones), rectangular, K = 1 (SpMV) and an odd K.
  const std::string spmm_spec = "powerlaw:rows=400,cols=250,nnz=4000";
  const Outcome spmm =
      run_bench(dir, "spmm --gen " + spmm_spec + " --op both --k 1,17 --no-flush" + common);
  ASSERT_EQ(spmm.code, 0) << spmm.out << spmm.err;
  // The default cache flush is on for this one: it covers the flush path.
  const std::string sddmm_spec = "banded:rows=200,cols=200,nnz=2000";
  const Outcome sddmm = run_bench(dir, "sddmm --gen " + sddmm_spec + " --form unscaled --k 5" + common);
  ASSERT_EQ(sddmm.code, 0) << sddmm.out << sddmm.err;

  const Csv csv = read_csv(csv_path);
  EXPECT_EQ(csv.header_line, kExpectedHeader);
  std::size_t expected_rows = 0;
  for (const char* op : {"n", "t"}) {
    for (int k : {1, 17}) {
      const auto expected = cpu_variants(spmm_variants(), spmm_spec, k, op[0] == 't');
      EXPECT_EQ(variants_of(csv, std::to_string(k), op), expected) << "op " << op << " k " << k;
      expected_rows += expected.size();
    }
  }
  const auto sddmm_expected = cpu_variants(sddmm_variants(), sddmm_spec, 5);
  EXPECT_EQ(variants_of(csv, "5", "unscaled"), sddmm_expected);
  EXPECT_EQ(csv.rows.size(), expected_rows + sddmm_expected.size());
  expect_rows_checked(csv);
  // The header appears once: appended rows never repeat it.
  for (const auto& row : csv.rows) EXPECT_NE(row.at("op"), "op");
}

// ratio-spmm: the unfused pair as the baseline, every CPU ratio SpMM variant and auto, checked, over
// S and over Sᵀ. Rows of mean 120: auto runs the pair at K = 8 and the fused rows at K = 48
// (kernels/select.cpp).
TEST(BenchCli, RatioSpmmTimesThePairAndTheFusedVariants) {
  test::TempDir dir;
  const std::string csv_path = dir.file("ratio.csv");
  const Outcome o = run_bench(dir, "ratio-spmm --gen uniform:rows=100,cols=400,nnz=12000 --device cpu --threads 2 "
                                   "--op both --k 8,48 --runs 2 --warmup 1 --no-flush --seed " + fresh_seed() +
                                   " --csv '" + csv_path + "'");
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const Csv csv = read_csv(csv_path);
  EXPECT_EQ(csv.header_line, kExpectedHeader);
  const std::multiset<std::string> expected = {"pair", "ref.ratio_spmm", "omp.ratio_spmm.rows", "auto"};
  EXPECT_EQ(variants_of(csv, "8", "fused"), expected);
  EXPECT_EQ(variants_of(csv, "48", "fused"), expected);
  EXPECT_EQ(variants_of(csv, "8", "fused-t"), expected);
  EXPECT_EQ(variants_of(csv, "48", "fused-t"), expected);
  expect_rows_checked(csv);
  for (const auto& row : csv.rows) {
    EXPECT_EQ(row.at("op"), "ratio-spmm");
    EXPECT_EQ(row.at("baseline"), "pair");
    if (row.at("variant") != "auto" || row.at("form") != "fused") continue;
    if (row.at("k") == "48")
      EXPECT_EQ(row.at("chosen"), "omp.ratio_spmm.rows");
    else
      EXPECT_EQ(row.at("chosen"), "pair:omp.sddmm.aspt+omp.spmm.aspt");
  }
  // --variants pair times the pair alone (it ran auto beside it); --check-nnz 1, below every row,
  // still checks one row.
  const std::string pair_csv = dir.file("pair.csv");
  const Outcome p = run_bench(dir, "ratio-spmm --gen uniform:rows=100,cols=400,nnz=12000 --device cpu "
                                   "--k 8 --runs 1 --warmup 0 --no-flush --variants pair --check-nnz 1 "
                                   "--csv '" + pair_csv + "'");
  ASSERT_EQ(p.code, 0) << p.out << p.err;
  const Csv pair = read_csv(pair_csv);
  ASSERT_EQ(pair.rows.size(), 1u);
  EXPECT_EQ(pair.rows[0].at("variant"), "pair");
  EXPECT_EQ(pair.rows[0].at("checked_rows"), "1");
}

// --form all: the ratio SpMM's product and residual forms (fk-als's and fk-sfa's CG products and
// first residuals) against their pairs (the scaled SDDMM and the SpMM; the SDDMM, the subtraction
// and the SpMM), checked, beside the ratio form.
TEST(BenchCli, RatioSpmmProductAndResidualForms) {
  test::TempDir dir;
  const std::string csv_path = dir.file("product.csv");
  const Outcome o = run_bench(dir, "ratio-spmm --gen uniform:rows=100,cols=400,nnz=12000 --device cpu --threads 2 "
                                   "--form all --op both --k 48 --runs 2 --warmup 1 --no-flush --seed " +
                                   fresh_seed() + " --csv '" + csv_path + "'");
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const Csv csv = read_csv(csv_path);
  const std::multiset<std::string> expected = {"pair", "ref.ratio_spmm", "omp.ratio_spmm.rows", "auto"};
  for (const char* form : {"fused", "fused-t", "product", "product-t", "residual", "residual-t"})
    EXPECT_EQ(variants_of(csv, "48", form), expected) << form;
  expect_rows_checked(csv);
  const Outcome bad = run_bench(dir, "spmm --gen uniform:rows=10,cols=10,nnz=20 --form product");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("--form applies only to 'sddmm' and 'ratio-spmm'"), std::string::npos) << bad.err;
  const Outcome wrong = run_bench(dir, "ratio-spmm --gen uniform:rows=10,cols=10,nnz=20 --form scaled");
  EXPECT_NE(wrong.code, 0);
  EXPECT_NE(wrong.err.find("expected ratio, product, residual or all"), std::string::npos) << wrong.err;
}

TEST(BenchCli, RealFilesWithPatternOnlyValues) {
  const std::string mtx = test::shared_data("suitesparse/hep-th.mtx");
  const std::string smtx = test::shared_data("dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group1_1_1.smtx");
  if (mtx.empty() || smtx.empty()) GTEST_SKIP() << "../shared/data not present";
  test::TempDir dir;
  const std::string csv_path = dir.file("files.csv");
  for (const std::string& file : {mtx, smtx}) {
    const Outcome o = run_bench(dir, "spmm --input '" + file + "' --device cpu --threads 2 --k 4 --runs 1 --warmup 0 "
                                     "--no-flush --seed " + fresh_seed() + " --csv '" + csv_path + "'");
    ASSERT_EQ(o.code, 0) << file << "\n" << o.out << o.err;
  }
  const Csv csv = read_csv(csv_path);
  expect_rows_checked(csv);
  std::set<std::string> matrices;
  for (const auto& row : csv.rows) matrices.insert(row.at("matrix"));
  EXPECT_EQ(matrices, (std::set<std::string>{"hep-th", "0.9/bottleneck_1_block_group1_1_1"}));
}

// --explain-auto prints the rules' choice per (op, K) and runs nothing; its CSV rows carry the
// features the rules read and must name exactly what choose_*_variant picks for them. In a CUDA
// build the GPU rules are explained too, on this machine without a GPU.
TEST(BenchCli, ExplainAutoReportsTheRulesChoiceWithoutRunning) {
  test::TempDir dir;
  const std::string spec = "powerlaw:rows=300,cols=120,nnz=3000";
  const HostCsr s = gen::generate_sparse(gen::parse_sparse_spec(spec));
  std::vector<std::string> devices = {"cpu"};
  for (const auto* v : spmm_variants())
    if (device_of(v->backend()) == DeviceKind::kGpu) devices = {"cpu", "gpu"};
  for (const std::string& device : devices) {
    SCOPED_TRACE(device);
    const std::string csv_path = dir.file("picks-" + device + ".csv");
    const Outcome o = run_bench(dir, "spmm --gen " + spec + " --op both --k 1,4,32 --device " +
                                         device + " --explain-auto --csv '" + csv_path + "'");
    ASSERT_EQ(o.code, 0) << o.err;
    const Outcome d = run_bench(dir, "sddmm --gen " + spec + " --k 32,256 --device " + device +
                                         " --explain-auto --csv '" + csv_path + "'");
    ASSERT_EQ(d.code, 0) << d.err;
    EXPECT_NE(o.out.find("K=32"), std::string::npos) << o.out;
    // Half-precision picks on an unknown GPU: the output says what it assumed.
    const Outcome h = run_bench(dir, "spmm --gen " + spec + " --k 64 --device " + device +
                                         " --precision bf16 --explain-auto");
    ASSERT_EQ(h.code, 0) << h.err;
    EXPECT_EQ(h.out.find("compute capability 8.0 or newer") != std::string::npos, device == "gpu")
        << h.out;
    const Csv csv = read_csv(csv_path);
    ASSERT_EQ(csv.rows.size(), 3u * 2u + 2u);
    const DeviceKind kind = device == "gpu" ? DeviceKind::kGpu : DeviceKind::kCpu;
    for (const auto& row : csv.rows) {
      SCOPED_TRACE(row.at("op") + " " + row.at("form") + " k=" + row.at("k"));
      const bool transposed = row.at("form") == "t";
      KernelProblem p{features(transposed ? transpose(s.view()).view() : s.view()),
                      std::stoi(row.at("k"))};
      p.transposed = transposed;
      EXPECT_EQ(row.at("rows"), std::to_string(p.sparse.rows));
      EXPECT_EQ(row.at("device"), device);
      // Not sampled for Sᵀ: empty, not the defaults printed as if measured.
      EXPECT_EQ(row.at("col_span").empty(), transposed);
      EXPECT_EQ(row.at("neighbour_share").empty(), transposed);
      const std::string expected = row.at("op") == "sddmm" ? choose_sddmm_variant(kind, p).name()
                                                           : choose_spmm_variant(kind, p).name();
      EXPECT_EQ(row.at("auto_pick"), expected);
    }
  }
}

// ratio-spmm --explain-auto: one row per (op, form, K) asked for, the form named as the benchmark
// names it (fused, product, residual; "-t" over Sᵀ), so picks and measurements join on it.
TEST(BenchCli, ExplainAutoRatioSpmmHonoursFormAndOp) {
  test::TempDir dir;
  const std::string spec = "uniform:rows=100,cols=400,nnz=12000";
  const HostCsr s = gen::generate_sparse(gen::parse_sparse_spec(spec));
  const std::string all_csv = dir.file("all.csv");
  const Outcome o = run_bench(dir, "ratio-spmm --gen " + spec +
                                       " --device cpu --form all --op both "
                                       "--k 8,48 --explain-auto --csv '" +
                                       all_csv + "'");
  ASSERT_EQ(o.code, 0) << o.err;
  const Csv csv = read_csv(all_csv);
  ASSERT_EQ(csv.rows.size(), 6u * 2u);
  std::multiset<std::string> forms;
  for (const auto& row : csv.rows) {
    SCOPED_TRACE(row.at("form") + " k=" + row.at("k"));
    forms.insert(row.at("form"));
    const bool transposed = row.at("form").size() > 2 &&
                            row.at("form").compare(row.at("form").size() - 2, 2, "-t") == 0;
    KernelProblem q{features(transposed ? transpose(s.view()).view() : s.view()),
                    std::stoi(row.at("k"))};
    q.transposed = transposed;
    const RatioSpmmVariant* v = choose_ratio_spmm_variant(DeviceKind::kCpu, q);
    if (v) {
      EXPECT_EQ(row.at("auto_pick"), v->name());
    } else {
      EXPECT_EQ(row.at("auto_pick").rfind("pair", 0), 0u) << row.at("auto_pick");
      // The CPU's fused rows apply at every K; at K = 8 the rules prefer the pair (not "no fused
      // variant applies", which sent users looking for a missing kernel).
      EXPECT_NE(row.at("auto_pick").find("the rules prefer it"), std::string::npos)
          << row.at("auto_pick");
    }
    EXPECT_NE(o.out.find("ratio-spmm " + row.at("form") + " K=" + row.at("k") + ":"),
              std::string::npos)
        << o.out;
  }
  const std::multiset<std::string> expected = {"fused",    "fused",    "fused-t",    "fused-t",
                                               "product",  "product",  "product-t",  "product-t",
                                               "residual", "residual", "residual-t", "residual-t"};
  EXPECT_EQ(forms, expected);

  // One form asked for: only its rows.
  const std::string product_csv = dir.file("product.csv");
  const Outcome p = run_bench(dir, "ratio-spmm --gen " + spec +
                                       " --device cpu --form product "
                                       "--k 48 --explain-auto --csv '" +
                                       product_csv + "'");
  ASSERT_EQ(p.code, 0) << p.err;
  const Csv product = read_csv(product_csv);
  ASSERT_EQ(product.rows.size(), 1u);
  EXPECT_EQ(product.rows[0].at("form"), "product");
}

// --explain-auto --csv appends only to a file with its own header, as the benchmark does with
// its: rows of another layout would be ragged. The file is left as it was.
TEST(BenchCli, ExplainAutoRefusesACsvWithAnotherHeader) {
  test::TempDir dir;
  const std::string gen = "sddmm --gen uniform:rows=20,cols=20,nnz=50 --device cpu --k 4 ";
  // A benchmark CSV (other columns) and a foreign file.
  const std::string bench_csv = dir.file("bench.csv");
  ASSERT_EQ(run_bench(dir, gen + "--runs 1 --warmup 0 --no-flush --csv '" + bench_csv + "'").code,
            0);
  const std::string bench_before = slurp(bench_csv);
  const std::string other_csv = dir.file("other.csv");
  std::ofstream(other_csv) << "a,b,c\n1,2,3\n";
  for (const std::string& path : {bench_csv, other_csv}) {
    SCOPED_TRACE(path);
    const std::string before = slurp(path);
    const Outcome o = run_bench(dir, gen + "--explain-auto --csv '" + path + "'");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.err.find("--csv"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("different header"), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one clear line: " << o.err;
    EXPECT_EQ(slurp(path), before) << "the file must be left as it was";
  }
  // And the benchmark refuses an explain CSV.
  const std::string picks_csv = dir.file("picks.csv");
  ASSERT_EQ(run_bench(dir, gen + "--explain-auto --csv '" + picks_csv + "'").code, 0);
  ASSERT_EQ(run_bench(dir, gen + "--explain-auto --csv '" + picks_csv + "'").code, 0);
  EXPECT_EQ(read_csv(picks_csv).rows.size(), 2u) << "the same header: appended";
  const Outcome b =
      run_bench(dir, gen + "--runs 1 --warmup 0 --no-flush --csv '" + picks_csv + "'");
  EXPECT_EQ(b.code, 1);
  EXPECT_NE(b.err.find("different header"), std::string::npos) << b.err;
}

// A generator's param is part of the label, 0 included (it once vanished, and meant the default).
TEST(BenchCli, GeneratedLabelKeepsAnExplicitParam) {
  test::TempDir dir;
  const Outcome o = run_bench(dir,
                              "sddmm --gen powerlaw:rows=50,cols=40,nnz=200,param=0 "
                              "--device cpu --k 4 --explain-auto");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("powerlaw:rows=50,cols=40,nnz=200,param=0,seed=1"), std::string::npos)
      << o.out;
  const Outcome bad = run_bench(dir,
                                "sddmm --gen banded:rows=50,cols=40,nnz=200,param=0 "
                                "--device cpu --k 4 --explain-auto");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--gen"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("whole number in [1, 81]"), std::string::npos) << bad.err;
}

// --threads 0 is OpenMP's default, as in every other app.
TEST(BenchCli, ThreadsZeroIsOpenMpsDefault) {
  test::TempDir dir;
  const Outcome o = run_bench(dir,
                              "sddmm --gen uniform:rows=20,cols=20,nnz=50 --device cpu "
                              "--threads 0 --k 4 --runs 1 --warmup 0 --no-flush");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("device: CPU ("), std::string::npos) << o.out;
  const Outcome help = run_bench(dir, "--help");
  EXPECT_NE(help.out.find("0: OpenMP's default"), std::string::npos) << help.out;
  const Outcome bad = run_bench(dir,
                                "sddmm --gen uniform:rows=20,cols=20,nnz=50 --device cpu "
                                "--threads -1 --k 4");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--threads: must be between 0 and 1024"), std::string::npos) << bad.err;
}

// Dense operands larger than the machine's memory are refused up front, naming them and K,
// rather than ending in a bare std::bad_alloc (or the OOM killer) mid-benchmark.
TEST(BenchCli, DenseOperandsTooLargeForMemoryAreNamed) {
  test::TempDir dir;
  // 2e6 x 2^20 floats is 8 TB per operand.
  const Outcome o = run_bench(dir,
                              "sddmm --gen uniform:rows=2000000,cols=2000000,nnz=2000 "
                              "--device cpu --k 4,1048576 --runs 1 --warmup 0");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("--k: at K = 1048576"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("A (2000000 x 1048576)"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("memory"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("bad_alloc"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one clear line: " << o.err;
  EXPECT_EQ(o.out.find("median_ms"), std::string::npos) << "refused before any run: " << o.out;
}

TEST(BenchCli, AppendingToACsvWithAnotherHeaderFails) {
  test::TempDir dir;
  const std::string csv_path = dir.file("other.csv");
  std::ofstream(csv_path) << "a,b,c\n1,2,3\n";
  const Outcome o = run_bench(dir, "sddmm --gen uniform:rows=20,cols=20,nnz=50 --device cpu --k 4 --runs 1 --warmup 0 "
                                   "--csv '" + csv_path + "'");
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.err.find("--csv"), std::string::npos) << o.err;
  // Found before the benchmark runs, not after a possibly long one: no table was printed.
  EXPECT_EQ(o.out.find("median_ms"), std::string::npos) << o.out;
  EXPECT_EQ(slurp(csv_path), "a,b,c\n1,2,3\n") << "the foreign file must be left as it was";
}

TEST(BenchCli, ListNamesEveryVariantWithItsBackend) {
  test::TempDir dir;
  const Outcome o = run_bench(dir, "--list");
  ASSERT_EQ(o.code, 0) << o.err;
  std::istringstream lines(o.out);
  std::map<std::string, std::string> listed;  // name -> backend
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name, backend;
    if (line.rfind("  ", 0) == 0 && words >> name >> backend) listed[name] = backend;
  }
  for (const auto* v : sddmm_variants()) EXPECT_EQ(listed[v->name()], to_string(v->backend())) << v->name();
  for (const auto* v : spmm_variants()) EXPECT_EQ(listed[v->name()], to_string(v->backend())) << v->name();
  for (const auto* v : ratio_spmm_variants()) EXPECT_EQ(listed[v->name()], to_string(v->backend())) << v->name();
  EXPECT_EQ(listed.count("auto"), 1u);
}

TEST(BenchCli, HelpExplainsEveryOption) {
  test::TempDir dir;
  const Outcome o = run_bench(dir, "--help");
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* option : {"--input", "--gen", "--preset", "--k", "--device", "--threads",
                             "--variants", "--op", "--form", "--warmup", "--runs", "--csv",
                             "--seed", "--list", "--no-flush", "--explain-auto"})
    EXPECT_NE(o.out.find(option), std::string::npos) << option;
}

// Boost's own message for a bad value holding "%value%" never returns (it fills its template until
// no placeholder is left); fk-bench hung on --runs %value%. Under timeout, so a hang fails.
TEST(BenchCli, PercentPlaceholdersInABadValueAreAUsageErrorNotAHang) {
  test::TempDir dir;
  const std::string bench = std::string("20 '") + FK_BENCH_EXE + "' spmm ";
  const std::string gen = " --gen uniform:rows=10,cols=10,nnz=20 --device cpu";
  for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
           {"--runs %value%", "the argument ('%value%') for option '--runs' is invalid"},
           {"--%option%", "unrecognised option '--%option%'"}}) {
    SCOPED_TRACE(args);
    const Outcome o = test::run_executable(dir, "timeout", bench + args + gen);
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_NE(o.err.find(needle), std::string::npos) << o.err;
  }
}

TEST(BenchCli, BadOptionsFailWithOneLineNamingTheOption) {
  test::TempDir dir;
  const std::string gen = " --gen uniform:rows=10,cols=10,nnz=20 --device cpu";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"sddmm --bogus 3" + gen, "--bogus"},
      {"sddmm --k 0" + gen, "--k"},
      {"sddmm --k 8,x" + gen, "--k"},
      {"sddmm --k 4,,8" + gen, "--k: empty item"},  // was skipped silently
      {"sddmm --k 4,8," + gen, "--k: empty item"},
      {"sddmm --k ,4" + gen, "--k: empty item"},
      {"sddmm --k 4,8,4" + gen, "--k: 4 is given twice"},  // timed twice, rows appended twice
      {"sddmm --k +4" + gen, "--k: '+4' is not a width"},
      {"spmm --name ''" + gen, "--name: an empty label"},   // was the default label, silently
      {"spmm --tolerance inf" + gen, "--tolerance: must be positive and finite"},
      {"spmm --variants auto,,omp.spmm.rows" + gen, "--variants: empty item"},
      {"spmm --runs abc" + gen, "--runs"},
      {"spmm --runs 0" + gen, "--runs"},
      {"spmm --threads 100000" + gen, "--threads"},  // OpenMP's runtime crashed on it
      {"spmm --seed -1" + gen, "--seed"},            // Boost read it as 2^64 - 1
      {"sddmm --device tpu --gen uniform:rows=10,cols=10,nnz=20", "--device"},
      {"spmm --explain-auto --device foo --gen uniform:rows=10,cols=10,nnz=20", "--device"},
      {"spmm --run 2" + gen, "--run"},  // no abbreviations, as in the apps
      {"spmm --gpu 1" + gen, "--gpu 1: this run is on the CPU (--device cpu)"},
      // A spec error, not an internal check's text with a source path.
      {"spmm --gen banded:rows=2000,cols=2000,nnz=20000,param=5 --device cpu",
       "does not fit in a band of 5 columns (9994 places); raise param or lower nnz (see"},

      {"sddmm --op t" + gen, "--op"},
      {"ratio-spmm --op x" + gen, "--op"},
      {"spmm --form scaled" + gen, "--form"},
      {"spmm --op x" + gen, "--op"},
      {"spmm --variants no.such.variant" + gen, "--variants"},
      {"spmm --explain-auto --variants auto" + gen, "--explain-auto"},
      // --explain-auto times nothing: a timed run's options went unused without a word.
      {"spmm --explain-auto --runs 3" + gen, "--runs applies to a timed run; --explain-auto"},
      {"sddmm --explain-auto --no-flush" + gen, "--no-flush applies to a timed run"},
      {"ratio-spmm --explain-auto --tolerance 0.1" + gen, "--tolerance applies to a timed run"},
      {"spmm --explain-auto --threads 2" + gen, "--threads applies to a timed run"},
      {"sddmm --gen nonsense --device cpu", "--gen"},
      // fk-bench's formats, not the apps' list with text in it, then refused as no matrix.
      {"spmm --input x.mtx --format mxt --device cpu",
       "--format: expected auto, mtx, smtx, uci or ratings, got 'mxt'"},
      {"spmm --input x.mtx --format text --device cpu",
       "--format: expected auto, mtx, smtx, uci or ratings, got 'text'"},
      {"sddmm --preset no-such-preset --device cpu", "--preset"},
      {"sddmm --gen '' --k 4 --device cpu", "--gen: empty"},  // once blamed on --preset
      {"sddmm --input '' --k 4 --device cpu", "--input: empty"},
      {"sddmm --preset '' --k 4 --device cpu", "--preset: empty"},
      // An empty --csv once wrote no CSV, silently.
      {"sddmm --csv ''" + gen, "--csv: empty"},
      {"sddmm --device cpu", "--input"},  // no matrix given
      {"frobnicate" + gen, "frobnicate"},
  };
  for (const auto& [args, option] : cases) {
    SCOPED_TRACE(args);
    const Outcome o = run_bench(dir, args);
    EXPECT_NE(o.code, 0);
    EXPECT_NE(o.err.find(option), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one clear line: " << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
}

}  // namespace
}  // namespace fk
