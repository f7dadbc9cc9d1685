#pragma once
// What the fuzz harnesses share. The readers take paths, so each input is written to a file in a
// folder private to this process (fuzzers run with -jobs and ctest runs replays in parallel),
// under /dev/shm when there is one: a file per execution costs little on a RAM disk.
//
// The readers' promise is that bad input ends in an fk::Error naming the file, the line and the
// problem. So refused() swallows fk::Error and nothing else: any other exception escapes the
// harness and aborts (libFuzzer and the replay both report it), as do sanitizer reports. A plain
// fk::Error from an FK_CHECK (an internal invariant: "... [check 'COND' failed at FILE:LINE]") is
// a reader that let bad input reach code that trusts it: that aborts too. InputErrors are never
// taken for one, since their text may echo the input, "[check '" included.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace fk::fuzz {

// Aborts with a message: a finding. Used for broken promises that are not crashes themselves.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void require(bool ok, const char* what) {
  if (!ok) finding(what);
}

// This process's scratch folder, removed at a normal exit.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec)
                                           ? std::filesystem::path("/dev/shm")
                                           : std::filesystem::temp_directory_path();
    const std::filesystem::path d = base / ("fk-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d.string();
  }();
  // Registered once `dir` is built, so it runs before `dir` is destroyed (in reverse order).
  static const bool cleanup = (std::atexit([] {
                                 std::error_code ignored;
                                 std::filesystem::remove_all(scratch_dir(), ignored);
                               }),
                               true);
  (void)cleanup;
  return dir;
}

// Writes `size` bytes to `name` inside the scratch folder (made when missing) and returns the
// file's path.
inline std::string write_file(const std::string& name, const void* data, std::size_t size) {
  const std::filesystem::path p = std::filesystem::path(scratch_dir()) / name;
  std::filesystem::create_directories(p.parent_path());
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
    finding("cannot write the input file " + p.string());  // not the reader's fault, but loud
  return p.string();
}

// True for the text of FK_CHECK's errors (core/error.hpp): it ends "[check '...' failed at F:N]".
inline bool from_fk_check(const std::string& what) {
  const std::size_t at = what.rfind(" [check '");
  return at != std::string::npos && what.back() == ']' &&
         what.find("' failed at ", at) != std::string::npos;
}

// With FK_FUZZ_VERBOSE set, each refusal's message is printed: to see what a corpus file
// exercises, or which check a new seed trips.
inline void note_refusal(const char* what) {
  static const bool verbose = std::getenv("FK_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "refused: %s\n", what);
}

// Runs `read`; false when it returned, true when it refused the input with an fk::Error.
template <typename F>
bool refused(F&& read) {
  try {
    read();
    return false;
  } catch (const InputError& e) {
    note_refusal(e.what());
    return true;
  } catch (const Error& e) {
    if (from_fk_check(e.what())) finding(std::string("internal check failed: ") + e.what());
    note_refusal(e.what());
    return true;
  }
}

// Checks a result the reader accepted; an fk::Error here (validate() throws one) is a finding.
template <typename F>
void check_result(F&& check) {
  try {
    check();
  } catch (const Error& e) {
    finding(std::string("an accepted input gave an invalid result: ") + e.what());
  }
}

}  // namespace fk::fuzz
