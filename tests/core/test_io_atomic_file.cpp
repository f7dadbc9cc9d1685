#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "core/io/atomic_file.hpp"
#include "core/io/standard_output.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

TEST(IoAtomicFile, CommitReplacesTheFileAndLeavesNoTemporary) {
  test::TempDir dir;
  const std::string p = dir.file("out.txt");
  test::write_bytes(p, "old");
  {
    io::AtomicFile f(p);
    f.stream() << "new content\n";
    // Before commit the old file is still what readers see.
    EXPECT_EQ(test::read_bytes(p), "old");
    EXPECT_EQ(test::list_dir(dir.path()).size(), 2u);
    f.commit();
  }
  EXPECT_EQ(test::read_bytes(p), "new content\n");
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"out.txt"});
}

TEST(IoAtomicFile, NoCommitMeansNoChange) {
  test::TempDir dir;
  const std::string fresh = dir.file("fresh.txt"), old = dir.file("old.txt");
  test::write_bytes(old, "keep me");
  {
    io::AtomicFile a(fresh);
    io::AtomicFile b(old);
    a.stream() << "partial";
    b.stream() << "partial";
  }
  EXPECT_EQ(test::read_bytes(old), "keep me");
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"old.txt"});
}

TEST(IoAtomicFile, ExceptionMidWriteLeavesNothingBehind) {
  test::TempDir dir;
  const std::string p = dir.file("x.bin");
  try {
    io::AtomicFile f(p, /*binary=*/true);
    f.stream().write("abc", 3);
    throw std::runtime_error("writer failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(test::list_dir(dir.path()).empty());
}

TEST(IoAtomicFile, ErrorsNameThePath) {
  test::TempDir dir;
  const std::string in_missing_dir = dir.file("no/such/dir/out.txt");
  try {
    io::AtomicFile f(in_missing_dir);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(in_missing_dir), std::string::npos) << e.what();
  }
  // Renaming over a directory fails at commit; the temporary is cleaned up.
  const std::string sub = dir.file("sub");
  std::filesystem::create_directory(sub);
  io::AtomicFile f(sub);
  f.stream() << "x";
  try {
    f.commit();
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(sub), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"sub"});
  EXPECT_THROW(f.commit(), Error);  // a second commit is an error, not a silent no-op
}

TEST(IoAtomicFile, NamesAtTheLengthLimitGetATemporary) {
  // A 255-byte name is legal; its temporary (name + ".tmp.PID.N") is shortened to fit, and the
  // output check's probe beside it too.
  test::TempDir dir;
  const std::string p = dir.file(std::string(255, 'n'));
  EXPECT_NO_THROW(io::check_output_file(p));
  io::AtomicFile f(p);
  f.stream() << "long name\n";
  f.commit();
  EXPECT_EQ(test::read_bytes(p), "long name\n");
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{std::string(255, 'n')});
  // A name past the limit is refused by the check, before any work, as it was.
  EXPECT_THROW(io::check_output_file(dir.file(std::string(256, 'n'))), Error);
  // The cut keeps a UTF-8 character whole: 127 two-byte 'é's (254 bytes) and one byte more.
  std::string accents;
  for (int i = 0; i < 127; ++i) accents += "\xc3\xa9";
  accents += "x";
  io::AtomicFile u(dir.file(accents));
  const std::string tmp = std::filesystem::path(u.temp_path()).filename().string();
  EXPECT_LE(tmp.size(), 255u);
  const std::size_t stem = tmp.find(".tmp.");
  ASSERT_NE(stem, std::string::npos) << tmp;
  EXPECT_EQ(stem % 2, 0u) << "a UTF-8 character cut in two: " << tmp;
  u.stream() << "accents\n";
  u.commit();
  EXPECT_EQ(test::read_bytes(dir.file(accents)), "accents\n");
}

TEST(IoAtomicFile, TwoWritersOfOnePathDoNotCollide) {
  test::TempDir dir;
  const std::string p = dir.file("same.txt");
  io::AtomicFile a(p), b(p);
  EXPECT_NE(a.temp_path(), b.temp_path());
  a.stream() << "a";
  b.stream() << "b";
  a.commit();
  b.commit();
  EXPECT_EQ(test::read_bytes(p), "b");
}

