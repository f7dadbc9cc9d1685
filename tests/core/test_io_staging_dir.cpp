// StagingDir: made fresh (a leftover's files gone), removed with its files unless released, and
// by a kill while it exists (in a child process).
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include "core/io/atomic_file.hpp"
#include "core/io/staging_dir.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

TEST(IoStagingDir, FreshRemovedUnlessReleasedAndOnAKill) {
  test::TempDir dir;
  const std::string path = dir.file("stage");
  std::filesystem::create_directory(path);
  test::write_bytes(path + "/leftover", "x");
  {
    io::StagingDir stage(path);
    EXPECT_TRUE(test::list_dir(path).empty()) << "a leftover's files go";
    test::write_bytes(stage.file("a.npy"), "a");
  }
  EXPECT_FALSE(std::filesystem::exists(path)) << "removed with its file, not released";
  {
    io::StagingDir stage(path);
    test::write_bytes(stage.file("a.npy"), "a");
    std::filesystem::rename(path, dir.file("published"));
    stage.release();
  }
  EXPECT_EQ(test::list_dir(dir.file("published")), std::vector<std::string>{"a.npy"});

  struct sigaction now {};
  if (::sigaction(SIGTERM, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) return;
  const int status = test::run_in_child([&] {
    io::StagingDir stage(path);
    io::AtomicFile done(stage.file("done.npy"));
    done.stream() << "done";
    done.commit();
    ::raise(SIGTERM);
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace fk
