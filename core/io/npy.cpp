#include "core/io/npy.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string_view>

#include "core/error.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/parse.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the .npy reader and writer copy raw bytes and assume a little-endian host");

namespace fk::io {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
constexpr std::size_t kAlign = 64;
constexpr std::uint32_t kMaxHeaderLen = 1u << 20;  // real headers are ~100 bytes

template <typename T>
struct Dtype;
template <>
struct Dtype<float> {
  static constexpr const char* kDescr = "<f4";
};
template <>
struct Dtype<double> {
  static constexpr const char* kDescr = "<f8";
};
template <>
struct Dtype<std::int32_t> {
  static constexpr const char* kDescr = "<i4";
};

// Writes the header for `shape`, then lets write_data(os) write the data, atomically.
template <typename T, typename WriteData>
void write_array_with(const std::string& path, const std::string& shape, WriteData&& write_data) {
  std::string dict = std::string("{'descr': '") + Dtype<T>::kDescr +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  // magic (6) + version (2) + header length (2) + dict + padding + '\n' is a multiple of 64.
  const std::size_t unpadded = kMagicLen + 4 + dict.size() + 1;
  dict.append((kAlign - unpadded % kAlign) % kAlign, ' ');
  dict += '\n';
  FK_CHECK(dict.size() <= 0xffff, "npy header too long for format 1.0");
  AtomicFile file(path, /*binary=*/true);
  std::ostream& os = file.stream();
  os.write(kMagic, kMagicLen);
  const unsigned char version_and_len[4] = {1, 0, static_cast<unsigned char>(dict.size() & 0xff),
                                            static_cast<unsigned char>(dict.size() >> 8)};
  os.write(reinterpret_cast<const char*>(version_and_len), 4);
  os.write(dict.data(), static_cast<std::streamsize>(dict.size()));
  write_data(os);
  file.commit();
}

template <typename T>
void write_array(const std::string& path, const std::string& shape, const T* data,
                 std::size_t count) {
  write_array_with<T>(path, shape, [&](std::ostream& os) {
    os.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(count * sizeof(T)));
  });
}

std::string shape_2d(std::int64_t rows, std::int64_t cols) {
  return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}
std::string shape_1d(std::size_t n) { return "(" + std::to_string(n) + ",)"; }

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

FilePtr open_binary(const std::string& path, std::int64_t& size) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) throw InputError(path, 0, "cannot open: no such file");
  if (std::filesystem::is_directory(st)) throw InputError(path, 0, "is a directory, not a file");
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  size = static_cast<std::int64_t>(std::filesystem::file_size(path, ec));
  if (ec) throw InputError(path, 0, "cannot get the file size: " + ec.message());
  return f;
}

// A minimal reader for the Python dict literal in the header, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class DictParser {
 public:
  DictParser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  NpyHeader parse() {
    NpyHeader h;
    bool got_descr = false, got_order = false, got_shape = false;
    expect('{');
    while (true) {
      skip_blanks();
      if (peek() == '}') {
        ++i_;
        break;
      }
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        h.descr = string_literal();
        got_descr = true;
      } else if (key == "fortran_order") {
        const std::string word = identifier();
        if (word != "True" && word != "False") fail("'fortran_order' must be True or False");
        h.fortran_order = word == "True";
        got_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        got_shape = true;
      } else {
        fail("unexpected key " + detail::quote(key));
      }
      skip_blanks();
      if (peek() == ',') {
        ++i_;
      } else if (peek() != '}') {
        fail("expected ',' or '}' after the value of " + detail::quote(key));
      }
    }
    if (!got_descr || !got_order || !got_shape)
      fail("the header must give 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(path_, 0, "bad .npy header: " + what + " in " + detail::quote(s_));
  }
  void skip_blanks() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n')) ++i_;
  }
  char peek() {
    skip_blanks();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string_literal() {
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const std::size_t b = ++i_;
    while (i_ < s_.size() && s_[i_] != q) ++i_;
    if (i_ == s_.size()) fail("unterminated string");
    return std::string(s_.substr(b, i_++ - b));
  }
  std::string identifier() {
    skip_blanks();
    const std::size_t b = i_;
    while (i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_]))) ++i_;
    return std::string(s_.substr(b, i_ - b));
  }
  std::vector<std::int64_t> tuple() {
    std::vector<std::int64_t> out;
    expect('(');
    while (true) {
      if (peek() == ')') {
        ++i_;
        return out;
      }
      std::int64_t v = 0;
      const char* b = s_.data() + i_;
      auto [p, ec] = std::from_chars(b, s_.data() + s_.size(), v);
      if (ec != std::errc() || v < 0) fail("expected a non-negative integer in 'shape'");
      i_ += static_cast<std::size_t>(p - b);
      if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 long suffix
      out.push_back(v);
      if (out.size() > 32) fail("too many dimensions");
      if (peek() == ',') {
        ++i_;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in 'shape'");
      }
    }
  }

  std::string_view s_;
  const std::string& path_;
  std::size_t i_ = 0;
};

