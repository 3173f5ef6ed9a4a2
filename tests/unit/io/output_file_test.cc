// Whole-or-nothing output (lib/io/output_file.h): what a reader sees while a writer works, two
// writers of one path, an error half-way, a signal half-way, symlinks, devices and directories.
#include "lib/io/output_file.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

namespace fs = std::filesystem;
using ::abicheck::testing::TempDir;

std::string Read(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t Entries(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(OutputFileTest, TheTargetChangesOnlyOnCommit) {
  TempDir d;
  const std::string p = d.Write("out.abix", std::string("old"));
  absl::StatusOr<OutputFile> a = OutputFile::Create(p);
  absl::StatusOr<OutputFile> b = OutputFile::Create(p);  // a second writer of the same path
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->Write("first writer").ok());
  ASSERT_TRUE(b->Write("second").ok());
  EXPECT_EQ(Read(p), "old");         // nothing half-written is ever visible
  EXPECT_EQ(Entries(d.path()), 3u);  // each writer has its own temporary file
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(Read(p), "second");
  ASSERT_TRUE(a->Commit().ok());  // the later commit wins whole; never a mix
  EXPECT_EQ(Read(p), "first writer");
  EXPECT_EQ(Entries(d.path()), 1u);
}

TEST(OutputFileTest, ModesAreWhatOpenWouldGive) {
  TempDir d;
  const std::string p = d.path() + "/new.abix";
  ASSERT_TRUE(WriteFileAtomically(p, "x").ok());
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(fs::status(p).permissions(), static_cast<fs::perms>(0666 & ~mask));
  fs::permissions(p, static_cast<fs::perms>(0640));
  ASSERT_TRUE(WriteFileAtomically(p, "y").ok());  // a replaced file keeps its mode
  EXPECT_EQ(fs::status(p).permissions(), static_cast<fs::perms>(0640));
}

TEST(OutputFileTest, AnUncommittedFileLeavesNothing) {
  TempDir d;
  {
    absl::StatusOr<OutputFile> f = OutputFile::Create(d.path() + "/new.txt");
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(f->Write("partial").ok());
  }  // an error path: destroyed without Commit
  EXPECT_EQ(Entries(d.path()), 0u);
}

TEST(OutputFileTest, SignalRemovesTheTemporaryFile) {
  TempDir d;
  for (int sig : {SIGINT, SIGTERM}) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      absl::StatusOr<OutputFile> f = OutputFile::Create(d.path() + "/x.abix");
      if (!f.ok() || !f->Write("half").ok()) ::_exit(2);
      std::raise(sig);
      ::_exit(3);  // not reached
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_EQ(Entries(d.path()), 0u) << "signal " << sig;
  }
}

TEST(OutputFileTest, LinksDevicesAndDirectories) {
  TempDir d;
  const std::string target = d.Write("real.txt", std::string("old"));
  fs::create_symlink("real.txt", d.path() + "/link.txt");
  ASSERT_TRUE(WriteFileAtomically(d.path() + "/link.txt", "new").ok());
  EXPECT_TRUE(fs::is_symlink(d.path() + "/link.txt"));  // the link stays a link
  EXPECT_EQ(Read(target), "new");
  ASSERT_TRUE(WriteFileAtomically("/dev/null", "x").ok());  // written in place, not replaced
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  fs::create_directory(d.path() + "/adir");
  absl::Status s = WriteFileAtomically(d.path() + "/adir", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("Is a directory"));
  EXPECT_EQ(Entries(d.path() + "/adir"), 0u);
  EXPECT_EQ(Entries(d.path()), 3u);  // real.txt, link.txt, adir: no temporary file left
  EXPECT_FALSE(WriteFileAtomically(d.path() + "/no/such/dir/f", "x").ok());
}

}  // namespace
}  // namespace abicheck
