// read_text (coolhand/sim/output.h), the one reader of whole files behind
// `fit --recording`, `port`, `tune` and `replay --recording`: the bytes as
// they are, and errors that name the file and why.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "coolhand/sim/output.h"

namespace coolhand::sim {
namespace {

namespace fs = std::filesystem;

std::string scratch(const std::string& name) {
  return (fs::path(testing::TempDir()) / name).string();
}

TEST(ReadTextTest, ReadsEveryByteBackAsWritten) {
  const std::string path = scratch("read_text_bytes.bin");
  std::string bytes = "first\r\nsecond";  // no newline at the end
  bytes.push_back('\0');
  bytes += "\xEF\xBB\xBF after a NUL";
  bytes += std::string(200000, 'x');  // more than one read's buffer
  ASSERT_EQ(write_text(bytes, path), "");
  std::string text = "left over";
  ASSERT_EQ(read_text(path, text), "");
  EXPECT_EQ(text, bytes);
  std::remove(path.c_str());
}

TEST(ReadTextTest, AnEmptyFileIsEmptyText) {
  const std::string path = scratch("read_text_empty.txt");
  ASSERT_EQ(write_text("", path), "");
  std::string text = "left over";
  ASSERT_EQ(read_text(path, text), "");
  EXPECT_EQ(text, "");
  std::remove(path.c_str());
}

TEST(ReadTextTest, ErrorsNameTheFileAndLeaveTheTextAlone) {
  std::string text = "kept";
  EXPECT_EQ(read_text("/nonexistent/policy.yaml", text),
            "/nonexistent/policy.yaml: cannot open: No such file or directory");
  const std::string dir = scratch("read_text_dir");
  fs::create_directories(dir);
  EXPECT_EQ(read_text(dir, text), dir + ": cannot read: Is a directory");
  EXPECT_EQ(text, "kept");
}

}  // namespace
}  // namespace coolhand::sim
