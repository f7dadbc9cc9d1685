#pragma once
// fk-bench --explain-auto: what `auto` would choose, and from which features, without running.
// Lets the rule tables be replayed against a measured CSV on a machine without a GPU
// (scripts/replay_rules.sh).
#include <iosfwd>

#include "apps/bench/options.hpp"
#include "apps/bench/problem.hpp"

namespace fk::bench {

// Prints one line per (K, form or op) to `os`; with options.csv also appends one row each there.
void explain_auto(const BenchOptions& options, const BenchMatrix& matrix, std::ostream& os);

}  // namespace fk::bench
