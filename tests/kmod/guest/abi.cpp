// The abi suite: the sysfs files of a fresh coolhand.ko with the emulated
// platform (modes, values, refusals); and the nocrit suite: a zone without
// a critical trip has no critical files.
#include <cerrno>
#include <cstdlib>
#include <string>

#include "checks.hpp"
#include "suites.hpp"

namespace coolhand::vmtest {
namespace {

void check_zone_files(Tap& t, const std::string& z) {
  const std::pair<const char*, int> modes[] = {
      {"name", 0444},          {"kind", 0444},
      {"temp1_input", 0444},   {"temp1_alarm", 0644},
      {"temp1_crit", 0444},    {"temp1_crit_alarm", 0644},
      {"temp1_passive", 0444}, {"temp1_passive_alarm", 0644},
      {"event_mode", 0444},    {"event_step", 0644},
      {"event_window", 0644},
  };
  for (const auto& [file, mode] : modes) {
    t.eq(file_mode(z + "/" + file), mode, z + "/" + file + " mode");
  }
}

}  // namespace

void suite_abi(Tap& t) {
  const std::string z0 = zone_dir("emul_zone0");
  const std::string z1 = zone_dir("emul_zone1");
  t.eq(list_dir(kClass, "zone").size(), size_t{2}, "two zones in /sys/class/coolhand");
  if (!t.check(!z0.empty() && !z1.empty(), "zones emul_zone0 and emul_zone1 exist")) return;

  check_zone_files(t, z0);
  check_zone_files(t, z1);

  t.eq(read_file(z0 + "/kind"), "cpu", "zone0 kind");
  t.eq(read_file(z1 + "/kind"), "skin", "zone1 kind");
  t.eq(read_int(z0 + "/temp1_input"), kStartMc, "zone0 temp1_input is the start temperature");
  t.eq(read_int(z0 + "/temp1_crit"), kCritMc, "zone0 temp1_crit");
  t.eq(read_int(z0 + "/temp1_passive"), kPassiveMc, "zone0 temp1_passive");
  t.eq(read_int(z0 + "/temp1_alarm"), 0, "zone0 temp1_alarm starts clear");
  t.eq(read_int(z0 + "/temp1_crit_alarm"), 0, "zone0 temp1_crit_alarm starts clear");
  t.eq(read_int(z0 + "/temp1_passive_alarm"), 0, "zone0 temp1_passive_alarm starts clear");
  t.eq(read_file(z0 + "/event_mode"), "step", "default event mode");
  t.eq(read_file(z0 + "/event_step"), "1000 1000", "default event steps");
  t.eq(read_file(z0 + "/event_window"), "34000 36000", "default window around start temp");

  // Links to the associated devices and to the mirrored thermal zone.
  for (int d = 0; d < 2; ++d) {
    const std::string link = z0 + "/throttle" + std::to_string(d);
    t.check(is_symlink(link), "zone0 has link " + link);
    t.eq(real_path(link), real_path(throttle(d)), "zone0 link resolves to the device node");
  }
  t.eq(read_file(z0 + "/thermal_zone/type"), "emul_zone0", "zone0 thermal_zone link");

  // Throttling files on the component's own device node.
  for (int d = 0; d < 2; ++d) {
    const std::string dev = throttle(d);
    t.eq(file_mode(dev + "/throttling"), 0644, dev + "/throttling mode");
    t.eq(file_mode(dev + "/throttling_max"), 0444, dev + "/throttling_max mode");
    t.eq(read_int(dev + "/throttling"), 0, dev + "/throttling starts at 0");
    t.eq(read_int(dev + "/throttling_max"), kMaxLevel, dev + "/throttling_max");
  }

  const std::string thr = throttle(0) + "/throttling";
  for (const char* v : {"0", "1", "5", "10", "7\n"}) {
    const int err = write_file(thr, v);
    t.eq(err, 0, "throttling accepts in-range " + shown(v));
    t.eq(read_int(thr), std::atoi(v), "throttling reads back " + shown(v));
  }
  for (const char* v : {"11", "4294967295", "4294967296", "-1", "abc", "\n", "5abc", " 5", "1.5",
                        "0x3", "99999999999999999999"}) {
    expect_einval(t, thr, v, "throttling");
  }
  const int err = write_file(throttle(0) + "/throttling_max", "3");
  t.eq(err, EACCES, "throttling_max is read-only");
  t.eq(read_int(throttle(0) + "/throttling_max"), kMaxLevel, "throttling_max unchanged");
  t.eq(write_file(thr, "0"), 0, "throttling back to 0");

  // temp1_alarm: set by a reported change, cleared by reading temp1_input or writing 0.
  t.eq(inject(0, 40000), 0, "inject 40000 into sensor0");
  t.eq(read_int(z0 + "/temp1_alarm"), 1, "temp1_alarm set by a reported change");
  t.eq(read_int(z0 + "/temp1_input"), 40000, "temp1_input follows the sensor");
  t.eq(read_int(z0 + "/temp1_alarm"), 0, "reading temp1_input clears temp1_alarm");
  t.eq(inject(0, 45000), 0, "inject 45000");
  t.eq(read_int(z0 + "/temp1_alarm"), 1, "temp1_alarm set again");
  t.eq(write_file(z0 + "/temp1_alarm", "0"), 0, "temp1_alarm accepts 0");
  t.eq(read_int(z0 + "/temp1_alarm"), 0, "writing 0 clears temp1_alarm");
  t.eq(inject(0, 45500), 0, "inject 45500 (inside the 1000 m°C step)");
  t.eq(read_int(z0 + "/temp1_alarm"), 0, "a change inside the window does not set temp1_alarm");
  t.eq(inject(0, 47000), 0, "inject 47000");
  for (const char* v : {"1", "abc", "-1", "0 0"})
    expect_einval(t, z0 + "/temp1_alarm", v, "temp1_alarm");
  for (const char* v : {"2", "x"}) {
    expect_einval(t, z0 + "/temp1_passive_alarm", v, "temp1_passive_alarm");
    expect_einval(t, z0 + "/temp1_crit_alarm", v, "temp1_crit_alarm");
  }
  t.eq(write_file(z0 + "/temp1_passive_alarm", "0"), 0, "temp1_passive_alarm accepts 0");
  t.eq(write_file(z0 + "/temp1_crit_alarm", "0\n"), 0, "temp1_crit_alarm accepts 0");
  t.eq(write_file(z0 + "/temp1_crit", "1000"), EACCES, "temp1_crit is read-only");
  t.eq(write_file(z0 + "/temp1_input", "1000"), EACCES, "temp1_input is read-only");

  // Granularity files.
  t.eq(write_file(z0 + "/event_step", "2000 3000\n"), 0, "event_step accepts '2000 3000'");
  t.eq(read_file(z0 + "/event_step"), "2000 3000", "event_step reads back");
  t.eq(read_file(z0 + "/event_window"), "45000 50000", "step window centred on reported temp");
  for (const char* v :
       {"0 5", "5", "1 2 3", "abc def", "100001 5", "5 100001", "-5 5", "5 5x", " ", "\n"}) {
    expect_einval(t, z0 + "/event_step", v, "event_step");
  }
  t.eq(write_file(z0 + "/event_window", "30000 50000"), 0, "event_window accepts '30000 50000'");
  t.eq(read_file(z0 + "/event_mode"), "window", "writing event_window selects window mode");
  t.eq(read_file(z0 + "/event_window"), "30000 50000", "event_window reads back");
  for (const char* v : {"50000 30000", "10 10", "-300000 0", "0 600000", "x", "1 2 3"}) {
    expect_einval(t, z0 + "/event_window", v, "event_window");
  }
  t.eq(read_file(z0 + "/event_mode"), "window", "refused writes keep the mode");
  t.eq(write_file(z0 + "/event_step", "1000 1000"), 0, "back to 1000 m°C steps");
  t.eq(read_file(z0 + "/event_mode"), "step", "writing event_step selects step mode");

  // The emulated controller's own input.
  for (const char* v : {"abc", "600000", "-300000", "1e3"}) {
    expect_einval(t, sensor(0) + "/temp", v, "sensor temp");
  }
  t.eq(file_mode(sensor(0) + "/temp"), 0644, "sensor temp mode");
  t.eq(file_mode(sensor(0) + "/window"), 0444, "sensor window mode");
}

void suite_nocrit(Tap& t) {
  const std::string z0 = zone_dir("emul_zone0");
  if (!t.check(!z0.empty(), "zone emul_zone0 exists")) return;
  t.check(!exists(z0 + "/temp1_crit"), "no temp1_crit without a critical trip");
  t.check(!exists(z0 + "/temp1_crit_alarm"), "no temp1_crit_alarm without a critical trip");
  t.eq(read_int(z0 + "/temp1_passive"), kPassiveMc, "temp1_passive still there");
  const std::string tz0 = thermal_dir("thermal_zone", "emul_zone0");
  t.check(exists(tz0 + "/trip_point_0_type") && !exists(tz0 + "/trip_point_1_type"),
          "the thermal zone has exactly one trip");
}

}  // namespace coolhand::vmtest
