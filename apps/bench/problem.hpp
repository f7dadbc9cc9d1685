#pragma once
// The sparse matrix a benchmark runs on: read from a file, generated from a spec, or generated from
// a named preset. Always on the host and always with values (random ones for pattern-only inputs),
// so that SDDMM can scale by them and SpMM can multiply by them.
#include <cstdint>
#include <string>

#include "apps/bench/options.hpp"
#include "core/csr.hpp"

namespace fk::bench {

struct BenchMatrix {
  std::string name;    // label for the table and the CSV
  std::string source;  // one line saying where it came from
  HostCsr s;           // rows x cols, nnz values
};

// Loads what the options name (--input, --gen or --preset). Errors name the option and the value.
BenchMatrix load_matrix(const BenchOptions& options);

// Replaces the values by uniform draws in [0.5, 1.5) from `seed` (the generators' value range).
void randomize_values(HostCsr& s, std::uint64_t seed);

}  // namespace fk::bench
