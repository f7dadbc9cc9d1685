#include "apps/common/memory.hpp"

#include "core/error.hpp"

namespace fk::app {

std::int64_t cpu_gram_matrices(std::int64_t rows) { return (rows + kGramRows - 1) / kGramRows + 1; }

void check_factors_fit(std::int64_t rows, std::int64_t cols, std::int64_t k, int copies,
                       const std::string& what, const std::string& k_option, std::int64_t squares,
                       double bytes_per_k, const std::string& also_option) {
  const double bytes =
      4.0 * (copies * (double(rows) + double(cols)) * double(k) + double(squares) * k * k) +
      bytes_per_k * double(k);
  if (fits_in_memory(bytes)) return;
  throw Error(what + " with " + k_option + " " + std::to_string(k) + " needs about " +
              memory_shortfall(bytes) + ": ask for fewer with " + k_option +
              (also_option.empty() ? "" : " or " + also_option) +
              ", or check the data's sizes (a header that claims more rows or columns than the "
              "data has?)");
}

}  // namespace fk::app
