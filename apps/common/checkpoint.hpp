#pragma once
// Checkpoints as directories that are replaced atomically: files are written into DIR.tmp, then
// DIR is renamed to DIR.old, DIR.tmp to DIR, and DIR.old removed. A run killed at any moment
// leaves a complete DIR or a complete DIR.old, and find_checkpoint() takes whichever is complete.
// What goes inside is the app's business (arrays as .npy, scalars in state.ini).
#include <optional>
#include <string>

#include "apps/common/output.hpp"

namespace fk::app {

class CheckpointWriter {
 public:
  explicit CheckpointWriter(std::string dir);  // starts a fresh DIR.tmp
  ~CheckpointWriter();                         // removes DIR.tmp when commit() was not reached
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Path of a file inside the staging directory, for the app's own writers.
  std::string file(const std::string& name) const;
  void set(const std::string& key, const std::string& value);
  // Writes state.ini and swaps the directory into place.
  void commit();

 private:
  std::string dir_, tmp_;
  ResolvedConfig state_;
  bool committed_ = false;
};

struct Checkpoint {
  std::string dir;       // the directory it was read from (DIR or DIR.old)
  ResolvedConfig state;  // state.ini
  std::string file(const std::string& name) const { return dir + "/" + name; }
  // The value of `key`; InputError naming state.ini when it is missing.
  std::string get(const std::string& key) const;
};

// The complete checkpoint at `dir` (or its DIR.old twin), or nullopt when there is none.
std::optional<Checkpoint> find_checkpoint(const std::string& dir);

}  // namespace fk::app