NpyHeader read_header(std::FILE* f, const std::string& path, std::int64_t file_size) {
  unsigned char pre[12];
  if (std::fread(pre, 1, 10, f) != 10 || std::memcmp(pre, kMagic, kMagicLen) != 0) {
    throw InputError(path, 0,
                     file_size == 0 ? "empty file, expected a .npy array"
                                    : "not a .npy file (no \\x93NUMPY magic at the start)");
  }
  NpyHeader h;
  h.major_version = pre[6];
  std::uint32_t len = 0;
  std::int64_t prefix = 10;
  if (pre[6] == 1) {
    len = pre[8] | (std::uint32_t{pre[9]} << 8);
  } else if (pre[6] == 2 || pre[6] == 3) {
    if (std::fread(pre + 10, 1, 2, f) != 2) throw InputError(path, 0, "truncated .npy header");
    len = pre[8] | (std::uint32_t{pre[9]} << 8) | (std::uint32_t{pre[10]} << 16) |
          (std::uint32_t{pre[11]} << 24);
    prefix = 12;
  } else {
    throw InputError(
        path, 0,
        "unsupported .npy format version " + std::to_string(pre[6]) + "." + std::to_string(pre[7]));
  }
  if (len > kMaxHeaderLen || prefix + static_cast<std::int64_t>(len) > file_size)
    throw InputError(path, 0,
                     "the .npy header length " + std::to_string(len) + " does not fit the file");
  std::string text(len, '\0');
  if (std::fread(text.data(), 1, len, f) != len) throw InputError(path, 0, "truncated .npy header");
  NpyHeader parsed = DictParser(text, path).parse();
  // A nonempty array's dimensions are bounded by the bytes the file holds (read_array checks
  // them); an empty one's are not: (2^62, 0) read as 2^62 rows of nothing, for a caller to loop
  // over or size by. Every empty array written here has dimensions below 2^31 (counts of users,
  // items, words, topics, factors are 32-bit).
  const std::vector<std::int64_t>& shape = parsed.shape;
  if (std::find(shape.begin(), shape.end(), 0) != shape.end() &&
      *std::max_element(shape.begin(), shape.end()) > std::numeric_limits<std::int32_t>::max()) {
    std::string dims;
    for (const std::int64_t d : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    throw InputError(path, 0,
                     "shape (" + dims +
                         ") is empty but has a dimension above 2^31 - 1, more than any array "
                         "here can have: the header is damaged; write the file again");
  }
  parsed.major_version = h.major_version;
  parsed.data_offset = prefix + len;
  return parsed;
}

template <typename T>
HostDense<T> read_array(const std::string& path) {
  std::int64_t file_size = 0;
  FilePtr f = open_binary(path, file_size);
  const NpyHeader h = read_header(f.get(), path, file_size);
  if (h.descr != Dtype<T>::kDescr) {
    throw InputError(
        path, 0,
        "dtype " + detail::quote(h.descr) + " where '" + Dtype<T>::kDescr + "' is expected");
  }
  if (h.shape.empty() || h.shape.size() > 2) {
    throw InputError(path, 0,
                     "a " + std::to_string(h.shape.size()) +
                         "-dimensional array where a vector or a matrix is expected");
  }
  const std::int64_t rows = h.shape[0];
  const std::int64_t cols = h.shape.size() == 2 ? h.shape[1] : 1;
  // The data must be exactly rows * cols elements; compare without overflowing.
  const std::int64_t data_bytes = file_size - h.data_offset;
  const auto item = static_cast<std::int64_t>(sizeof(T));
  const bool fits = cols == 0 || rows <= data_bytes / item / cols;
  if (!fits || rows * cols * item != data_bytes) {
    throw InputError(path, 0,
                     "the file holds " + std::to_string(data_bytes) + " data bytes, but shape " +
                         (h.shape.size() == 2 ? shape_2d(rows, cols) : shape_1d(rows)) + " of " +
                         h.descr + " needs " +
                         (fits ? std::to_string(rows * cols * item) : std::string("more")));
  }
  HostDense<T> out(rows, cols);
  const auto count = static_cast<std::size_t>(rows * cols);
  if (std::fread(out.data(), sizeof(T), count, f.get()) != count)
    throw InputError(path, 0, "read error in the .npy data");
  if (h.fortran_order && rows > 1 && cols > 1) {  // stored column-major: transpose in place copy
    HostDense<T> c_order(rows, cols);
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t r = 0; r < rows; ++r) c_order(r, c) = out.data()[c * rows + r];
    return c_order;
  }
  return out;
}

}  // namespace

