#include "core/io/line_reader.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"

namespace fk::io {
namespace {
constexpr std::size_t kChunk = std::size_t{1} << 20;
// Reading a file this large takes seconds (a Netflix-sized ratings file about 15 s on 2 cores):
// say how far it is every kProgressSeconds.
constexpr std::int64_t kProgressMinBytes = std::int64_t{256} << 20;
constexpr double kProgressSeconds = 5.0;
}  // namespace

// We drive zlib's inflate ourselves rather than gzgets: the end-of-data state is then explicit, so
// a stream cut in the middle, a bad CRC, and junk after the data are all distinguishable from a
// clean end, and a plain file costs no zlib at all.
struct LineReader::Impl {
  std::FILE* file = nullptr;
  bool gz = false;
  bool in_eof = false;  // the file has no more bytes to give
  z_stream zs{};
  bool zs_ready = false;
  bool member_done = false;  // inflate finished a gzip member; another may follow
  std::vector<char> in;      // compressed bytes (gzip only); zs.next_in points into it
  std::vector<char> buf;     // decoded bytes handed out as lines
  std::size_t pos = 0, end = 0;
  Stopwatch clock;  // since opening, for the progress lines of large files
  double last_report = 0;

  ~Impl() {
    if (zs_ready) inflateEnd(&zs);
    if (file) std::fclose(file);
  }
};

namespace {

// Reads up to `cap` bytes; sets `eof` when the file has no more. Throws on a read error.
std::size_t read_some(std::FILE* f, char* dst, std::size_t cap, bool& eof, const std::string& path,
                      std::int64_t line) {
  const std::size_t n = std::fread(dst, 1, cap, f);
  if (n < cap) {
    if (std::ferror(f))
      throw InputError(path, line, std::string("read error: ") + std::strerror(errno));
    eof = true;
  }
  return n;
}

bool gzip_magic(const unsigned char* p, std::size_t n) {
  return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

}  // namespace

LineReader::LineReader(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  if (path.empty()) throw InputError("(no file name)", 0, "no input file given");
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) throw InputError(path, 0, "cannot open: no such file");
  if (std::filesystem::is_directory(st)) throw InputError(path, 0, "is a directory, not a file");
  Impl& s = *impl_;
  s.file = std::fopen(path.c_str(), "rb");
  if (!s.file) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fileno(s.file), &info) == 0 && S_ISREG(info.st_mode)) {
    file_size_ = static_cast<std::int64_t>(info.st_size);
  } else {
    file_size_ = std::numeric_limits<std::int64_t>::max();  // a pipe: size unknown
  }
  // Peek at the first chunk for the gzip magic bytes.
  s.in.resize(kChunk);
  const std::size_t n = read_some(s.file, s.in.data(), s.in.size(), s.in_eof, path_, 0);
  if (gzip_magic(reinterpret_cast<const unsigned char*>(s.in.data()), n)) {
    s.gz = true;
    s.buf.resize(kChunk);
    s.zs.next_in = reinterpret_cast<Bytef*>(s.in.data());
    s.zs.avail_in = static_cast<uInt>(n);
    if (inflateInit2(&s.zs, 15 + 16) != Z_OK)  // 15 + 16: zlib window, gzip wrapper only
      throw InputError(path_, 0, "cannot initialise zlib");
    s.zs_ready = true;
  } else {
    s.buf.swap(s.in);
    s.in.clear();
    s.in.shrink_to_fit();
    s.end = n;
    text_bytes_ = static_cast<std::int64_t>(n);
  }
}

LineReader::~LineReader() = default;

bool LineReader::gzipped() const { return impl_->gz; }

void LineReader::fail(const std::string& message) const {
  throw InputError(path_, line_no_, message);
}

void LineReader::skip_bom() {
  Impl& s = *impl_;
  // The first fill holds the file's first bytes (a buffer of 1 MiB, or a whole small file).
  if (s.end - s.pos >= 3 && std::memcmp(s.buf.data() + s.pos, "\xEF\xBB\xBF", 3) == 0) s.pos += 3;
}

