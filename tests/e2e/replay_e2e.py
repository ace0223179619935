#!/usr/bin/env python3
"""Bit-exact replay of the real coolhandd's own decisions (issue 11).

The real coolhandd runs against a fake sysfs tree in /dev/shm that the
first-order thermal model of e2e_fixture.py drives (it reads the fan and CPU
knobs the daemon writes and writes the skin temperature back), so the
daemon's decisions feed back into its inputs. After the fan and the CPU cap
have both moved, SIGUSR1 dumps the flight recorder, and

  * `coolhand-sim replay --recording` with the embedded policy must
    reproduce every record (calls, port answers, steps, levels, winning
    controllers, virtual sensor values) and exit 0;
  * its decisions.csv must match, step for step, the daemon's own step and
    device_decision records as `coolhand-sim export` writes them (a second,
    independent look at the same file);
  * the same policy given with --policy --exact passes too, and one whose
    pid setpoint is 0.1 °C higher (the mutant) must fail with exit 1,
    naming the first differing record;
  * without --exact that mutant is a what-if: exit 0 and a report;
  * WrappedRingReplay: with a 1024-record ring and fast sampling the ring
    wraps during the run, and the dump still replays exactly, from the
    oldest whole checkpoint.

Usage: replay_e2e.py --daemon PATH/TO/coolhandd --sim PATH/TO/coolhand-sim
"""

import argparse
import csv
import os
import re
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_fixture  # noqa: E402  (the tree, the model, the daemon: running())

SIM = None

# A table on the skin for the fan; a pid on a 2 s EMA of the skin for the
# CPU (so the recording carries a virtual sensor and a setpoint).
POLICY = """
version: 1
sampling:
  min_interval: 200ms
  max_interval: 1s
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
  skin_avg:
    kind: ema
    input: skin
    time_constant: 2s
devices:
  fan:
    max_level: 3
    knob: {kind: cooling_device, name: Fan}
  cpu:
    max_level: 3
    knob: {kind: cpufreq, name: all}
controllers:
  fan_table:
    kind: table
    input: skin
    devices: [fan]
    table:
      - {up_c: 45, down_c: 43, level: 1}
      - {up_c: 48, down_c: 46, level: 2}
  cpu_pid:
    kind: pid
    input: skin_avg
    devices: [cpu]
    setpoint_c: SETPOINT
    kp: 0.5
    ki: 0.05
    kd: 0
    engage_below_c: 2
    period: 1s
"""


def policy(setpoint):
    return POLICY.replace("SETPOINT", setpoint)


