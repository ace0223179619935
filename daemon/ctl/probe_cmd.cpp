// `coolhandctl probe`: what is captured, and what is stripped.
//
// Captured, relative to the sysfs root (files directly in each directory; no
// recursion, since sysfs links loop):
//   class/dmi/id                          the DMI ids detection matches on
//   class/thermal/thermal_zone*, cooling_device*
//   class/hwmon/hwmon*                    chips by name, labels, inputs, caps
//   class/powercap/*                      RAPL zones and constraints
//   class/power_supply/*                  batteries, charge controls
//   class/backlight/*
//   class/firmware-attributes/*/attributes/*
//   class/drm/card*, card*/device/uevent, card*/device/tile*/gt*/freq0
//   devices/system/cpu/cpufreq/policy*, devices/system/cpu/intel_pstate
// Stripped: any file whose name contains "serial", "uuid" or "address"
// (daemon::private_name), identifying lines and MAC/UUID-shaped values in
// the rest (daemon::scrub), and anything not readable as text of at most 4 KiB. The files go
// into a probe archive (daemon/src/probe_archive.h), written only when the
// capture is complete.
#include "probe_cmd.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include "probe_archive.h"

namespace coolhand::ctl {

namespace {

namespace fs = std::filesystem;

class Prober {
 public:
  explicit Prober(fs::path root) : root_(std::move(root)) {}

  // Captures the readable files directly in `rel`.
  void dir(const fs::path& rel) {
    std::error_code ec;
    for (fs::directory_iterator it(root_ / rel, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (daemon::private_name(name) || !it->is_regular_file(ec)) continue;
      std::ifstream in(it->path(), std::ios::binary);
      std::string text(4097, '\0');
      in.read(text.data(), static_cast<std::streamsize>(text.size()));
      if (in.bad() || in.gcount() <= 0 || in.gcount() > 4096) continue;
      text.resize(static_cast<std::size_t>(in.gcount()));
      files_.push_back({(rel / name).string(), daemon::scrub(text)});
    }
  }
  // The entries of `rel` whose names start with `prefix` ("" for all).
  std::vector<fs::path> entries(const fs::path& rel, std::string_view prefix) const {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(root_ / rel, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind(prefix, 0) == 0) out.push_back(rel / name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  [[nodiscard]] const std::vector<daemon::ProbeFile>& files() const { return files_; }

 private:
  fs::path root_;
  std::vector<daemon::ProbeFile> files_;
};

}  // namespace

int probe(const ProbeOptions& o) {
  if (o.output.empty()) {
    std::cerr << "probe: give --output FILE (a new archive, e.g. coolhand-probe.tar.gz)\n";
    return 2;
  }
  Prober p(o.sysfs_root);
  p.dir("class/dmi/id");
  for (const auto& d : p.entries("class/thermal", "")) p.dir(d);
  for (const auto& cls : {"class/hwmon", "class/powercap", "class/power_supply", "class/backlight",
                          "devices/system/cpu/cpufreq"}) {
    for (const auto& d : p.entries(cls, "")) p.dir(d);
  }
  p.dir("devices/system/cpu/intel_pstate");
  for (const auto& dev : p.entries("class/firmware-attributes", "")) {
    for (const auto& a : p.entries(dev / "attributes", "")) p.dir(a);
  }
  for (const auto& card : p.entries("class/drm", "card")) {
    const std::string n = card.filename().string();
    if (n.find_first_not_of("0123456789", 4) != std::string::npos || n.size() == 4) continue;
    p.dir(card);
    p.dir(card / "device");
    for (const auto& tile : p.entries(card / "device", "tile")) {
      for (const auto& gt : p.entries(tile, "gt")) p.dir(gt / "freq0");
    }
  }
  if (p.files().empty()) {
    std::cerr << "probe: nothing readable below " << o.sysfs_root << "; no archive written\n";
    return 2;
  }
  if (auto w = daemon::write_probe_archive(o.output, p.files()); !w) {
    std::cerr << "probe: " << w.error().to_string() << '\n';
    return 2;
  }
  std::cout << "probe: " << p.files().size() << " files written to " << o.output
            << " (serials, MACs and UUIDs left out); load it with --sysfs-root " << o.output
            << '\n';
  return 0;
}

}  // namespace coolhand::ctl
