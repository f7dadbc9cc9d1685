// Fuzzes the ratings reader (MovieLens '::', CSV, blank-separated; plain or gzip).
#include <cmath>

#include "core/io/ratings.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  const std::string path = fuzz::write_file("ratings.dat", data, size);
  io::Ratings r;
  if (!fuzz::refused([&] { r = io::read_ratings(path); })) {
    fuzz::require(r.size() > 0, "accepted a file without ratings");
    for (float v : r.rating) fuzz::require(std::isfinite(v), "a rating is not finite");
    // to_csr() FK_CHECKs the indices against the id maps.
    fuzz::check_result([&] { validate(r.to_csr().view()); });
  }
  return 0;
}
