// The real coolhandctl binary on good and bad policy files: what it prints
// and how it exits.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

struct CtlRun {
  std::string out;
  int status = -1;
};

// Runs coolhandctl with `args` (shell words), stdout and stderr merged.
CtlRun ctl(const std::string& args) {
  CtlRun r;
  const std::string cmd = std::string(COOLHANDCTL_PATH) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  std::size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class Coolhandctl : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() / ("coolhandctl_test_" + std::to_string(::getpid()) + "_" +
                                     testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(Coolhandctl, CheckConfigGoodFile) {
  const std::string good = write("good.yaml", "version: 1\nsensors:\n  t: {}\n");
  const CtlRun r = ctl("check-config " + good);
  EXPECT_EQ(r.out, good + ": ok\n");
  EXPECT_EQ(r.status, 0);
}

TEST_F(Coolhandctl, CheckConfigBadFileListsEveryError) {
  const std::string good = write("good.yaml", "version: 1\n");
  const std::string bad = write("bad.yaml",
                                "version: 1\n"
                                "sensors:\n"
                                "  t: {offset: 1}\n"
                                "devices:\n"
                                "  d: {max_level: 2, min_dwell: 3}\n");
  const CtlRun r = ctl("check-config " + good + " " + bad);
  EXPECT_EQ(r.out, good + ": ok\n" + bad +
                       ":3:7: sensors.t.offset: unknown key (did you mean 'offset_c'?)\n" + bad +
                       ":5:32: devices.d.min_dwell: duration '3' needs a unit: ms, s, min or h "
                       "(e.g. 500ms, 2s)\n");
  EXPECT_EQ(r.status, 1);
}

TEST_F(Coolhandctl, CheckConfigMissingFile) {
  const std::string missing = (dir_ / "missing.yaml").string();
  const CtlRun r = ctl("check-config " + missing);
  EXPECT_EQ(r.out, missing + ": cannot open: No such file or directory (ENOENT)\n");
  EXPECT_EQ(r.status, 1);
}

// Usage errors exit 2 with a message, before any bus is touched.
TEST_F(Coolhandctl, BusCommandsRejectBadUsageWithExit2) {
  for (const char* args : {"status --bogus", "set-profile", "reload extra", "--session", "nope"}) {
    const CtlRun r = ctl(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_FALSE(r.out.empty()) << args;
  }
}

TEST_F(Coolhandctl, HelpListsTheBusExitCodes) {
  const CtlRun r = ctl("--help");
  EXPECT_NE(r.out.find("4 access denied"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 no bus, or coolhandd is not running"), std::string::npos) << r.out;
}

TEST_F(Coolhandctl, CheckConfigNeedsAFile) {
  const CtlRun r = ctl("check-config");
  EXPECT_NE(r.out.find("FILE is required"), std::string::npos) << r.out;
  EXPECT_NE(r.status, 0);
}

TEST_F(Coolhandctl, HelpEverywhere) {
  for (const char* args : {"--help", "check-config --help", "dump-config --help", "status --help",
                           "reload --help", "set-profile --help"}) {
    const CtlRun r = ctl(args);
    EXPECT_EQ(r.status, 0) << args;
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << args << "\n" << r.out;
  }
}

TEST_F(Coolhandctl, NoSubcommandIsAnError) {
  const CtlRun r = ctl("");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("subcommand"), std::string::npos) << r.out;
}

TEST_F(Coolhandctl, DumpConfigPrintsConvertedJson) {
  const std::string file =
      write("p.yaml",
            "version: 1\n"
            "sensors:\n"
            "  t: {source: {kind: thermal_zone, name: skin}, stale_after: 2s}\n"
            "devices:\n"
            "  cpu: {max_level: 2, knob: {kind: cpufreq, deepest: 1.2GHz}}\n"
            "controllers:\n"
            "  c: {kind: step_wise, input: t, devices: [cpu], "
            "threshold_c: 44.5}\n");
  const CtlRun r = ctl("dump-config " + file);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sensors"][0]["name"], "t");
  EXPECT_EQ(j["sensors"][0]["stale_after_ms"], 2000);
  EXPECT_EQ(j["sensors"][0]["source"]["kind"], "thermal_zone");
  EXPECT_EQ(j["devices"][0]["knob"]["deepest"], "1200000kHz");
  EXPECT_EQ(j["devices"][0]["knob"]["unit"], "kHz");
  EXPECT_EQ(j["controllers"][0]["threshold_c"], 44.5);
  EXPECT_EQ(j["controllers"][0]["period_ms"], 1000);
  EXPECT_EQ(j["controllers"][0]["kind"], "step_wise");
}

TEST_F(Coolhandctl, DumpConfigOfBadFileFails) {
  const std::string file = write("p.yaml", "version: 3\n");
  const CtlRun r = ctl("dump-config " + file);
  EXPECT_EQ(r.out,
            file + ":1:10: version: unsupported version 3 (this coolhand reads version 1)\n");
  EXPECT_EQ(r.status, 1);
}

}  // namespace
