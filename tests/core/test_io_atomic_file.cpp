#include <string>
#include <vector>

#include "core/io/atomic_file.hpp"
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

}  // namespace
}  // namespace fk
