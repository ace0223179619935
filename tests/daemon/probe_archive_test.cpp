// Probe archives (probe_archive.h): a written archive unpacks to the same
// files in a private directory that goes away with its owner; truncated,
// garbage and hostile archives (links, absolute or ".." names, oversized
// files) are clear errors that leave nothing behind.
#include "probe_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>

#include "fake_tree.h"

namespace coolhand::daemon::probe_archive_test {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void spill(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// Points TMPDIR at a directory of the test's own, so what unpacking leaves
// there can be counted.
struct ProbeArchiveTest : ::testing::Test {
  ProbeArchiveTest() {
    tmp = work.root() + "/tmp";
    fs::create_directories(tmp);
    const char* old = std::getenv("TMPDIR");
    if (old != nullptr) saved = old;
    ::setenv("TMPDIR", tmp.c_str(), 1);
  }
  ~ProbeArchiveTest() override {
    if (saved) {
      ::setenv("TMPDIR", saved->c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }
  [[nodiscard]] std::size_t left_in_tmp() const {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(tmp), fs::directory_iterator()));
  }
  // An archive written with libarchive directly, one entry per call of `add`.
  struct Raw {
    std::unique_ptr<struct archive, decltype(&archive_write_free)> a{archive_write_new(),
                                                                     archive_write_free};
    explicit Raw(const std::string& path) {
      archive_write_add_filter_gzip(a.get());
      archive_write_set_format_pax_restricted(a.get());
      archive_write_open_filename(a.get(), path.c_str());
    }
    void add(const std::string& name, const std::string& data, unsigned type = AE_IFREG,
             const char* link = nullptr) {
      archive_entry* e = archive_entry_new();
      archive_entry_set_pathname(e, name.c_str());
      archive_entry_set_filetype(e, type);
      archive_entry_set_perm(e, 0644);
      archive_entry_set_size(e, type == AE_IFREG ? static_cast<la_int64_t>(data.size()) : 0);
      if (link != nullptr) archive_entry_set_symlink(e, link);
      archive_write_header(a.get(), e);
      if (type == AE_IFREG) archive_write_data(a.get(), data.data(), data.size());
      archive_entry_free(e);
    }
    ~Raw() { archive_write_close(a.get()); }
  };

  testing::FakeTree work;
  std::string tmp;
  std::optional<std::string> saved;
};

TEST_F(ProbeArchiveTest, WrittenFilesComeBackAndGoAwayWithTheOwner) {
  const std::string archive = work.root() + "/probe.tar.gz";
  const std::vector<ProbeFile> files = {
      {"class/dmi/id/sys_vendor", "Valve\n"},
      {"class/thermal/thermal_zone0/temp", "41000\n"},
      {"class/thermal/thermal_zone0/type", "acpitz\n"},
      // Longer than ustar's 100-byte name: libarchive writes a pax header.
      {"devices/pci0000:00/0000:00:08.1/0000:04:00.0/drm/card0/device/hwmon/hwmon3/"
       "subsystem/hwmon3/device/power_dpm_force_performance_level",
       "auto\n"},
      {"class/hwmon/hwmon1/empty", ""},
      {"class/hwmon/hwmon1/block", std::string(1024, 'b')},  // data of exactly 2 blocks
  };
  ASSERT_GT(files[3].path.size(), 100u);
  ASSERT_TRUE(write_probe_archive(archive, files));
  EXPECT_FALSE(write_probe_archive(archive, files));  // never overwritten
  std::string root;
  {
    auto r = SysfsRootArg::open(archive);
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_TRUE(r->unpacked());
    root = r->path();
    EXPECT_EQ(fs::path(root).parent_path(), fs::path(tmp));
    EXPECT_EQ(fs::status(root).permissions() & fs::perms::all, fs::perms::owner_all);
    for (const ProbeFile& f : files) EXPECT_EQ(slurp(fs::path(root) / f.path), f.content);
    SysfsRootArg moved = std::move(*r);  // the new owner removes it
    EXPECT_TRUE(fs::exists(root));
  }
  EXPECT_FALSE(fs::exists(root));
  EXPECT_EQ(left_in_tmp(), 0u);
}

TEST_F(ProbeArchiveTest, ADirectoryIsUsedAsItIs) {
  auto r = SysfsRootArg::open(work.root());
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->unpacked());
  EXPECT_EQ(r->path(), work.root());
  auto missing = SysfsRootArg::open(work.root() + "/nope");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().to_string().find("nope"), std::string::npos);
}