// Ctrl-C or a kill while a file is written leaves no "<path>.tmp.<pid>.<n>" behind (the atomic
// writer's signal cleanup), and the process still ends by the signal. In a child process; a
// signal this process ignores (SIGINT in a background job) is ignored by the writer too.
TEST(IoAtomicFile, TerminationRemovesTheTemporaryFile) {
  test::TempDir dir;
  const std::string p = dir.file("big.csv");
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction now {};
    if (::sigaction(sig, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) continue;
    const int status = test::run_in_child([&] {
      io::AtomicFile f(p);
      f.stream() << "partial" << std::flush;
      ::raise(sig);
    });
    ASSERT_NE(status, -1);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
    EXPECT_TRUE(test::list_dir(dir.path()).empty()) << test::list_dir(dir.path())[0];
  }
}

// A staging folder registered with RemovedOnSignal goes on a kill with the files registered in
// it and the temporary file being written there; an unregistered file beside it stays. A
// registration that has ended removes nothing.
TEST(IoAtomicFile, TerminationRemovesRegisteredFoldersAndFiles) {
  struct sigaction now {};
  if (::sigaction(SIGTERM, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) GTEST_SKIP();
  test::TempDir dir;
  const std::string stage = dir.file("stage"), kept = dir.file("kept");
  const int status = test::run_in_child([&] {
    std::filesystem::create_directory(stage);
    std::filesystem::create_directory(kept);
    io::RemovedOnSignal stage_on_signal(stage, true);
    io::RemovedOnSignal done_on_signal(stage + "/done.npy", false);
    io::AtomicFile done(stage + "/done.npy");
    done.stream() << "done";
    done.commit();
    { io::RemovedOnSignal released(kept, true); }
    io::AtomicFile partial(stage + "/partial.npy");
    partial.stream() << "partial" << std::flush;
    ::raise(SIGTERM);
  });
  ASSERT_NE(status, -1);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"kept"});
}

// A writer killed outright (kill -9: no cleanup runs) leaves its temporary; the next write of the
// same path removes it. Temporaries of a running process (here this test's parent) and of other
// paths stay.
TEST(IoAtomicFile, KilledWritersTemporaryGoesWithTheNextWrite) {
  test::TempDir dir;
  const std::string p = dir.file("out.csv");
  const int status = test::run_in_child([&] {
    io::AtomicFile f(p);
    f.stream() << "partial" << std::flush;
    ::raise(SIGKILL);
  });
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
  ASSERT_EQ(test::list_dir(dir.path()).size(), 1u);
  const std::string left = test::list_dir(dir.path())[0];
  ASSERT_EQ(left.rfind("out.csv.tmp.", 0), 0u) << left;
  const std::string running = "out.csv.tmp." + std::to_string(::getppid()) + ".0";
  const std::string other = "other.csv" + left.substr(std::string("out.csv").size());
  test::write_bytes(dir.file(running), "a running writer's");
  test::write_bytes(dir.file(other), "another file's");
  io::AtomicFile f(p);
  f.stream() << "whole";
  f.commit();
  EXPECT_EQ(test::list_dir(dir.path()), (std::vector<std::string>{other, "out.csv", running}));
  EXPECT_EQ(test::read_bytes(p), "whole");
}

