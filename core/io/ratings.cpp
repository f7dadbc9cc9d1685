#include "core/io/ratings.hpp"

#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "core/io/atomic_file.hpp"
#include "core/io/csv.hpp"
#include "core/io/line_reader.hpp"
#include "core/io/parse.hpp"

namespace fk::io {
namespace {

using detail::quote;

enum class Dialect { kColons, kCsv, kBlanks };

const char* dialect_name(Dialect d) {
  switch (d) {
    case Dialect::kColons:
      return "'::'";
    case Dialect::kCsv:
      return "commas";
    case Dialect::kBlanks:
      return "tabs or spaces";
  }
  return "?";
}

// Splits at every "::"; stores at most `max` fields and returns the true count.
std::size_t split_colons(std::string_view line, std::string_view* out, std::size_t max) {
  std::size_t n = 0, b = 0;
  while (true) {
    const std::size_t e = line.find("::", b);
    if (n < max)
      out[n] = line.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
    ++n;
    if (e == std::string_view::npos) return n;
    b = e + 2;
  }
}

// Calls emit(user_token, item_token, rating, line_bytes) for every rating, in file order. The
// dialect is fixed by the first non-blank line: "::" -> MovieLens .dat, a comma -> CSV (whose first
// line is a header when its rating column is not a number), otherwise blank-separated. Every line
// must have as many fields (3 or 4) as the first.
template <typename Emit>
std::int64_t for_each_rating(LineReader& in, Emit&& emit) {
  std::string line;
  std::vector<std::string> csv_fields;
  std::string_view f[5];
  Dialect dialect = Dialect::kBlanks;
  std::size_t width = 0;
  bool started = false;
  std::int64_t count = 0;
  while (in.next(line)) {
    if (detail::blank_line(line)) continue;
    bool first = false;
    if (!started) {
      started = first = true;
      dialect = line.find("::") != std::string::npos  ? Dialect::kColons
                : line.find(',') != std::string::npos ? Dialect::kCsv
                                                      : Dialect::kBlanks;
    }
    std::size_t n = 0;
    switch (dialect) {
      case Dialect::kColons:
        n = split_colons(line, f, 5);
        // Blanks around "::" pad the fields, as around a CSV comma ("7 :: 100 :: 4").
        for (std::size_t i = 0; i < n && i < 5; ++i) f[i] = detail::trim_blanks(f[i]);
        break;
      case Dialect::kBlanks:
        n = detail::split_blanks(line, f, 5);
        break;
      case Dialect::kCsv: {
        bool ok = true;
        if (!split_csv_record(line, csv_fields, ok) || !ok)
          in.fail("malformed CSV quoting (quoted fields may not span lines in a ratings file)");
        n = csv_fields.size();
        for (std::size_t i = 0; i < n && i < 5; ++i) f[i] = csv_fields[i];
        break;
      }
    }
    if (width == 0) {
      if (n < 3 || n > 4) {
        in.fail(
            std::string("expected 'user item rating [timestamp]': 3 or 4 fields separated by ") +
            dialect_name(dialect) + ", found " + std::to_string(n));
      }
      width = n;
      double v = 0;
      if (first && dialect == Dialect::kCsv &&
          detail::parse_real(f[2], v) == detail::NumberStatus::kNotANumber) {
        continue;  // the header line (e.g. userId,movieId,rating,timestamp)
      }
    }
    if (n != width) {
      in.fail("expected " + std::to_string(width) + " fields separated by " +
              dialect_name(dialect) + " as on the first line, found " + std::to_string(n));
    }
    if (f[0].empty()) in.fail("empty user id");
    if (f[1].empty()) in.fail("empty item id");
    double r = 0;
    const auto st = detail::parse_real(f[2], r);
    if (st != detail::NumberStatus::kOk) in.fail("rating: " + detail::describe(st, f[2]));
    if (width == 4) {
      std::int64_t t = 0;
      if (!detail::parse_int(f[3], t))
        in.fail("timestamp: expected an integer, found " + quote(f[3]));
    }
    emit(f[0], f[1], static_cast<float>(r), line.size() + 1);
    ++count;
  }
  if (count == 0) {
    if (in.line_number() == 0) throw InputError(in.path(), 0, "empty file, expected ratings");
    in.fail("no ratings in the file");
  }
  return count;
}

// Dense index of a raw id, assigned in order of first appearance.
class IdMap {
 public:
  std::int32_t index(std::string_view token, std::vector<std::string>& ids, const LineReader& in,
                     const char* what) {
    key_.assign(token);  // reuses the buffer: no allocation per lookup once warm
    auto it = map_.find(key_);
    if (it != map_.end()) return it->second;
    if (ids.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
      in.fail(std::string("more than 2^31-1 distinct ") + what + " ids");
    const auto idx = static_cast<std::int32_t>(ids.size());
    map_.emplace(key_, idx);
    ids.push_back(key_);
    return idx;
  }

 private:
  std::unordered_map<std::string, std::int32_t> map_;
  std::string key_;
};

[[noreturn]] void report_duplicate(const std::string& path, const std::string& user,
                                   const std::string& item) {
  if (!rereadable(path))
    throw InputError(path, 0,
                     "duplicate rating of item " + quote(item) + " by user " + quote(user) +
                         " (a pipe cannot be read again to name its lines)");
  LineReader in(path);
  std::int64_t first = 0;
  for_each_rating(in, [&](std::string_view u, std::string_view i, float, std::size_t) {
    if (u != user || i != item) return;
    if (first == 0) {
      first = in.line_number();
      return;
    }
    in.fail("duplicate rating of item " + quote(item) + " by user " + quote(user) +
            ", first given at line " + std::to_string(first));
  });
  throw InputError(path, 0, "duplicate rating of item " + quote(item) + " by user " + quote(user));
}

}  // namespace

HostCsr Ratings::to_csr() const {
  FK_CHECK(user.size() == rating.size() && item.size() == rating.size(),
           "Ratings arrays differ in length: " << user.size() << ", " << item.size() << ", "
                                               << rating.size());
  for (std::int32_t u : user)
    FK_CHECK(u >= 0 && u < users(), "Ratings user index " << u << " out of range");
  for (std::int32_t i : item)
    FK_CHECK(i >= 0 && i < items(), "Ratings item index " << i << " out of range");
  return detail::csr_from_arrays(users(), items(), user.data(), item.data(), rating.data(),
                                 rating.size());
}

Ratings read_ratings(const std::string& path, const RatingCheck& check) {
  Ratings out;
  {
    LineReader in(path);
    IdMap users, items;
    std::int64_t bytes_seen = 0;
    bool reserved = false;
    for_each_rating(in, [&](std::string_view u, std::string_view i, float r, std::size_t bytes) {
      if (check)
        if (const std::string why = check(r); !why.empty()) in.fail(why);
      out.user.push_back(users.index(u, out.user_ids, in, "user"));
      out.item.push_back(items.index(i, out.item_ids, in, "item"));
      out.rating.push_back(r);
      // No header count to go by: estimate the total from the first lines' length, capped by the
      // file size, to avoid repeated regrowth on big files.
      bytes_seen += static_cast<std::int64_t>(bytes);
      if (!reserved && out.rating.size() == 4096 && !in.gzipped()) {
        reserved = true;
        const double per_line = static_cast<double>(bytes_seen) / 4096.0;
        const auto estimate =
            static_cast<std::int64_t>(1.05 * static_cast<double>(in.file_size()) / per_line);
        const std::size_t cap = detail::reserve_cap(in, estimate, 6);
        out.user.reserve(cap);
        out.item.reserve(cap);
        out.rating.reserve(cap);
      }
    });
  }
  std::int64_t u = 0;
  std::int32_t i = 0;
  if (detail::find_duplicate_pair(out.users(), out.items(), out.user.data(), out.item.data(),
                                  out.user.size(), u, i))
    report_duplicate(path, out.user_ids[u], out.item_ids[i]);
  return out;
}

void write_ratings_csv(const std::string& path, const Ratings& r) {
  FK_CHECK(r.user.size() == r.rating.size() && r.item.size() == r.rating.size(),
           "Ratings arrays differ in length: " << r.user.size() << ", " << r.item.size() << ", "
                                               << r.rating.size());
  // The reader takes one record per line, so ids must be non-empty single-line text.
  for (const auto* ids : {&r.user_ids, &r.item_ids})
    for (const auto& id : *ids)
      FK_CHECK(
          !id.empty() && id.find_first_of("\r\n") == std::string::npos,
          "cannot write " << path << ": id " << detail::quote(id) << " is empty or spans lines");
  AtomicFile file(path);
  std::string buf = "user,item,rating\n";
  for (std::int64_t k = 0; k < r.size(); ++k) {
    const std::int32_t u = r.user[k], i = r.item[k];
    FK_CHECK(u >= 0 && u < r.users() && i >= 0 && i < r.items(),
             "cannot write " << path << ": rating " << k << " has user " << u << ", item " << i
                             << " outside the id maps");
    FK_CHECK(std::isfinite(r.rating[k]),
             "cannot write " << path << ": rating " << k << " is not finite");
    buf += csv_escape(r.user_ids[u]);
    buf += ',';
    buf += csv_escape(r.item_ids[i]);
    buf += ',';
    detail::append_real(buf, r.rating[k]);
    buf += '\n';
    detail::flush_if_large(buf, file.stream());
  }
  file.stream().write(buf.data(), static_cast<std::streamsize>(buf.size()));
  file.commit();
}

}  // namespace fk::io
