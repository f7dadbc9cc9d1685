#pragma once
// One result row per (matrix, K, form/op, variant): printed as a table line as soon as it is
// measured, and collected for the CSV.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace fk::bench {

struct ResultRow {
  std::string op;       // "sddmm" or "spmm"
  std::string form;     // sddmm: "scaled" | "unscaled"; spmm: "n" (S·B) | "t" (Sᵀ·B)
  std::string matrix;
  std::int64_t m = 0, n = 0, nnz = 0;  // of S as given (not of Sᵀ)
  int k = 0;
  std::string variant;  // a registered name, or "auto"
  std::string chosen;   // for "auto": the variant it picked
  std::string device;   // "cpu" | "gpu"
  std::string device_name;
  int threads = 0;
  double prep_ms = 0, median_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
  double gflops = 0, gbps = 0, floor_ms = 0;
  std::string bound;     // which floor term dominates: "memory" | "compute"
  std::string baseline;  // name of the baseline variant, "" when none was available
  double speedup = 0;    // baseline median / this median; NaN when there is no baseline time
  double max_rel_err = 0;
  std::int64_t checked_rows = 0;
  std::string status;    // "ok", "wrong" (max_rel_err above tolerance) or "failed" (threw)
  std::string message;   // why it failed
  std::uint64_t seed = 0;
  // How it was measured, so that rows appended from several runs can be told apart.
  std::string precision;         // what the variants ran at: --precision (GPU), fp32 (CPU)
  std::int64_t flush_bytes = 0;  // written before each timed run; 0: no flush (--no-flush, or
                                 // a case larger than the flush buffer on the CPU)
  int warmup = 0;
  double tolerance = 0;
  double bandwidth_gbs = 0;  // the memory bandwidth floor_ms assumes (measured by this process)
  std::string build;         // fk::build_commit() of the binary
};

// The CSV columns of the benchmark's rows, in order.
const std::vector<std::string>& csv_header();

// Writes `rows` (each field in `header`'s order) to `path`: a new or empty file gets the header
// first; an existing file must start with the same header and keeps its rows, the new ones
// following (so a script can accumulate one CSV over many invocations). Written atomically
// (fk::io::AtomicFile). Throws fk::Error naming the file.
void append_csv_rows(const std::string& path, const std::vector<std::string>& header,
                     const std::vector<std::vector<std::string>>& rows);
// The benchmark's rows, under csv_header().
void append_csv(const std::string& path, const std::vector<ResultRow>& rows);
// What append_csv_rows would keep of the file at `path` ("" when it does not exist or is empty);
// throws fk::Error when its header differs from `header`. fk-bench calls it before running, so a
// mismatch is reported before the benchmark (or --explain-auto), not after it.
std::string read_appendable_csv(const std::string& path,
                                const std::vector<std::string>& header = csv_header());

// The table on stdout.
void print_table_header(std::ostream& os);
void print_table_row(std::ostream& os, const ResultRow& row);
// A line in the variant column followed by free text (a skipped variant and why).
void print_table_note(std::ostream& os, const std::string& variant, const std::string& note);

}  // namespace fk::bench
