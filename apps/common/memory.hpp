#pragma once
// Whether what an app is about to allocate can fit in this machine's memory at all, checked before
// it allocates: sizes come from the input (a file's header may claim millions of rows for a few
// entries), and an allocation past the machine's memory ends in a bare "out of memory" after a
// long wait, or, through overcommit, in the kernel's OOM killer.
#include <cstdint>
#include <string>

#include "core/memory.hpp"

namespace fk::app {

// Rows per partial Gram matrix in the CPU engines of fk-als and fk-sfa: XᵀX over n rows is summed
// from ceil(n / kGramRows) K x K partials, all held until they are added in a fixed order (so
// that the sum does not depend on the thread count).
constexpr std::int64_t kGramRows = 4096;

// The K x K float matrices a CPU engine holds while it sums a Gram matrix over `rows` rows: the
// partials and their total.
std::int64_t cpu_gram_matrices(std::int64_t rows);

// Throws fk::Error when `copies` dense float32 arrays of (rows + cols) x k, the factor matrices of
// a rows x cols problem and the work arrays that go with them, and `squares` k x k float32 arrays
// (Gram matrices and their partials) need more than the machine's memory. The message names
// `what` (the problem: "the corpus of FILE, 300000 documents x 102660 words") and the option that
// sets k (`k_option`, e.g. "--topics"). `bytes_per_k`: memory held beside those arrays that also
// grows with k (fk-gap's top-words and coherence output, lda::top_words_bytes_per_topic), set by
// `also_option` as well, which the message then names beside k_option.
void check_factors_fit(std::int64_t rows, std::int64_t cols, std::int64_t k, int copies,
                       const std::string& what, const std::string& k_option,
                       std::int64_t squares = 0, double bytes_per_k = 0,
                       const std::string& also_option = "");

}  // namespace fk::app
