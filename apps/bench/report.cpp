#include "apps/bench/report.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/error.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/csv.hpp"

namespace fk::bench {
namespace {

// Compact number for the CSV: 6 significant digits; NaN and inf become an empty field.
std::string num(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Number for the table: 4 significant digits, "-" when absent.
std::string cell(double v, const char* fmt = "%.4g") {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string join_csv(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) line += ',';
    line += io::csv_escape(fields[i]);
  }
  return line;
}

std::vector<std::string> fields_of(const ResultRow& r) {
  const bool measured = r.status != "failed";
  return {r.op,
          r.form,
          r.matrix,
          std::to_string(r.m),
          std::to_string(r.n),
          std::to_string(r.nnz),
          std::to_string(r.k),
          r.variant,
          r.chosen,
          r.device,
          r.device_name,
          std::to_string(r.threads),
          measured ? num(r.prep_ms) : "",
          measured ? num(r.median_ms) : "",
          measured ? num(r.min_ms) : "",
          measured ? num(r.max_ms) : "",
          measured ? std::to_string(r.runs) : "",
          measured ? num(r.gflops) : "",
          measured ? num(r.gbps) : "",
          num(r.floor_ms),
          r.bound,
          r.baseline,
          measured ? num(r.speedup) : "",
          measured ? (std::isfinite(r.max_rel_err) ? num(r.max_rel_err) : "inf") : "",
          std::to_string(r.checked_rows),
          r.status,
          r.message,
          std::to_string(r.seed),
          r.precision,
          std::to_string(r.flush_bytes),
          std::to_string(r.warmup),
          num(r.tolerance),
          num(r.bandwidth_gbs),
          r.build};
}

constexpr int kVariantWidth = 38;  // "auto -> " + a long variant name

}  // namespace

const std::vector<std::string>& csv_header() {
  static const std::vector<std::string> header = {
      "op",        "form",        "matrix",       "m",          "n",         "nnz",
      "k",         "variant",     "chosen",       "device",     "device_name", "threads",
      "prep_ms",   "median_ms",   "min_ms",       "max_ms",     "runs",      "gflops",
      "gbps",      "floor_ms",    "bound",        "baseline",   "speedup_vs_baseline",
      "max_rel_err", "checked_rows", "status",    "message",    "seed",      "precision",
      "flush_bytes", "warmup",    "tolerance",    "bandwidth_gbs", "build"};
  return header;
}

std::string read_appendable_csv(const std::string& path, const std::vector<std::string>& columns) {
  const std::string header = join_csv(columns);
  try {
    io::check_output_file(path);  // before the benchmark runs, not after it
  } catch (const Error& e) {
    throw Error(std::string("--csv: ") + e.what());
  }
  if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec)
      throw Error("--csv " + path + ": cannot create " + parent.string() + ": " + ec.message());
  }
  std::string existing;
  // Only a regular file holds rows to append to (a device or a pipe would be read forever).
  if (std::filesystem::is_regular_file(path)) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("--csv " + path + ": cannot read the existing file");
    std::ostringstream all;
    all << in.rdbuf();
    existing = all.str();
    std::string first = existing.substr(0, existing.find('\n'));
    if (!first.empty() && first.back() == '\r') first.pop_back();
    if (!existing.empty() && first != header)
      throw Error("--csv " + path +
                  ": the existing file has a different header, so rows cannot be appended; write to a new file "
                  "(expected: " + header + ")");
    if (!existing.empty() && existing.back() != '\n') existing += '\n';
  }
  return existing;
}

void append_csv_rows(const std::string& path, const std::vector<std::string>& header,
                     const std::vector<std::vector<std::string>>& rows) {
  const std::string existing = read_appendable_csv(path, header);
  io::AtomicFile file(path);
  std::ostream& out = file.stream();
  if (existing.empty()) {
    out << join_csv(header) << '\n';
  } else {
    out << existing;
  }
  for (const std::vector<std::string>& r : rows) out << join_csv(r) << '\n';
  file.commit();
}

void append_csv(const std::string& path, const std::vector<ResultRow>& rows) {
  std::vector<std::vector<std::string>> fields;
  for (const ResultRow& r : rows) fields.push_back(fields_of(r));
  append_csv_rows(path, csv_header(), fields);
}

void print_table_header(std::ostream& os) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-*s %9s %10s %9s %8s %10s %8s %8s %11s  %s", kVariantWidth, "variant", "prep_ms",
                "median_ms", "GFLOP/s", "GB/s", "floor_ms", "x_floor", "speedup", "max_rel_err", "status");
  os << buf << '\n';
}

void print_table_row(std::ostream& os, const ResultRow& r) {
  std::string label = r.variant;
  if (!r.chosen.empty()) label += " -> " + r.chosen;
  if (r.status == "failed") {
    print_table_note(os, label, "FAILED: " + r.message);
    return;
  }
  // A label wider than its column ("auto -> pair:omp.sddmm.aspt+omp.spmm.nnz_balanced") goes on a
  // line of its own, so that the numbers stay under their headers.
  if (label.size() > std::size_t(kVariantWidth)) {
    os << "  " << label << '\n';
    label.clear();
  }
  char buf[512];
  const double x_floor = r.floor_ms > 0 ? r.median_ms / r.floor_ms : NAN;
  std::snprintf(buf, sizeof buf, "  %-*s %9s %10s %9s %8s %10s %8s %8s %11s  %s", kVariantWidth, label.c_str(),
                cell(r.prep_ms).c_str(), cell(r.median_ms).c_str(), cell(r.gflops, "%.1f").c_str(),
                cell(r.gbps, "%.1f").c_str(), cell(r.floor_ms).c_str(), cell(x_floor, "%.2f").c_str(),
                cell(r.speedup, "%.2f").c_str(), cell(r.max_rel_err, "%.2e").c_str(), r.status.c_str());
  os << buf << std::endl;
}

void print_table_note(std::ostream& os, const std::string& variant, const std::string& note) {
  std::string line = "  " + variant;
  if (line.size() < std::size_t(kVariantWidth) + 2) line.resize(std::size_t(kVariantWidth) + 2, ' ');
  os << line << ' ' << note << std::endl;
}

}  // namespace fk::bench
