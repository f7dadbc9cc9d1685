// Fuzzes the Matrix Market reader: the same bytes go to the CSR, COO and dense (array) readers.
#include "core/io/matrix_market.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  const std::string path = fuzz::write_file("input.mtx", data, size);
  HostCsr csr;
  if (!fuzz::refused([&] { csr = io::read_matrix_market(path); }))
    fuzz::check_result([&] { validate(csr.view()); });
  HostCoo coo;
  if (!fuzz::refused([&] { coo = io::read_matrix_market_coo(path); })) {
    fuzz::require(coo.col.size() == coo.row.size() && coo.val.size() == coo.row.size(),
                  "COO arrays differ in length");
    // Same entries as the CSR read, which checks their ranges.
    fuzz::require(coo.nnz() == csr.nnz(), "COO and CSR reads disagree on the entry count");
  }
  HostDense<float> dense;
  if (!fuzz::refused([&] { dense = io::read_matrix_market_array(path); }))
    fuzz::require(dense.rows() >= 0 && dense.cols() >= 0, "negative dense shape");
  return 0;
}
