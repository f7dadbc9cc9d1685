#pragma once
// The end of a command whose output goes to stdout (recommend's CSV, fk-bench's tables): what it
// wrote must have arrived. On a full disk or a closed stream the command fails, as coreutils'
// do, instead of ending 0 with its output cut short.
#include <memory>
#include <streambuf>

namespace fk::io {

// While it lives, std::cout writes through it, and the cause (errno) of the first of those writes
// that fails is kept for flush_standard_output. The cause cannot be found later: stdio drops what
// it could not write, so a last flush succeeds, and errno by then holds whatever later calls left
// (a check for a file that is not there: "No such file or directory"). Flushes through std::cerr
// (tied to std::cout) count too. One at a time: the mains of the apps make one.
class StandardOutputWatch {
 public:
  StandardOutputWatch();
  ~StandardOutputWatch();  // std::cout writes to the buffer it had before
  StandardOutputWatch(const StandardOutputWatch&) = delete;
  StandardOutputWatch& operator=(const StandardOutputWatch&) = delete;

 private:
  std::streambuf* before_;
  std::unique_ptr<std::streambuf> watch_;
};

// Flushes std::cout and stdout; throws fk::Error when anything written to them was lost, naming
// the cause a StandardOutputWatch kept, else this flush's, else none (rather than a stale errno).
void flush_standard_output();

}  // namespace fk::io