TEST_F(ProbeArchiveTest, TruncatedAndGarbageArchivesAreClearErrors) {
  const std::string good = work.root() + "/good.tar.gz";
  std::vector<ProbeFile> files;
  for (int i = 0; i < 200; ++i) {
    files.push_back({"class/hwmon/hwmon" + std::to_string(i) + "/name",
                     "chip" + std::to_string(i * 7919) + "\n"});
  }
  ASSERT_TRUE(write_probe_archive(good, files));
  const std::string bytes = slurp(good);
  const std::string bad = work.root() + "/bad.tar.gz";
  for (const std::size_t keep :
       {std::size_t{0}, std::size_t{10}, bytes.size() / 2, bytes.size() - 20}) {
    spill(bad, bytes.substr(0, keep));
    auto r = SysfsRootArg::open(bad);
    ASSERT_FALSE(r) << "truncated to " << keep;
    EXPECT_NE(r.error().to_string().find(bad), std::string::npos) << r.error().to_string();
    EXPECT_EQ(left_in_tmp(), 0u) << "truncated to " << keep;
  }
  spill(bad, "this is not an archive at all\n");
  auto r = SysfsRootArg::open(bad);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().to_string().find("not a"), std::string::npos) << r.error().to_string();
  EXPECT_EQ(left_in_tmp(), 0u);
}

