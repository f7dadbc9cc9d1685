// Fuzzes the CSV reader (CsvReader over a file) and split_csv_record on the bytes as one record.
#include <string_view>

#include "core/io/csv.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  std::vector<std::string> fields;
  bool ok = true;
  // A record whose quoted field is still open at the end is incomplete (false); a complete one
  // has at least one field.
  if (io::split_csv_record(std::string_view(reinterpret_cast<const char*>(data), size), fields, ok))
    fuzz::require(!fields.empty(), "split_csv_record gave no field");

  const std::string path = fuzz::write_file("input.csv", data, size);
  fuzz::refused([&] {
    io::CsvReader csv(path);
    fuzz::require(!csv.header().empty(), "a CSV header without fields");
    std::int64_t last_line = csv.line_number();
    while (csv.next(fields)) {
      fuzz::require(fields.size() == csv.header().size(), "a record unlike the header");
      fuzz::require(csv.line_number() > last_line, "the line number did not advance");
      last_line = csv.line_number();
    }
  });
  return 0;
}
