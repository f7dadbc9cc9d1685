#pragma once
// fk-bench --explain-auto: what `auto` would choose, and from which features, without running.
// Lets the rule tables be replayed against a measured CSV on a machine without a GPU
// (scripts/replay_rules.sh).
#include <iosfwd>
#include <string>
#include <vector>

#include "apps/bench/options.hpp"
#include "apps/bench/problem.hpp"

namespace fk::bench {

// The columns of explain_auto's CSV rows, in order (not the benchmark's: a file holds one kind).
const std::vector<std::string>& explain_csv_header();

// Prints one line per (K, form or op) to `os`; with options.csv also appends one row each there
// (a file with another header is refused, as by the benchmark).
void explain_auto(const BenchOptions& options, const BenchMatrix& matrix, std::ostream& os);

}  // namespace fk::bench