bool rereadable(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

void LineReader::report_progress() {
  Impl& s = *impl_;
  if (file_size_ < kProgressMinBytes || file_size_ == std::numeric_limits<std::int64_t>::max())
    return;
  const double t = s.clock.seconds();
  if (t - s.last_report < kProgressSeconds) return;
  s.last_report = t;
  const long at = std::ftell(s.file);  // bytes of the file read (compressed ones for gzip)
  if (at < 0) return;
  char buf[96];
  std::snprintf(buf, sizeof buf, ": %.0f%% of %.2f GB in %.0f s", 100.0 * at / file_size_,
                file_size_ / 1e9, t);
  log_info() << "reading " << path_ << buf;
}

bool LineReader::fill() {
  Impl& s = *impl_;
  if (s.pos < s.end) return true;
  s.pos = s.end = 0;
  report_progress();  // once per buffer: cheap
  if (!s.gz) {
    if (s.in_eof) return false;
    s.end = read_some(s.file, s.buf.data(), s.buf.size(), s.in_eof, path_, line_no_);
    text_bytes_ += static_cast<std::int64_t>(s.end);
    return s.end > 0;
  }
  z_stream& zs = s.zs;
  // Moves the unread compressed bytes to the front and tops the input buffer up to `want` bytes.
  auto top_up = [&](std::size_t want) {
    if (zs.avail_in >= want || s.in_eof) return;
    std::memmove(s.in.data(), zs.next_in, zs.avail_in);
    const std::size_t got = read_some(s.file, s.in.data() + zs.avail_in, s.in.size() - zs.avail_in,
                                      s.in_eof, path_, line_no_);
    zs.next_in = reinterpret_cast<Bytef*>(s.in.data());
    zs.avail_in += static_cast<uInt>(got);
  };
  while (true) {
    if (s.member_done) {
      top_up(2);
      if (zs.avail_in == 0) return false;  // the clean end: the last member closed with its CRC
      if (gzip_magic(zs.next_in, zs.avail_in)) {  // a concatenated member follows
        inflateReset(&zs);
        s.member_done = false;
        continue;
      }
      // Zero padding after the data (tape blocking) is accepted, as gzip(1) does; anything else
      // means the file is not what it claims to be.
      while (true) {
        for (uInt i = 0; i < zs.avail_in; ++i)
          if (zs.next_in[i] != 0) fail("unexpected bytes after the end of the gzip data");
        zs.avail_in = 0;
        if (s.in_eof) return false;
        top_up(1);
      }
    }
    top_up(1);
    zs.next_out = reinterpret_cast<Bytef*>(s.buf.data());
    zs.avail_out = static_cast<uInt>(s.buf.size());
    const int ret = inflate(&zs, Z_NO_FLUSH);
    const std::size_t produced = s.buf.size() - zs.avail_out;
    switch (ret) {
      case Z_STREAM_END:
        s.member_done = true;
        break;
      case Z_OK:
      case Z_BUF_ERROR:  // no progress possible with the input at hand
        if (produced == 0 && zs.avail_in == 0 && s.in_eof)
          fail("gzip data ends early: the file is truncated");
        break;
      case Z_MEM_ERROR:
        throw Error("out of memory while decompressing " + path_);
      default:  // Z_DATA_ERROR (bad data or CRC), Z_NEED_DICT, Z_STREAM_ERROR
        fail(std::string("corrupt gzip data (") + (zs.msg ? zs.msg : "unknown zlib error") + ")");
    }
    if (produced > 0) {
      s.end = produced;
      text_bytes_ += static_cast<std::int64_t>(produced);
      return true;
    }
  }
}

bool LineReader::start_line() {
  ++line_no_;
  if (!fill()) {
    --line_no_;
    return false;
  }
  if (line_no_ == 1) skip_bom();
  return true;
}

bool LineReader::next(std::string& line) {
  line.clear();
  if (!mid_line_ && !start_line()) return false;
  mid_line_ = false;
  Impl& s = *impl_;
  while (fill()) {
    const char* b = s.buf.data() + s.pos;
    const std::size_t n = s.end - s.pos;
    const void* nl = std::memchr(b, '\n', n);
    const std::size_t take = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - b) : n;
    if (line.size() + take > max_line_)
      fail("line longer than " + std::to_string(max_line_) + " bytes (is this a text file?)");
    line.append(b, take);
    s.pos += take;
    if (nl) {
      ++s.pos;
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

bool LineReader::next_part(std::string& part, std::size_t max_bytes, bool& line_end) {
  part.clear();
  line_end = false;
  max_bytes = std::max<std::size_t>(max_bytes, 1);
  if (!mid_line_ && !start_line()) return false;
  Impl& s = *impl_;
  while (part.size() < max_bytes) {
    if (!fill()) {  // the file ends without a final newline
      line_end = true;
      mid_line_ = false;
      return true;
    }
    const char* b = s.buf.data() + s.pos;
    const std::size_t n = std::min(s.end - s.pos, max_bytes - part.size());
    const void* nl = std::memchr(b, '\n', n);
    const std::size_t take = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - b) : n;
    part.append(b, take);
    s.pos += take;
    if (nl) {
      ++s.pos;
      if (!part.empty() && part.back() == '\r') part.pop_back();
      line_end = true;
      mid_line_ = false;
      return true;
    }
  }
  mid_line_ = true;
  return true;
}

}  // namespace fk::io