void write_npy(const std::string& path, const HostDense<float>& m) {
  write_array(path, shape_2d(m.rows(), m.cols()), m.data(), static_cast<std::size_t>(m.size()));
}
void write_npy(const std::string& path, const HostDense<double>& m) {
  write_array(path, shape_2d(m.rows(), m.cols()), m.data(), static_cast<std::size_t>(m.size()));
}
void write_npy(const std::string& path, const HostDense<std::int32_t>& m) {
  write_array(path, shape_2d(m.rows(), m.cols()), m.data(), static_cast<std::size_t>(m.size()));
}
void write_npy_i32_rows(
    const std::string& path, std::int64_t rows, std::int64_t cols,
    const std::function<void(std::int64_t, std::int64_t, std::int32_t*)>& fill) {
  FK_CHECK(rows >= 0 && cols >= 1, "npy rows: shape " << rows << " x " << cols);
  // 1 MiB of rows at a time (at least one row).
  const std::int64_t chunk = std::max<std::int64_t>(1, (std::int64_t{1} << 18) / cols);
  std::vector<std::int32_t> buf(static_cast<std::size_t>(std::min(rows, chunk) * cols));
  write_array_with<std::int32_t>(path, shape_2d(rows, cols), [&](std::ostream& os) {
    for (std::int64_t r = 0; r < rows; r += chunk) {
      const std::int64_t n = std::min(chunk, rows - r);
      fill(r, n, buf.data());
      os.write(reinterpret_cast<const char*>(buf.data()),
               static_cast<std::streamsize>(n * cols * sizeof(std::int32_t)));
    }
  });
}
void write_npy(const std::string& path, const std::vector<float>& v) {
  write_array(path, shape_1d(v.size()), v.data(), v.size());
}
void write_npy(const std::string& path, const std::vector<std::int32_t>& v) {
  write_array(path, shape_1d(v.size()), v.data(), v.size());
}

NpyHeader read_npy_header(const std::string& path) {
  std::int64_t file_size = 0;
  FilePtr f = open_binary(path, file_size);
  return read_header(f.get(), path, file_size);
}

HostDense<float> read_npy_f32(const std::string& path) { return read_array<float>(path); }
HostDense<double> read_npy_f64(const std::string& path) { return read_array<double>(path); }
HostDense<std::int32_t> read_npy_i32(const std::string& path) {
  return read_array<std::int32_t>(path);
}

}  // namespace fk::io