// A standard output lost early in a command (a full disk) is reported at its end with the cause of
// the write that failed, not with the errno of whatever call came last (a missing file's check:
// fk-lda said "No such file or directory" for a full disk). In a child, with stdout on /dev/full.
TEST(IoAtomicFile, LostStandardOutputNamesItsOwnCause) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  test::TempDir dir;
  const std::string said = dir.file("said");
  const int status = test::run_in_child([&] {
    const int full = ::open("/dev/full", O_WRONLY);
    if (full < 0 || ::dup2(full, STDOUT_FILENO) < 0) ::_exit(3);
    const io::StandardOutputWatch watch;
    std::cout << "results\n" << std::flush;       // lost here: stdio drops what it could not write
    ::access(dir.file("missing").c_str(), F_OK);  // leaves errno = ENOENT
    try {
      io::flush_standard_output();
      test::write_bytes(said, "no error");
    } catch (const Error& e) {
      test::write_bytes(said, e.what());
    }
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(test::read_bytes(said), "cannot write the standard output (No space left on device)");
}

// Through a symbolic link the file it names is replaced and the link stays; a device (here
// /dev/null) or a FIFO is written in place, not replaced by a regular file.
TEST(IoAtomicFile, LinksAreFollowedAndDevicesWrittenInPlace) {
  test::TempDir dir;
  const std::string target = dir.file("target.csv"), link = dir.file("link.csv");
  test::write_bytes(target, "old");
  std::filesystem::create_symlink("target.csv", link);
  io::check_output_file(link);
  {
    io::AtomicFile f(link);
    f.stream() << "new";
    f.commit();
  }
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(test::read_bytes(target), "new");
  EXPECT_EQ(test::list_dir(dir.path()), (std::vector<std::string>{"link.csv", "target.csv"}));
  // A private copy of /dev/null's node (a regression renaming a file over it harms nothing).
  const std::string null = dir.file("null");
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    io::check_output_file(null);
    io::AtomicFile f(null);
    f.stream() << "discarded";
    f.commit();
    EXPECT_TRUE(std::filesystem::is_character_file(null));
    std::filesystem::remove(null);
  }
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader, a child: reads the FIFO to its end and exits 0 when it got the text.
  const pid_t reader = test::start_child([&] {
    std::ifstream in(fifo);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ::_exit(text == "through the pipe" ? 0 : 1);
  });
  ASSERT_GT(reader, 0);
  {
    io::AtomicFile f(fifo);
    f.stream() << "through the pipe";
    f.commit();
  }
  const int status = test::wait_child(reader);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
}

// A file past ulimit -f is a write error, as on a full disk: the writer says so and leaves no
// temporary (the signal SIGXFSZ would have ended the process with both left behind). In a child.
TEST(IoAtomicFile, FileSizeLimitIsAWriteError) {
  test::TempDir dir;
  const int status = test::run_in_child([&] {
    struct rlimit r {};
    r.rlim_cur = r.rlim_max = 4096;
    if (::setrlimit(RLIMIT_FSIZE, &r) != 0) ::_exit(3);
    try {
      io::AtomicFile f(dir.file("big.bin"));
      f.stream() << std::string(1 << 16, 'x');
      f.commit();
    } catch (const Error& e) {
      ::_exit(std::string(e.what()).find("write error on") != std::string::npos ? 0 : 1);
    }
    ::_exit(2);
  });
  ASSERT_NE(status, -1);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by a signal: " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: another message; 2: no error; 3: setrlimit failed";
  EXPECT_TRUE(test::list_dir(dir.path()).empty());
}

// check_output_file says up front what would stop a write at the end of a long command.
TEST(IoAtomicFile, OutputFileCheckNamesWhatIsInTheWay) {
  test::TempDir dir;
  EXPECT_NO_THROW(io::check_output_file(dir.file("new.csv")));
  EXPECT_NO_THROW(io::check_output_file(dir.file("missing/folder/new.csv")));  // made later
  EXPECT_NO_THROW(io::check_output_file("new.csv"));  // relative: the current folder
  EXPECT_NO_THROW(io::check_output_file("missing-folder-31/new.csv"));
  test::write_bytes(dir.file("plain"), "x");
  auto message = [](const std::string& path) {
    try {
      io::check_output_file(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(dir.path()).find("it is a directory"), std::string::npos);
  EXPECT_NE(message(dir.file("plain/new.csv")).find("is not a directory"), std::string::npos);
  EXPECT_NE(message("").find("empty name"), std::string::npos);
  // procfs: access() tells root it may write there, but no file can be made (found before the
  // command's work, not after it); the probe the check makes is gone afterwards.
  if (std::filesystem::is_directory("/proc/self")) {
    EXPECT_NE(message("/proc/new.csv").find("cannot write /proc/new.csv: "), std::string::npos);
  }
  io::check_output_file(dir.file("probed.csv"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1)
      << "only 'plain' is left";
}

}  // namespace
}  // namespace fk
