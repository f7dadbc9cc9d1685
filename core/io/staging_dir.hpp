#pragma once
// A folder of files that are written one by one and published together (a checkpoint swapped
// into place, a generated data set moved into its folder): made fresh, and removed with what it
// holds when it is destroyed before release() or when Ctrl-C or a kill ends the process
// (io::RemovedOnSignal: the folder and the files named through file()).
#include <memory>
#include <string>
#include <vector>

#include "core/io/atomic_file.hpp"

namespace fk::io {

class StagingDir {
 public:
  // Makes `path` (and its parents), removing a leftover of that name first. Throws fk::Error
  // naming it when it cannot.
  explicit StagingDir(std::string path);
  ~StagingDir();  // removes the folder and its files unless released
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;

  const std::string& path() const { return path_; }
  // The path of file `name` inside it, registered for the signal cleanup.
  std::string file(const std::string& name);
  // The folder was renamed into place: nothing to remove or clean up any more.
  void release();

 private:
  std::string path_;
  bool released_ = false;
  std::vector<std::unique_ptr<RemovedOnSignal>> on_signal_;  // the folder, then its files
};

}  // namespace fk::io
