#include "core/io/csv.hpp"

#include "core/error.hpp"
#include "core/io/parse.hpp"

namespace fk::io {

std::string csv_escape(const std::string& field) {
  bool needs_quotes = false;
  for (char c : field)
    if (c == ',' || c == '"' || c == '\n' || c == '\r') needs_quotes = true;
  // Leading/trailing blanks are quoted because many readers trim unquoted fields.
  if (!field.empty() && (detail::is_blank(field.front()) || detail::is_blank(field.back())))
    needs_quotes = true;
  if (!needs_quotes) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

CsvWriter::CsvWriter(const std::string& path, const std::vector<std::string>& header)
    : file_(path), columns_(header.size()) {
  if (header.empty()) throw Error("CSV file " + path + " needs at least one header column");
  row(header);
}

void CsvWriter::row(const std::vector<std::string>& fields) {
  if (fields.size() != columns_) {
    throw Error("CSV row for " + file_.path() + " has " + std::to_string(fields.size()) +
                " fields, the header has " + std::to_string(columns_));
  }
  std::ostream& os = file_.stream();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) os << ',';
    os << csv_escape(fields[i]);
  }
  // A single empty field would be a blank line, which readers skip: quote it.
  if (fields.size() == 1 && fields[0].empty()) os << "\"\"";
  os << '\n';
}

void CsvWriter::commit() { file_.commit(); }

namespace {
void trim_trailing_blanks(std::string& field) {
  while (!field.empty() && detail::is_blank(field.back())) field.pop_back();
}
}  // namespace

bool split_csv_record(std::string_view line, std::vector<std::string>& fields, bool& ok) {
  enum class State { kStart, kUnquoted, kQuoted, kAfterQuote };
  fields.clear();
  ok = true;
  std::string cur;
  State st = State::kStart;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    switch (st) {
      case State::kStart:
        if (detail::is_blank(c)) {
          // Blanks before a field are not part of it (see the header).
        } else if (c == '"') {
          st = State::kQuoted;
        } else if (c == ',') {
          fields.push_back(std::move(cur));
          cur.clear();
        } else {
          cur += c;
          st = State::kUnquoted;
        }
        break;
      case State::kUnquoted:
        if (c == ',') {
          trim_trailing_blanks(cur);
          fields.push_back(std::move(cur));
          cur.clear();
          st = State::kStart;
        } else if (c == '"') {
          ok = false;
          cur += c;
        } else {
          cur += c;
        }
        break;
      case State::kQuoted:
        if (c == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cur += '"';
            ++i;
          } else {
            st = State::kAfterQuote;
          }
        } else {
          cur += c;
        }
        break;
      case State::kAfterQuote:
        if (c == ',') {
          fields.push_back(std::move(cur));
          cur.clear();
          st = State::kStart;
        } else if (!detail::is_blank(c)) {
          ok = false;
        }
        break;
    }
  }
  if (st == State::kQuoted) return false;
  if (st == State::kUnquoted) trim_trailing_blanks(cur);
  fields.push_back(std::move(cur));
  return true;
}

CsvReader::CsvReader(const std::string& path) : in_(path) {
  if (!read_record(header_)) in_.fail("empty file, expected a CSV header row");
}

bool CsvReader::read_record(std::vector<std::string>& fields) {
  do {
    if (!in_.next(line_)) return false;
  } while (detail::blank_line(line_));
  record_ = line_;
  bool ok = true;
  while (!split_csv_record(record_, fields, ok)) {
    if (!in_.next(line_)) in_.fail("a quoted field is still open at the end of the file");
    if (record_.size() + line_.size() > in_.max_line_length())
      in_.fail("quoted field longer than " + std::to_string(in_.max_line_length()) + " bytes");
    record_ += '\n';
    record_ += line_;
  }
  if (!ok)
    in_.fail("malformed CSV quoting (a quote inside an unquoted field or after a closing quote)");
  return true;
}

bool CsvReader::next(std::vector<std::string>& fields) {
  if (!read_record(fields)) return false;
  if (fields.size() != header_.size()) {
    in_.fail("expected " + std::to_string(header_.size()) + " fields as in the header, found " +
             std::to_string(fields.size()));
  }
  return true;
}

}  // namespace fk::io
