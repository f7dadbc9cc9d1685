#include "core/io/format.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/io/csv.hpp"
#include "core/io/line_reader.hpp"
#include "core/io/parse.hpp"

namespace fk::io {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Integer tokens of `line` (blank-separated, commas allowed as separators when `commas`), or -1
// when some token is not an integer.
int count_ints(std::string_view line, bool commas) {
  std::string copy(line);
  if (commas)
    for (char& c : copy)
      if (c == ',') c = ' ';
  int n = 0;
  bool ok = true;
  detail::for_each_token(copy, [&](std::string_view t) {
    std::int64_t v = 0;
    if (!detail::parse_int(t, v)) ok = false;
    ++n;
  });
  return ok ? n : -1;
}

std::string_view first_token(std::string_view line) {
  std::string_view tok[1];
  return detail::split_blanks(line, tok, 1) > 0 ? tok[0] : std::string_view();
}

// A number, also one no reader accepts (NaN, infinity, beyond a float): a ratings file with such a
// rating among its first lines is still ratings, and its reader names the line, where plain text
// ended in "no word is left after filtering".
bool is_number(std::string_view t) {
  double v = 0;
  return detail::parse_real(t, v) != detail::NumberStatus::kNotANumber;
}

// Fields of a ratings line in the dialect `csv` (comma) or blank-separated; empty on bad quoting.
std::vector<std::string> ratings_fields(std::string_view line, bool csv) {
  std::vector<std::string> out;
  if (csv) {
    bool ok = true;
    if (!split_csv_record(line, out, ok) || !ok) out.clear();
  } else {
    detail::for_each_token(line, [&](std::string_view t) { out.emplace_back(t); });
  }
  return out;
}

// Ratings when most of the lines looked at are well-formed ratings lines of one dialect (comma or
// blanks) and one width (3 or 4 fields, the third a number, a fourth an integer); a CSV may open
// with a header line, which is not counted. A majority rather than every line: a ratings file with
// one short or badly quoted line among its first ones was read as plain text and trained on, where
// the ratings reader names the line (as fk-als does for the same file). Plain text rarely has most
// lines of 3-4 words whose third is a number; a tie ("one two 3" then "four five six") stays text.
bool looks_like_ratings(const std::vector<std::string>& lines) {
  for (const bool csv : {true, false}) {
    std::size_t data[5] = {};  // well-formed lines by width
    std::size_t counted = 0;   // lines that must be data: all but a CSV's header
    for (std::size_t k = 0; k < lines.size(); ++k) {
      const auto f = ratings_fields(lines[k], csv);
      const bool width_ok = f.size() >= 3 && f.size() <= 4;
      const bool is_data = width_ok && is_number(f[2]) &&
                           (f.size() == 3 || count_ints(f[3], false) == 1);
      if (csv && k == 0 && width_ok && !is_data) continue;  // the header line
      ++counted;
      if (is_data) ++data[f.size()];
    }
    if (std::max(data[3], data[4]) * 2 > counted) return true;
  }
  return false;
}

}  // namespace

InputFormat parse_input_format(const std::string& text) {
  const std::string t = lower(text);
  if (t == "auto") return InputFormat::kAuto;
  if (t == "uci") return InputFormat::kUci;
  if (t == "mtx" || t == "mm" || t == "matrix-market") return InputFormat::kMtx;
  if (t == "text" || t == "txt") return InputFormat::kText;
  if (t == "ratings") return InputFormat::kRatings;
  if (t == "smtx" || t == "dlmc") return InputFormat::kSmtx;
  throw Error("unknown input format '" + text +
              "' (expected auto, uci, mtx, text, ratings or smtx)");
}

const char* to_string(InputFormat f) {
  switch (f) {
    case InputFormat::kAuto:
      return "auto";
    case InputFormat::kUci:
      return "uci";
    case InputFormat::kMtx:
      return "mtx";
    case InputFormat::kText:
      return "text";
    case InputFormat::kRatings:
      return "ratings";
    case InputFormat::kSmtx:
      return "smtx";
  }
  return "unknown";
}

