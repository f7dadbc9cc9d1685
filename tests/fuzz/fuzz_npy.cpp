// Fuzzes the .npy reader: the header alone, and the float, double and int32 array readers.
#include "core/io/npy.hpp"
#include "fuzz_util.hpp"

namespace {
template <typename T>
void check(const fk::HostDense<T>& m, std::size_t file_size) {
  fk::fuzz::require(m.rows() >= 0 && m.cols() >= 0, "negative shape");
  // The reader promises the file holds exactly the data the shape says, after the header.
  fk::fuzz::require(static_cast<std::size_t>(m.size()) * sizeof(T) <= file_size,
                    "more data than the file holds");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  const std::string path = fuzz::write_file("array.npy", data, size);
  io::NpyHeader h;
  if (!fuzz::refused([&] { h = io::read_npy_header(path); }))
    fuzz::require(h.data_offset >= 10 && h.data_offset <= static_cast<std::int64_t>(size),
                  "data offset outside the file");
  HostDense<float> f;
  if (!fuzz::refused([&] { f = io::read_npy_f32(path); })) check(f, size);
  HostDense<double> d;
  if (!fuzz::refused([&] { d = io::read_npy_f64(path); })) check(d, size);
  HostDense<std::int32_t> i;
  if (!fuzz::refused([&] { i = io::read_npy_i32(path); })) check(i, size);
  return 0;
}
