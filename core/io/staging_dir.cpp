#include "core/io/staging_dir.hpp"

#include <filesystem>
#include <system_error>

#include "core/error.hpp"

namespace fk::io {

namespace fs = std::filesystem;

StagingDir::StagingDir(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (ec) throw Error("cannot remove the leftover staging folder " + path_ + ": " + ec.message());
  fs::create_directories(path_, ec);
  if (ec) throw Error("cannot create the staging folder " + path_ + ": " + ec.message());
  on_signal_.push_back(std::make_unique<RemovedOnSignal>(path_, true));
}

StagingDir::~StagingDir() {
  if (released_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);  // best effort: a leftover is removed by the next one of its name
}

std::string StagingDir::file(const std::string& name) {
  const std::string path = path_ + "/" + name;
  on_signal_.push_back(std::make_unique<RemovedOnSignal>(path, false));
  return path;
}

void StagingDir::release() {
  released_ = true;
  on_signal_.clear();
}

}  // namespace fk::io
