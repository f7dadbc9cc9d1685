#include <cstring>
#include <string>
#include <vector>

#include "core/io/npy.hpp"
#include "core/random.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

using test::throws_input_error;

// A .npy file made by hand: magic, version, little-endian header length, dict, data bytes.
std::string npy_bytes(int major, const std::string& dict, const std::string& data) {
  std::string s = "\x93NUMPY";
  s += static_cast<char>(major);
  s += '\0';
  const std::size_t len = dict.size();
  s += static_cast<char>(len & 0xff);
  s += static_cast<char>((len >> 8) & 0xff);
  if (major >= 2) {
    s += static_cast<char>((len >> 16) & 0xff);
    s += static_cast<char>((len >> 24) & 0xff);
  }
  return s + dict + data;
}

template <typename T>
std::string raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

TEST(IoNpy, WritesVersion1HeaderAlignedTo64) {
  HostDense<float> m(3, 4);
  for (std::int64_t i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(i) - 5.5f;
  test::TempDir dir;
  const std::string p = dir.file("m.npy");
  io::write_npy(p, m);
  const std::string bytes = test::read_bytes(p);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t hlen =
      static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + hlen) % 64, 0u);
  const std::string header = bytes.substr(10, hlen);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 0), 0u)
      << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(bytes.size(), 10 + hlen + 12 * sizeof(float));
  EXPECT_EQ(std::memcmp(bytes.data() + 10 + hlen, m.data(), 12 * sizeof(float)), 0);
  const io::NpyHeader h = io::read_npy_header(p);
  EXPECT_EQ(h.descr, "<f4");
  EXPECT_FALSE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(h.data_offset % 64, 0);
}

TEST(IoNpy, RoundTripsEveryDtypeAndShape) {
  const std::uint64_t seed = test::fresh_io_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  test::TempDir dir;
  for (auto [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{1, 1}, {17, 3}, {0, 5}, {64, 129}}) {
    HostDense<float> f(rows, cols);
    HostDense<double> d(rows, cols);
    HostDense<std::int32_t> i(rows, cols);
    for (std::int64_t k = 0; k < f.size(); ++k) {
      f.data()[k] = static_cast<float>(rng.normal());
      d.data()[k] = rng.normal() * 1e100;
      i.data()[k] = static_cast<std::int32_t>(rng.next_u64());
    }
    io::write_npy(dir.file("f.npy"), f);
    io::write_npy(dir.file("d.npy"), d);
    io::write_npy(dir.file("i.npy"), i);
    const auto fb = io::read_npy_f32(dir.file("f.npy"));
    const auto db = io::read_npy_f64(dir.file("d.npy"));
    const auto ib = io::read_npy_i32(dir.file("i.npy"));
    EXPECT_EQ(fb.rows(), rows);
    EXPECT_EQ(fb.cols(), cols);
    EXPECT_EQ(fb.storage(), f.storage());
    EXPECT_EQ(db.rows(), rows);
    EXPECT_EQ(db.storage(), d.storage());
    EXPECT_EQ(ib.cols(), cols);
    EXPECT_EQ(ib.storage(), i.storage());
  }
  // 1-D vectors: shape (n,), read back as n x 1.
  std::vector<float> v(1000);
  for (float& x : v) x = static_cast<float>(rng.uniform(-1, 1));
  std::vector<std::int32_t> w(77);
  for (auto& x : w) x = static_cast<std::int32_t>(rng.next_u64());
  io::write_npy(dir.file("v.npy"), v);
  io::write_npy(dir.file("w.npy"), w);
  EXPECT_EQ(io::read_npy_header(dir.file("v.npy")).shape, (std::vector<std::int64_t>{1000}));
  const auto vb = io::read_npy_f32(dir.file("v.npy"));
  EXPECT_EQ(vb.rows(), 1000);
  EXPECT_EQ(vb.cols(), 1);
  EXPECT_EQ(vb.values(), v);
  EXPECT_EQ(io::read_npy_i32(dir.file("w.npy")).values(), w);
  EXPECT_EQ(io::read_npy_header(dir.file("w.npy")).descr, "<i4");
}

