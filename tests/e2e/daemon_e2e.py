#!/usr/bin/env python3
"""End-to-end test of the real coolhandd binary against a fake sysfs tree.

A small first-order thermal model (Python stdlib only) drives the tree: every
100 ms it reads the knobs the daemon writes (fan cooling-device state, CPU
frequency cap), computes the heat those settings let through and writes the
resulting skin temperature to the thermal zone's `temp` file. Over about 30 s
of real time the scenario shows that the daemon

  * throttles when hot and releases when cool,
  * survives the sensor file disappearing (safe level) and returning,
  * keeps the old policy on a bad reload (SIGHUP with invalid YAML),
  * reloads on SIGHUP and restores a device the new policy drops,
  * restores every original knob value on SIGTERM and exits 0.

Also: --dry-run writes nothing, missing hardware exits 3, a bad policy 2.

Usage: daemon_e2e.py --daemon PATH/TO/coolhandd
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_fixture  # noqa: E402
from e2e_fixture import (CPU, CPU_MAX_KHZ, CPU_MIN_KHZ, FAN, FAN_ORIGINAL, TEMP,  # noqa: E402
                         Daemon, Tree, fan_state, wait_until)

POLICY = """
version: 1
sampling:
  min_interval: 200ms
  max_interval: 1s
daemon:
  lost_after_failures: 2
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
devices:
  fan:
    max_level: 3
    knob: {kind: cooling_device, name: Fan}
  cpu:
    max_level: 3
    knob: {kind: cpufreq, name: all}
controllers:
  guard:
    kind: table
    input: skin
    devices: [fan, cpu]
    safe_level: 3       # deeper than any table row: visible when the sensor is lost
    table:
      - {up_c: 45, down_c: 43, level: 1}
      - {up_c: 48, down_c: 46, level: 2}
"""

# The reloaded policy drives the CPU only: the fan must get its original back.
POLICY_CPU_ONLY = """
version: 1
sampling:
  min_interval: 200ms
  max_interval: 1s
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
devices:
  cpu:
    max_level: 2
    knob: {kind: cpufreq, name: all}
controllers:
  guard:
    kind: table
    input: skin
    devices: [cpu]
    table:
      - {up_c: 45, down_c: 43, level: 2}
