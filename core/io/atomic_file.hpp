#pragma once
// Output that never leaves a half-written file: data goes to "<path>.tmp.<pid>" and is renamed over
// <path> by commit(). If the writer is destroyed without commit (an exception, a failed write),
// the temporary file is removed and <path> is untouched.
#include <fstream>
#include <string>

namespace fk::io {

class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path, bool binary = false);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes, checks for write errors (throws fk::Error naming the path), renames into place.
  void commit();

 private:
  std::string path_;
  std::string tmp_path_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace fk::io
