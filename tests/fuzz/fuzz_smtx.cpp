// Fuzzes the DLMC .smtx reader.
#include "core/io/smtx.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  const std::string path = fuzz::write_file("input.smtx", data, size);
  HostCsr m;
  if (!fuzz::refused([&] { m = io::read_smtx(path); })) {
    fuzz::check_result([&] { validate(m.view()); });
    fuzz::require(m.vals.empty(), "a pattern file read with values");
  }
  return 0;
}