def run_sim(*args):
    return subprocess.run([SIM, *args], capture_output=True, text=True, timeout=120)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class BitExactReplay(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = e2e_fixture.scratch_dir("coolhand-replay-e2e-")
        cls.tree = e2e_fixture.Tree()
        cls.config = os.path.join(cls.work, "policy.yaml")
        with open(cls.config, "w") as f:
            f.write(policy("46"))
        record_dir = os.path.join(cls.work, "records")
        os.makedirs(record_dir)
        # 4 W heads for 50 °C unthrottled.
        with e2e_fixture.running(cls.tree, cls.config, "--record-dir", record_dir,
                                 demand_w=4.0) as run:
            model, daemon = run.model, run.daemon
            # Both devices must have moved: the recording then holds real
            # decisions, not a flat line.
            ok = e2e_fixture.wait_until(
                lambda: model.max_fan_seen > 0 and model.min_cpu_seen < e2e_fixture.CPU_MAX_KHZ,
                30.0)
            if not ok:
                raise AssertionError("fan and cpu did not both throttle:\n" + daemon.text())
            time.sleep(2.0)  # a little more history, with the pid engaged
            daemon.proc.send_signal(signal.SIGUSR1)
            if not daemon.wait_for_log("flight recorder: SIGUSR1 dumped to "):
                raise AssertionError("no dump after SIGUSR1:\n" + daemon.text())
            m = re.search(r"flight recorder: SIGUSR1 dumped to (\S+)", daemon.text())
            cls.recording = m.group(1)
        cls.daemon_exit = run.exit_code

    @classmethod
    def tearDownClass(cls):
        cls.tree.cleanup()
        subprocess.run(["rm", "-rf", cls.work], check=False)

    def test_embedded_policy_reproduces_every_record(self):
        out = os.path.join(self.work, "exact")
        r = run_sim("replay", "--recording", self.recording, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        m = re.search(r"bit-exact with its own policy: (\d+) segment\(s\), (\d+) engine steps, "
                      r"(\d+) records compared, no difference", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        self.assertEqual(int(m.group(1)), 1)
        steps, compared = int(m.group(2)), int(m.group(3))
        self.assertGreater(steps, 20)
        # Each step is a step record, 2 device decisions and 1 virtual value.
        self.assertGreaterEqual(compared, 4 * steps)
        rows = read_csv(os.path.join(out, "decisions.csv"))
        self.assertEqual(len(rows), steps)
        self.assertTrue(any(int(x["fan_level"]) > 0 for x in rows))
        self.assertTrue(any(int(x["cpu_level"]) > 0 for x in rows))
        self.assertTrue(any(x["cpu_cause"] == "cpu_pid" for x in rows))
        self.assertTrue(any(x["fan_cause"] == "fan_table" for x in rows))
        sensors = read_csv(os.path.join(out, "sensors.csv"))
        self.assertEqual(len(sensors), steps)
        self.assertEqual(list(sensors[0].keys()), ["time_s", "skin", "skin_avg"])

    def test_replayed_decisions_match_the_exported_daemon_records(self):
        out = os.path.join(self.work, "exact2")
        exported = os.path.join(self.work, "export")
        r = run_sim("replay", "--recording", self.recording, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        e = run_sim("export", "--recording", self.recording, "--output", exported)
        self.assertEqual(e.returncode, 0, e.stderr)
        steps = read_csv(os.path.join(exported, "step.csv"))
        decisions = read_csv(os.path.join(exported, "device_decision.csv"))
        replayed = read_csv(os.path.join(out, "decisions.csv"))
        self.assertEqual(len(steps), len(replayed))
        self.assertEqual(len(decisions), 2 * len(steps))
        # device_decision records come in step order, one per device.
        for k, (step, row) in enumerate(zip(steps, replayed)):
            self.assertAlmostEqual(int(step["at_ms"]) / 1000.0, float(row["time_s"]), places=3)
            for d in decisions[2 * k:2 * k + 2]:
                name = d["device_name"]
                self.assertEqual(int(d["level"]), int(row[name + "_level"]), f"step {k} {name}")
                if row[name + "_cause"] != "forced":
                    self.assertEqual(d["cause_name"], row[name + "_cause"], f"step {k} {name}")

    def test_same_policy_given_again_passes_exact(self):
        same = os.path.join(self.work, "same.yaml")
        with open(same, "w") as f:
            f.write(policy("46"))
        r = run_sim("replay", "--recording", self.recording, "--policy", same, "--exact",
                "--out", os.path.join(self.work, "same"))
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertIn("bit-exact with " + same, r.stdout)

    def test_setpoint_moved_by_a_tenth_fails_exact_replay(self):
        mutant = os.path.join(self.work, "mutant.yaml")
        with open(mutant, "w") as f:
            f.write(policy("46.1"))
        r = run_sim("replay", "--recording", self.recording, "--policy", mutant, "--exact",
                "--out", os.path.join(self.work, "mutant"))
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertRegex(r.stderr, r"^coolhand-sim: " + re.escape(self.recording) +
                         r": record \d+ \(byte \d+\): the replay differs from the daemon: ")
        # Without --exact it is a what-if: it runs and reports.
        w = run_sim("replay", "--recording", self.recording, "--policy", mutant,
                "--out", os.path.join(self.work, "whatif"))
        self.assertEqual(w.returncode, 0, w.stderr)
        self.assertIn("(open loop)", w.stdout)
        self.assertRegex(w.stdout, r"\d+ stretch\(es\) differ")

    def test_daemon_exited_cleanly(self):
        self.assertEqual(self.daemon_exit, 0)


class WrappedRingReplay(unittest.TestCase):
    """The same daemon with the smallest ring (`daemon.recorder.records`
    1024) and fast sampling, so the ring wraps during the run: the dump has
    lost its loop_created record, and the replay must start from the
    oldest whole checkpoint and still reproduce every record after it."""

    @classmethod
    def setUpClass(cls):
        cls.work = e2e_fixture.scratch_dir("coolhand-replay-wrap-e2e-")
        cls.tree = e2e_fixture.Tree()
        cls.config = os.path.join(cls.work, "policy.yaml")
        text = policy("46").replace("  min_interval: 200ms\n  max_interval: 1s\n",
                                    "  min_interval: 20ms\n  max_interval: 40ms\n")
        with open(cls.config, "w") as f:
            f.write("daemon:\n  recorder: {records: 1024}\n" + text)
        record_dir = os.path.join(cls.work, "records")
        os.makedirs(record_dir)
        cls.recording = None
        cls.lost = 0
        with e2e_fixture.running(cls.tree, cls.config, "--record-dir", record_dir,
                                 demand_w=4.0) as run:
            model, daemon = run.model, run.daemon
            ok = e2e_fixture.wait_until(lambda: model.min_cpu_seen < e2e_fixture.CPU_MAX_KHZ, 30.0)
            if not ok:
                raise AssertionError("cpu did not throttle:\n" + daemon.text())
            # Dump until a dump has wrapped (at this rate one does within seconds).
            for n in range(1, 9):
                time.sleep(2.0)
                daemon.proc.send_signal(signal.SIGUSR1)
                if not daemon.wait_for_log("flight recorder: SIGUSR1 dumped to ", count=n):
                    raise AssertionError("no dump after SIGUSR1:\n" + daemon.text())
                path = re.findall(r"flight recorder: SIGUSR1 dumped to (\S+)", daemon.text())[-1]
                exported = os.path.join(cls.work, "export%d" % n)
                e = run_sim("export", "--recording", path, "--output", exported)
                if e.returncode != 0:
                    raise AssertionError(e.stderr)
                with open(os.path.join(exported, "recording.csv")) as f:
                    lost = [int(x.split(",")[1]) for x in f if x.startswith("lost,")]
                if lost and lost[0] > 0:
                    cls.recording, cls.lost = path, lost[0]
                    break
        cls.daemon_exit = run.exit_code

    @classmethod
    def tearDownClass(cls):
        cls.tree.cleanup()
        subprocess.run(["rm", "-rf", cls.work], check=False)

    def test_wrapped_recording_replays_exactly_from_a_checkpoint(self):
        self.assertIsNotNone(self.recording, "the ring never wrapped")
        self.assertGreater(self.lost, 0)
        out = os.path.join(self.work, "exact")
        r = run_sim("replay", "--recording", self.recording, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertRegex(r.stderr, r"note: .*segment 0 lost its start to the ring's wrap; "
                                   r"replayed from the checkpoint at record \d+")
        m = re.search(r"bit-exact with its own policy: (\d+) segment\(s\), (\d+) engine steps, "
                      r"(\d+) records compared, no difference", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        self.assertGreater(int(m.group(2)), 20)
        # The 0.1 °C setpoint mutant, restored from the same checkpoint, fails.
        mutant = os.path.join(self.work, "mutant.yaml")
        with open(self.config) as f:
            text = f.read()
        with open(mutant, "w") as f:
            f.write(text.replace("setpoint_c: 46", "setpoint_c: 46.1"))
        bad = run_sim("replay", "--recording", self.recording, "--policy", mutant, "--exact",
                  "--out", os.path.join(self.work, "mutant"))
        self.assertEqual(bad.returncode, 1, bad.stdout)
        self.assertIn("the replay differs from the daemon", bad.stderr)

    def test_daemon_exited_cleanly(self):
        self.assertEqual(self.daemon_exit, 0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--daemon", required=True)
    parser.add_argument("--sim", required=True)
    args, rest = parser.parse_known_args()
    e2e_fixture.DAEMON = os.path.abspath(args.daemon)
    SIM = args.sim
    unittest.main(argv=[sys.argv[0], "-v", *rest])