TEST(IoNpy, RowsWrittenInPiecesAreTheWholeMatrixsFile) {
  // 2^18 / 2 = 131072 rows a piece: three pieces, the last a partial one; and no rows at all.
  for (const std::int64_t rows : {std::int64_t{0}, std::int64_t{300001}}) {
    HostDense<std::int32_t> m(rows, 2);
    for (std::int64_t i = 0; i < m.size(); ++i) m.data()[i] = static_cast<std::int32_t>(i * 7 - 3);
    test::TempDir dir;
    io::write_npy(dir.file("whole.npy"), m);
    std::int64_t next = 0;
    io::write_npy_i32_rows(dir.file("rows.npy"), rows, 2,
                           [&](std::int64_t first, std::int64_t n, std::int32_t* out) {
                             EXPECT_EQ(first, next);
                             next = first + n;
                             std::memcpy(out, m.row(first), sizeof(std::int32_t) * 2 * n);
                           });
    EXPECT_EQ(next, rows);
    EXPECT_TRUE(test::read_bytes(dir.file("whole.npy")) == test::read_bytes(dir.file("rows.npy")))
        << rows << " rows";
  }
}

TEST(IoNpy, ReadsVersion2AndFortranOrder) {
  test::TempDir dir;
  const std::string p = dir.file("v2.npy");
  // 2 x 3 stored column-major: columns (1,4), (2,5), (3,6).
  test::write_bytes(
      p, npy_bytes(2, "{\"descr\": \"<f4\", \"fortran_order\": True, \"shape\": (2, 3)}\n",
                   raw(std::vector<float>{1, 4, 2, 5, 3, 6})));
  const auto m = io::read_npy_f32(p);
  EXPECT_EQ(m.rows(), 2);
  EXPECT_EQ(m.values(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(IoNpy, BadFilesAreInputErrorsNamingTheFile) {
  test::TempDir dir;
  const std::string p = dir.file("bad.npy");
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }\n";
  const std::string four = raw(std::vector<float>{1, 2, 3, 4});
  struct Case {
    const char* what;
    std::string bytes;
    const char* fragment;
  };
  const std::vector<Case> cases = {
      {"empty", "", "empty file"},
      {"text file", "hello world, not numpy\n", "not a .npy file"},
      {"version 9", npy_bytes(9, ok_dict, four), "version 9"},
      {"wrong dtype",
       npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }\n", four + four),
       "'<f8'"},
      {"big endian",
       npy_bytes(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }\n", four),
       "'>f4'"},
      {"data too short", npy_bytes(1, ok_dict, four.substr(0, 12)), "holds 12 data bytes"},
      {"data too long", npy_bytes(1, ok_dict, four + "x"), "holds 17 data bytes"},
      {"3-D",
       npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 2), }\n", four),
       "3-dimensional"},
      {"huge shape",
       npy_bytes(1,
                 "{'descr': '<f4', 'fortran_order': False, 'shape': (4000000000, 4000000000), }\n",
                 four),
       "needs more"},
      // Empty, so no data to bound its rows: 2^62 rows of nothing.
      {"empty with huge rows",
       npy_bytes(1,
                 "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 0), }\n",
                 ""),
       "shape (4611686018427387904, 0) is empty but has a dimension above 2^31 - 1"},
      {"missing key", npy_bytes(1, "{'descr': '<f4', 'shape': (2, 2), }\n", four), "must give"},
      {"garbage dict", npy_bytes(1, "{'descr': <f4}\n", four), "bad .npy header"},
      {"header longer than file", npy_bytes(1, ok_dict, "").substr(0, 20), "does not fit"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    test::write_bytes(p, c.bytes);
    EXPECT_TRUE(throws_input_error([&] { io::read_npy_f32(p); }, p, 0, {c.fragment}));
  }
  // The header alone (as a checkpoint's shapes are checked) is refused too; (0, 2^31 - 1) is not.
  test::write_bytes(
      p,
      npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 2147483648), }\n", ""));
  EXPECT_TRUE(throws_input_error([&] { io::read_npy_header(p); }, p, 0, {"above 2^31 - 1"}));
  test::write_bytes(
      p,
      npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 2147483647), }\n", ""));
  EXPECT_EQ(io::read_npy_f32(p).cols(), 2147483647);
  EXPECT_TRUE(
      throws_input_error([&] { io::read_npy_f32(dir.path()); }, dir.path(), 0, {"directory"}));
  EXPECT_TRUE(throws_input_error([&] { io::read_npy_f32(dir.file("none.npy")); },
                                 dir.file("none.npy"), 0, {"no such file"}));
}

TEST(IoNpy, WriteIntoAMissingDirectoryIsAnError) {
  test::TempDir dir;
  const std::string p = dir.file("nodir/x.npy");
  EXPECT_THROW(io::write_npy(p, std::vector<float>{1, 2}), Error);
  EXPECT_EQ(test::list_dir(dir.path()).size(), 0u);
}

}  // namespace
}  // namespace fk