// gzip by zlib, both ways: to damage the tar inside a probe archive.
std::string gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  inflateEnd(&z);
  return out;
}
std::string gzip(const std::string& raw) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(raw.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  z.avail_in = static_cast<uInt>(raw.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}
// A ustar header's checksum field (148, 8 bytes) recomputed after an edit.
void fix_checksum(std::string& tar) {
  unsigned sum = 0;
  for (std::size_t i = 0; i < 512; ++i) {
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(tar[i]);
  }
  std::snprintf(tar.data() + 148, 8, "%06o", sum);
  tar[155] = ' ';
}

TEST_F(ProbeArchiveTest, DamagedTarInsideTheGzipIsAClearError) {
  const std::string good = work.root() + "/one.tar.gz";
  ASSERT_TRUE(write_probe_archive(good, {{"class/dmi/id/sys_vendor", "Valve\n"}}));
  const std::string tar = gunzip(slurp(good));
  ASSERT_GE(tar.size(), 3u * 512);
  ASSERT_EQ(tar.substr(257, 5), "ustar");
  struct Case {
    const char* what;
    std::function<void(std::string&)> damage;
    const char* says;
  };
  const std::vector<Case> cases = {
      // libarchive's own words, through the dlopen'd library.
      {"checksum", [](std::string& t) { t[0] ^= 1; }, "Unrecognized archive format"},
      {"size",
       [](std::string& t) {
         t.replace(124, 12, "99999999999 ");
         fix_checksum(t);
       },
       "Unrecognized archive format"},
      {"cut inside the data", [](std::string& t) { t.resize(512 + 100); }, "Truncated input file"},
  };
  const std::string bad = work.root() + "/damaged.tar.gz";
  for (const Case& c : cases) {
    std::string t = tar;
    c.damage(t);
    spill(bad, gzip(t));
    auto r = SysfsRootArg::open(bad);
    ASSERT_FALSE(r) << c.what;
    EXPECT_NE(r.error().to_string().find(c.says), std::string::npos)
        << c.what << ": " << r.error().to_string();
    EXPECT_EQ(left_in_tmp(), 0u) << c.what;
  }
  // Without its end-of-archive blocks (the gzip stream itself whole), as
  // tar(1) accepts it.
  spill(bad, gzip(tar.substr(0, 2 * 512)));
  auto r = SysfsRootArg::open(bad);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(slurp(fs::path(r->path()) / "class/dmi/id/sys_vendor"), "Valve\n");
}

TEST_F(ProbeArchiveTest, HostileEntriesAreRefused) {
  struct Case {
    const char* what;
    std::function<void(Raw&)> build;
  };
  const std::vector<Case> cases = {
      {"absolute", [](Raw& r) { r.add("/etc/passwd", "x"); }},
      {"dotdot", [](Raw& r) { r.add("class/../../escape", "x"); }},
      {"dot", [](Raw& r) { r.add("class/./x", "x"); }},
      {"empty component", [](Raw& r) { r.add("class//x", "x"); }},
      {"symlink", [](Raw& r) { r.add("class/link", "", AE_IFLNK, "/etc"); }},
      {"fifo", [](Raw& r) { r.add("class/fifo", "", AE_IFIFO); }},
      {"too large", [](Raw& r) { r.add("class/big", std::string(kMaxFileBytes + 1, 'x')); }},
      {"twice",
       [](Raw& r) {
         r.add("class/x", "1");
         r.add("class/x", "2");
       }},
      {"only directories", [](Raw& r) { r.add("class/", "", AE_IFDIR); }},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string path = work.root() + "/hostile" + std::to_string(n++) + ".tar.gz";
    {
      Raw raw(path);
      c.build(raw);
    }
    auto r = SysfsRootArg::open(path);
    ASSERT_FALSE(r) << c.what;
    EXPECT_NE(r.error().to_string().find("not a valid probe archive"), std::string::npos)
        << c.what << ": " << r.error().to_string();
    EXPECT_EQ(left_in_tmp(), 0u) << c.what;
  }
  EXPECT_FALSE(fs::exists("/tmp/escape"));
}

TEST(ProbeScrub, PrivateNamesLinesAndShapesGo) {
  EXPECT_TRUE(private_name("product_serial"));
  EXPECT_TRUE(private_name("product_uuid"));
  EXPECT_TRUE(private_name("serial_number"));
  EXPECT_TRUE(private_name("address"));
  EXPECT_FALSE(private_name("product_name"));
  EXPECT_FALSE(private_name("uevent"));
  EXPECT_EQ(scrub("POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_SERIAL_NUMBER=SN1\n"
                  "power_supply_uuid: x\nDEVTYPE=ac\n"),
            "POWER_SUPPLY_NAME=BAT0\nDEVTYPE=ac\n");
  // Anywhere in the line, not only in a key (found by fuzz_probe_archive).
  EXPECT_EQ(scrub("a: b POWER_SUPPLY_SERIAL_NUMBER=SN1\nok\n"), "ok\n");
  EXPECT_EQ(scrub("dock 00:11:22:aa:BB:cc up\n"), "dock 00:00:00:00:00:00 up\n");
  EXPECT_EQ(scrub("id 4c4c4544-0042-3510-8052-b3c04f4e3132"),
            "id 00000000-0000-0000-0000-000000000000");
  // Not those shapes: mixed separators, a hex run around them, plain numbers.
  EXPECT_EQ(scrub("00:11-22:33:44:55\n"), "00:11-22:33:44:55\n");
  EXPECT_EQ(scrub("a00:11:22:33:44:55"), "a00:11:22:33:44:55");
  EXPECT_EQ(scrub("41000\n"), "41000\n");
  EXPECT_EQ(scrub("no newline"), "no newline");
}

}  // namespace
}  // namespace coolhand::daemon::probe_archive_test
