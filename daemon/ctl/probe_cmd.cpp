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
// (DMI product_serial/product_uuid, power_supply serial_number, MACs), and
// anything not readable as text of at most 4 KiB.
#include "probe_cmd.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <vector>

namespace coolhand::ctl {

namespace {

namespace fs = std::filesystem;

bool private_name(std::string_view name) {
  for (std::string_view bad : {"serial", "uuid", "address"}) {
    if (name.find(bad) != std::string_view::npos) return true;
  }
  return false;
}

class Prober {
 public:
  Prober(fs::path root, fs::path out) : root_(std::move(root)), out_(std::move(out)) {}

  // Copies the readable files directly in `rel`.
  void dir(const fs::path& rel) {
    std::error_code ec;
    for (fs::directory_iterator it(root_ / rel, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (private_name(name) || !it->is_regular_file(ec)) continue;
      std::ifstream in(it->path(), std::ios::binary);
      std::string text(4097, '\0');
      in.read(text.data(), static_cast<std::streamsize>(text.size()));
      if (in.bad() || in.gcount() <= 0 || in.gcount() > 4096) continue;
      text.resize(static_cast<std::size_t>(in.gcount()));
      fs::create_directories(out_ / rel, ec);
      std::ofstream(out_ / rel / name, std::ios::binary) << text;
      ++files_;
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
    return out;
  }
  [[nodiscard]] std::size_t files() const { return files_; }

 private:
  fs::path root_;
  fs::path out_;
  std::size_t files_ = 0;
};

}  // namespace

int probe(const ProbeOptions& o) {
  std::error_code ec;
  if (o.output.empty() || fs::exists(o.output, ec)) {
    std::cerr << "probe: " << o.output << " exists; give a new directory\n";
    return 2;
  }
  if (!fs::create_directories(o.output, ec)) {
    std::cerr << "probe: cannot create " << o.output << ": " << ec.message() << '\n';
    return 2;
  }
  Prober p(o.sysfs_root, o.output);
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
  std::cout << "probe: " << p.files() << " files written to " << o.output
            << " (serials, MACs and UUIDs left out); load it with --sysfs-root " << o.output
            << '\n';
  return 0;
}

}  // namespace coolhand::ctl
