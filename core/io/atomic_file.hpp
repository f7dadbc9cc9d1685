#pragma once
// Output that never leaves a half-written file: data goes to "<path>.tmp.<pid>.<n>" (n counts the
// AtomicFiles of this process, so two writers of one path in one process do not collide; <path>'s
// name is shortened where the whole would pass the folder's longest name) in the same directory,
// and is renamed over <path> by commit(). If the writer is destroyed without
// commit (an exception, a failed write), the temporary file is removed and <path> is untouched.
// rename(2) within one directory is atomic, so readers see either the old or the new file. A
// temporary of <path> left by a process that is gone (kill -9 mid-write: no cleanup could run) is
// removed when <path> is next written (remove_dead_leftovers). No
// fsync: this protects against our own failures, not against a power cut. SIGINT, SIGTERM, SIGHUP
// and SIGQUIT (where the process has no handler of its own) remove the temporary files being
// written before the process ends; SIGXFSZ is ignored, so that a file past ulimit -f is a write
// error like a full disk. Writing through a symbolic link replaces the file it names; an existing
// device, pipe or socket (/dev/null, /dev/stdout, a FIFO) is written in place, without the
// temporary (a rename would replace the node itself).
#include <fstream>
#include <string>

namespace fk::io {

class AtomicFile {
 public:
  // Creates the temporary file; throws fk::Error naming the path when it cannot (no such directory,
  // no permission).
  explicit AtomicFile(const std::string& path, bool binary = false);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes, checks for write errors (throws fk::Error naming the path), renames into place.
  // Calling it twice is an error.
  void commit();
  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return tmp_path_; }

 private:
  std::string path_;     // as given (messages name it)
  std::string target_;   // where it lands: a symbolic link's file, else path_
  std::string tmp_path_;  // empty when written in place
  bool in_place_ = false;  // a device, pipe or socket: no temporary file, no rename
  std::ofstream out_;
  bool committed_ = false;
  int slot_ = -1;  // its place in the list a signal's cleanup reads
};

// While it lives, the signals AtomicFile's cleanup handles remove `path` too: files first, then
// folders, which must be empty by then (rmdir). For staging that outlives one AtomicFile: a
// checkpoint's DIR.tmp and the files already renamed into it. Registers only.
class RemovedOnSignal {
 public:
  RemovedOnSignal(const std::string& path, bool directory);
  ~RemovedOnSignal();
  RemovedOnSignal(const RemovedOnSignal&) = delete;
  RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;

 private:
  int slot_ = -1;
};

// A line the signal cleanup writes to stderr before the process ends (Ctrl-C, a kill): how to
// go on from what is left, e.g. the checkpoint --resume reads. "" for none; at most 1 KiB kept.
// Set from one thread.
void set_signal_note(const std::string& text);

// Removes the entries of folder `dir` named `prefix` + "<pid>." + more whose process <pid> no
// longer exists: what a process killed outright (kill -9, the OOM killer) left, the temporaries
// and staging folders its own cleanup never removed. Leftovers of this process and of running
// ones stay (a process of another pid namespace sharing the folder counts as gone). Best effort:
// what cannot be listed or removed stays.
void remove_dead_leftovers(const std::string& dir, const std::string& prefix);

// Throws fk::Error naming `path` when an AtomicFile there could not be written: a directory in
// the way, or no writable folder to hold it (a missing folder counts as its nearest existing
// parent: the caller makes it). For commands that work a long time before they write.
void check_output_file(const std::string& path);

}  // namespace fk::io
