#include "core/io/atomic_file.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"

namespace fk::io {
namespace {
std::atomic<unsigned long> g_counter{0};
}  // namespace

AtomicFile::AtomicFile(const std::string& path, bool binary)
    : path_(path),
      tmp_path_(path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(g_counter++)) {
  if (path.empty()) throw Error("cannot write a file with an empty name");
  std::ios::openmode mode = std::ios::out | std::ios::trunc;
  if (binary) mode |= std::ios::binary;
  out_.open(tmp_path_, mode);
  if (!out_) {
    throw Error("cannot write " + path_ + ": cannot create " + tmp_path_ + " (" +
                std::strerror(errno) + ")");
  }
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::remove(tmp_path_.c_str());  // best effort; nothing useful to do if it fails
}

void AtomicFile::commit() {
  if (committed_) throw Error("AtomicFile::commit called twice for " + path_);
  out_.flush();
  const bool write_ok = static_cast<bool>(out_);
  out_.close();
  if (!write_ok || out_.fail()) {
    const int err = errno;
    std::remove(tmp_path_.c_str());
    committed_ = true;  // nothing left to clean up
    throw Error("write error on " + path_ + " (" + std::strerror(err) +
                "); the file was not changed");
  }
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp_path_.c_str());
    committed_ = true;
    throw Error("cannot rename " + tmp_path_ + " to " + path_ + " (" + std::strerror(err) + ")");
  }
  committed_ = true;
}

}  // namespace fk::io
