#pragma once
// A small CSV writer (RFC 4180 quoting) over an AtomicFile.
#include <initializer_list>
#include <string>
#include <vector>

#include "core/io/atomic_file.hpp"

namespace fk::io {

class CsvWriter {
 public:
  CsvWriter(const std::string& path, const std::vector<std::string>& header);
  void row(const std::vector<std::string>& fields);
  void commit();  // renames into place; without it the file never appears

 private:
  AtomicFile file_;
  std::size_t columns_;
};

std::string csv_escape(const std::string& field);

}  // namespace fk::io