InputFormat detect_format(const std::string& path) {
  constexpr std::size_t kPrefix = 4096;
  constexpr std::size_t kLines = 8;
  // Detection reads the first lines and parsing opens the file again: a pipe would be empty the
  // second time (and a FIFO would wait for a writer that is gone).
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
      !std::filesystem::is_directory(status))
    throw InputError(path, 0,
                     "is a pipe or a device, which can be read only once: name its format with "
                     "--format (uci, mtx, text, ratings or smtx) so that it is read only once");
  LineReader in(path);
  std::vector<std::string> lines;
  std::string part;
  bool end = false;
  while (lines.size() < kLines && in.next_part(part, kPrefix, end)) {
    std::string prefix = part;
    while (!end) in.next_part(part, kPrefix, end);  // skip the rest of a long line
    if (!detail::blank_line(prefix)) lines.push_back(std::move(prefix));
  }
  if (lines.empty()) throw InputError(path, 0, "empty file: cannot detect its format");
  // Control bytes other than tabs and line ends (a NUL above all) mean a binary file, which would
  // otherwise be read as plain text and trained on.
  for (std::size_t k = 0; k < lines.size(); ++k)
    for (const char c : lines[k]) {
      const auto b = static_cast<unsigned char>(c);
      if (b < 0x20 && b != '\t' && b != '\r' && b != '\f' && b != '\v')
        throw InputError(path, 0,
                         "looks like a binary file (control byte " + std::to_string(b) +
                             " among its first lines); expected text: a UCI bag of words, Matrix "
                             "Market, DLMC .smtx, ratings or plain documents");
    }
  // The extensions that name one format say it, so that a damaged file gets its own reader's
  // message (a Matrix Market banner with one '%' was read as plain text, or as ratings).
  std::string name = std::filesystem::path(path).filename().string();
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0) name.resize(name.size() - 3);
  auto ends_with = [&](const char* ext) {
    const std::size_t n = std::strlen(ext);
    return name.size() > n && name.compare(name.size() - n, n, ext) == 0;
  };
  if (ends_with(".smtx")) return InputFormat::kSmtx;
  if (ends_with(".mtx")) return InputFormat::kMtx;
  const std::string& l0 = lines[0];
  // "%%" opens only Matrix Market files: a misspelt banner gets the Matrix Market reader's
  // message about it instead of being read as a plain-text document.
  if (l0.rfind("%%", 0) == 0) return InputFormat::kMtx;
  if (l0.find(',') != std::string::npos && count_ints(l0, true) == 3 && lines.size() >= 2 &&
      lines[1].find(',') == std::string::npos && count_ints(lines[1], false) >= 1 &&
      first_token(lines[1]) == "0")
    return InputFormat::kSmtx;
  if (lines.size() >= 3 && count_ints(lines[0], false) == 1 && count_ints(lines[1], false) == 1 &&
      count_ints(lines[2], false) == 1 && (lines.size() == 3 || count_ints(lines[3], false) == 3))
    return InputFormat::kUci;
  // MovieLens .dat: "::" on the first line, or on most of them (the first may be the damaged one).
  const auto colons = std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("::") != std::string::npos;
  });
  if (l0.find("::") != std::string::npos || static_cast<std::size_t>(colons) * 2 > lines.size())
    return InputFormat::kRatings;
  if (looks_like_ratings(lines)) return InputFormat::kRatings;
  // A UCI file (docword.NAME.txt) whose header is broken: its reader says which line and why,
  // where plain text would end in a puzzling "no word is left" after filtering numbers.
  if (std::filesystem::path(path).filename().string().rfind("docword.", 0) == 0)
    return InputFormat::kUci;
  return InputFormat::kText;
}

}  // namespace fk::io