"""


class DaemonEndToEnd(unittest.TestCase):
    def setUp(self):
        self.tree = Tree()
        self.config = os.path.join(self.tree.root, "policy.yaml")
        with open(self.config, "w") as f:
            f.write(POLICY)

    def tearDown(self):
        self.tree.cleanup()

    def test_full_scenario(self):
        with e2e_fixture.running(self.tree, self.config) as run:
            model, daemon = run.model, run.daemon
            # Cool start: level 0 means fan state 0 and the full CPU range.
            self.assertTrue(wait_until(lambda: self.tree.read_int(FAN) == 0, 3), daemon.text())
            self.assertEqual(self.tree.read_int(CPU), CPU_MAX_KHZ)

            # Hot: 5 W unthrottled would settle at 55 °C.
            model.demand_w = 5.0
            self.assertTrue(wait_until(lambda: self.tree.read_int(FAN) >= fan_state(1), 10), daemon.text())
            time.sleep(4)
            self.assertLess(model.temp_c, 52.0, "throttling kept the skin below the unthrottled 55 °C")
            self.assertLess(model.min_cpu_seen, CPU_MAX_KHZ)

            # The same load sustained for 15 s more. Level 1 (fan 1: x0.85, CPU
            # cap 1467 MHz: x0.73) settles 5 W at 45.6 °C, inside the table's
            # 43-48 °C band, so the skin must stay under 48.5 °C and the
            # levels must hold still: a controller that flaps fails here.
            model.reset_statistics()
            time.sleep(15)
            self.assertLess(model.max_temp_c, 48.5, daemon.text())
            self.assertLessEqual(model.fan_changes, 2, "fan flapped under a steady load\n" + daemon.text())
            self.assertIsNone(daemon.proc.poll())

            # The sensor file disappears: lost, safe level (3), then back.
            model.hide_sensor()
            self.assertTrue(daemon.wait_for_log("sensor skin: lost"), daemon.text())
            self.assertTrue(wait_until(lambda: self.tree.read_int(FAN) == fan_state(3), 3), daemon.text())
            model.show_sensor()
            self.assertTrue(daemon.wait_for_log("readable again", timeout=5), daemon.text())

            # Cool: 1 W settles at 35 °C; everything released.
            model.demand_w = 1.0
            released = lambda: self.tree.read_int(FAN) == 0 and self.tree.read_int(CPU) == CPU_MAX_KHZ
            self.assertTrue(wait_until(released, 15), daemon.text())

            # A bad reload keeps the old policy running.
            with open(self.config, "w") as f:
                f.write("version: 1\nsensors: [this is not a policy\n")
            daemon.proc.send_signal(signal.SIGHUP)
            self.assertTrue(daemon.wait_for_log("reload rejected"), daemon.text())
            self.assertIsNone(daemon.proc.poll())
            model.demand_w = 5.0
            self.assertTrue(wait_until(lambda: self.tree.read_int(FAN) >= fan_state(1), 10),
                            "old policy still drives the fan\n" + daemon.text())

            # A good reload that drops the fan: the fan gets its original value.
            with open(self.config, "w") as f:
                f.write(POLICY_CPU_ONLY)
            daemon.proc.send_signal(signal.SIGHUP)
            self.assertTrue(daemon.wait_for_log("policy reloaded"), daemon.text())
            self.assertTrue(wait_until(lambda: self.tree.read_int(FAN) == FAN_ORIGINAL, 3),
                            "reload did not restore the dropped fan\n" + daemon.text())
            self.assertTrue(wait_until(lambda: self.tree.read_int(CPU) == CPU_MIN_KHZ, 5), daemon.text())

            # SIGTERM: originals back, clean exit.
            code = daemon.stop()
            self.assertEqual(code, 0)
            self.assertEqual(self.tree.read_int(CPU), CPU_MAX_KHZ)
            self.assertEqual(self.tree.read_int(FAN), FAN_ORIGINAL, daemon.text())

    def test_dry_run_writes_nothing(self):
        self.tree.write(TEMP, 55000)
        out = subprocess.run([e2e_fixture.DAEMON, "--config", self.config, "--sysfs-root", self.tree.root,
                              "--dry-run", "--once"], capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("would write", out.stderr)
        self.assertEqual(self.tree.read_int(FAN), FAN_ORIGINAL)
        self.assertEqual(self.tree.read_int(CPU), CPU_MAX_KHZ)

    def test_missing_hardware_exits_3_with_a_message(self):
        shutil.rmtree(self.tree.path("class/thermal/thermal_zone0"))
        out = subprocess.run([e2e_fixture.DAEMON, "--config", self.config, "--sysfs-root", self.tree.root],
                             capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 3, out.stderr)
        self.assertIn("skin-therm", out.stderr)
        self.assertEqual(self.tree.read_int(FAN), FAN_ORIGINAL)

    def test_bad_policy_exits_2_naming_the_file(self):
        with open(self.config, "w") as f:
            f.write("version: 1\nsensors:\n  skin: {source: {kind: thermal_zone}}\n  bogus_key: 1\n")
        out = subprocess.run([e2e_fixture.DAEMON, "--config", self.config, "--sysfs-root", self.tree.root],
                             capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn("policy.yaml:", out.stderr)

    def test_read_only_knob_does_not_stop_the_daemon(self):
        # /proc/sys/kernel/ngroups_max is numeric and read-only even for root.
        ro = "/proc/sys/kernel/ngroups_max"
        if not os.path.exists(ro):
            self.skipTest("no read-only numeric file to link to")
        fan = self.tree.path(FAN)
        os.unlink(fan)
        os.symlink(ro, fan)
        self.tree.write("class/thermal/cooling_device0/max_state", 1 << 20)
        self.tree.write(TEMP, 55000)
        daemon = Daemon(self.tree, self.config)
        try:
            self.assertTrue(daemon.wait_for_log("running"), daemon.text())
            self.assertTrue(daemon.wait_for_log("device fan: write"), daemon.text())
            self.assertTrue(wait_until(lambda: self.tree.read_int(CPU) < CPU_MAX_KHZ, 3), daemon.text())
            self.assertIsNone(daemon.proc.poll())
        finally:
            self.assertEqual(daemon.stop(), 0)
        self.assertEqual(self.tree.read_int(CPU), CPU_MAX_KHZ)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--daemon", required=True)
    args, rest = parser.parse_known_args()
    e2e_fixture.DAEMON = os.path.abspath(args.daemon)
    unittest.main(argv=[sys.argv[0], "-v", *rest])
