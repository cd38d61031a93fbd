// Outputs never replace what they should write to, never exit 0 when the output did not arrive, and
// never leave a partial file behind. The targets are private stand-ins made in a scratch folder: a
// symlink, a FIFO, a directory, and (where the test may create device nodes) private copies of the
// null and full devices; the system's own /dev is never written to.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

const std::string kScenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/gpt2-124m-pretrain-l4.json";

// Runs `preflight ARGS` through the shell with the redirections given; returns the exit code.
int shell(const std::string& args, const std::string& redirections) {
  const std::string command = "bash -c '" + std::string(PREFLIGHT_BINARY) + " " + args + " " + redirections + "'";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool is_char_device(const fs::path& p) {
  struct stat s {};
  return ::lstat(p.c_str(), &s) == 0 && S_ISCHR(s.st_mode);
}

// No temporary (".NAME.partial.XXXXXX") is left in `dir`.
void expect_no_partial_file(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
  }
}

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("output-safety"); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(OutputSafety, ASymlinkIsWrittenThroughAndStaysASymlink) {
  test::write_text(dir_ / "target.txt", "old text that is longer than nothing\n");
  fs::create_symlink("target.txt", dir_ / "link.txt");
  const test::CliResult r = test::run_preflight("check " + kScenario + " --out " + (dir_ / "link.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.txt"));
  EXPECT_EQ(test::read_text(dir_ / "target.txt").rfind("preflight check: gpt2-124m-pretrain-l4", 0), 0u);
  expect_no_partial_file(dir_);
}

TEST_F(OutputSafety, AFifoIsWrittenInPlaceAndOneWithoutAReaderIsRefused) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  // Nobody reads: refused at once, not waited on.
  const test::CliResult lonely = test::run_preflight("check " + kScenario + " --out " + (dir_ / "fifo").string());
  EXPECT_EQ(lonely.exit_code, 2);
  EXPECT_NE(lonely.err.find("a FIFO that nobody reads"), std::string::npos) << lonely.err;
  // With a reader, the text goes through the FIFO, which stays a FIFO.
  std::string received;
  std::thread reader([&] { received = test::read_text(dir_ / "fifo"); });
  int code = -1;
  for (int attempt = 0; attempt < 50 && code != 0; ++attempt) {  // until the reader has opened its end
    code = shell("check " + kScenario + " --out " + (dir_ / "fifo").string(), "2>/dev/null");
    if (code != 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (code != 0) std::ofstream(dir_ / "fifo").close();  // no writer came: release the reader, fail below
  reader.join();
  EXPECT_EQ(code, 0);
  EXPECT_EQ(received.rfind("preflight check:", 0), 0u) << received;
  struct stat s {};
  ASSERT_EQ(::lstat((dir_ / "fifo").c_str(), &s), 0);
  EXPECT_TRUE(S_ISFIFO(s.st_mode));
}

TEST_F(OutputSafety, ADirectoryOrAnEmptyPathIsRefused) {
  fs::create_directories(dir_ / "folder");
  const test::CliResult folder = test::run_preflight("check " + kScenario + " --out " + (dir_ / "folder").string());
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.err.find((dir_ / "folder").string() + ": got a directory"), std::string::npos) << folder.err;
  EXPECT_TRUE(fs::is_directory(dir_ / "folder"));
  for (const std::string& command : {"check " + kScenario + " --out", "simulate " + kScenario + " --trace", "sweep " + kScenario + " --shard"}) {
    const test::CliResult empty = test::run_preflight(command + " ''");
    EXPECT_EQ(empty.exit_code, 2) << command << ": " << empty.err;
    EXPECT_TRUE(empty.out.empty()) << command;
  }
}

TEST_F(OutputSafety, SymlinkLoopsAndDanglingLinksAreRefused) {
  fs::create_symlink("loop-b", dir_ / "loop-a");
  fs::create_symlink("loop-a", dir_ / "loop-b");
  fs::create_symlink("missing/file", dir_ / "dangling");
  for (const std::string& target : {std::string("loop-a"), std::string("dangling")}) {
    const test::CliResult r = test::run_preflight("simulate " + kScenario + " --trials 100 --trace " + (dir_ / target).string());
    EXPECT_EQ(r.exit_code, 2) << target;
    EXPECT_NE(r.err.find((dir_ / target).string() + ": got a symlink"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_symlink(dir_ / target));
  }
  expect_no_partial_file(dir_);
}

// Private null and full devices (the same device numbers as /dev/null and /dev/full) where the test
// may create device nodes (root, as CI runs); skipped elsewhere.
TEST_F(OutputSafety, DevicesAreWrittenInPlaceAndAFullOneFails) {
  if (::mknod((dir_ / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      ::mknod((dir_ / "full").c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) {
    GTEST_SKIP() << "cannot create device nodes here";
  }
  const test::CliResult null = test::run_preflight("check " + kScenario + " --out " + (dir_ / "null").string());
  EXPECT_EQ(null.exit_code, 0) << null.err;
  EXPECT_TRUE(is_char_device(dir_ / "null"));
  const test::CliResult full = test::run_preflight("plan " + kScenario + " --trials 200 --out " + (dir_ / "full").string());
  EXPECT_EQ(full.exit_code, 2);
  EXPECT_NE(full.err.find("No space left on device"), std::string::npos) << full.err;
  EXPECT_TRUE(is_char_device(dir_ / "full"));
  // Standard output on the full device: the command fails instead of exiting 0 with nothing written.
  EXPECT_EQ(shell("check " + kScenario, ">" + (dir_ / "full").string() + " 2>/dev/null"), 2);
  expect_no_partial_file(dir_);
}

TEST_F(OutputSafety, AClosedOrSizeLimitedStandardOutputFails) {
  EXPECT_EQ(shell("check " + kScenario, ">&- 2>/dev/null"), 2);
  // Under a file-size limit (with SIGXFSZ ignored, as some runners do) the write stops short: exit 2,
  // not 0 with a truncated plan.json.
  const fs::path plan = dir_ / "plan.json";
  const int code = shell("plan " + kScenario + " --trials 200 --format json", "> " + plan.string() + " 2>/dev/null");
  ASSERT_EQ(code, 0);
  const auto whole = fs::file_size(plan);
  ASSERT_GT(whole, 8192u);
  const std::string limited = "ulimit -f 4; trap \"\" XFSZ; " + std::string(PREFLIGHT_BINARY) + " plan " + kScenario +
                              " --trials 200 --format json > " + plan.string() + " 2>/dev/null";
  const int status = std::system(("bash -c '" + limited + "'").c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 2);
}

// /dev/stdout names whatever standard output is: written through it, in place.
TEST_F(OutputSafety, DevStdoutWritesToStandardOutput) {
  const fs::path out = dir_ / "out.txt";
  EXPECT_EQ(shell("check " + kScenario + " --out /dev/stdout", "> " + out.string() + " 2>/dev/null"), 0);
  EXPECT_EQ(test::read_text(out).rfind("preflight check:", 0), 0u);
  EXPECT_FALSE(fs::is_symlink(out));
}

}  // namespace
}  // namespace preflight
