#pragma once
// Whether what an app is about to allocate can fit in this machine's memory at all, checked before
// it allocates: sizes come from the input (a file's header may claim millions of rows for a few
// entries), and an allocation past the machine's memory ends in a bare "out of memory" after a
// long wait, or, through overcommit, in the kernel's OOM killer.
#include <cstdint>
#include <string>

#include "core/memory.hpp"

namespace fk::app {

// Throws fk::Error when `copies` dense float32 arrays of (rows + cols) x k, the factor matrices of
// a rows x cols problem and the work arrays that go with them, need more than the machine's
// memory. The message names `what` (the problem: "the corpus of FILE, 300000 documents x 102660
// words") and the option that sets k (`k_option`, e.g. "--topics").
void check_factors_fit(std::int64_t rows, std::int64_t cols, std::int64_t k, int copies,
                       const std::string& what, const std::string& k_option);

}  // namespace fk::app
